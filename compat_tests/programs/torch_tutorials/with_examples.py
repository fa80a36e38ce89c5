""""Learning PyTorch with Examples": fitting y = sin(x) with a third-order polynomial, first in numpy, then with
tensors and manual gradients, autograd, a custom autograd.Function (the Legendre polynomial P3), nn.Sequential with
Flatten(0, 1) and MSELoss(reduction='sum'), optim.RMSprop, a custom nn.Module with string(), and the dynamic-graph
module with control flow (a random number of reused layers, seeded)."""

import math
import random

import numpy as np
import torch

STEPS = 300


def numpy_fit(out):
    rng = np.random.default_rng(0)
    x = np.linspace(-math.pi, math.pi, 200)
    y = np.sin(x)
    a, b, c, d = rng.standard_normal(4)
    learning_rate = 1e-6
    for _ in range(STEPS):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = np.square(y_pred - y).sum()
        grad_y_pred = 2.0 * (y_pred - y)
        a -= learning_rate * grad_y_pred.sum()
        b -= learning_rate * (grad_y_pred * x).sum()
        c -= learning_rate * (grad_y_pred * x ** 2).sum()
        d -= learning_rate * (grad_y_pred * x ** 3).sum()
    out += [loss, a, b, c, d]
    return x


def tensor_fit(out):
    dtype = torch.float
    device = torch.device("cpu")
    x = torch.linspace(-math.pi, math.pi, 200, device=device, dtype=dtype)
    y = torch.sin(x)
    a, b, c, d = (torch.randn((), device=device, dtype=dtype) for _ in range(4))
    learning_rate = 1e-6
    for t in range(STEPS):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        a -= learning_rate * grad_y_pred.sum()
        b -= learning_rate * (grad_y_pred * x).sum()
        c -= learning_rate * (grad_y_pred * x ** 2).sum()
        d -= learning_rate * (grad_y_pred * x ** 3).sum()
        if t % 100 == 99:
            out.append(loss)
    out.append(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3".count("x"))
    out += [a.item(), b.item(), c.item(), d.item()]


def autograd_fit(out):
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    a, b, c, d = (torch.randn((), dtype=torch.float, requires_grad=True) for _ in range(4))
    learning_rate = 1e-6
    for t in range(STEPS):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 100 == 99:
            out.append(loss.item())
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    out += [a.item(), d.item(), repr(a)]


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def function_fit(out):
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    a = torch.full((), 0.0, requires_grad=True)
    b = torch.full((), -1.0, requires_grad=True)
    c = torch.full((), 0.0, requires_grad=True)
    d = torch.full((), 0.3, requires_grad=True)
    learning_rate = 5e-6
    for t in range(STEPS):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t == 0:
            out.append(type(y_pred.grad_fn.next_functions[1][0]).__name__)
            out.append(str(y_pred.grad_fn.next_functions[1][0].next_functions[0][0].name()))
        if t % 100 == 99:
            out.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    out += [a.item(), b.item(), c.item(), d.item()]


def nn_fit(out):
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)
    out.append(str(xx.shape))
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    loss_fn = torch.nn.MSELoss(reduction='sum')
    learning_rate = 1e-6
    for t in range(STEPS):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            out.append(loss.item())
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    out += [linear_layer.bias.item(), *linear_layer.weight[:, 0:3].flatten().tolist(), str(model)]

    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(STEPS):
        loss = loss_fn(model(xx), y)
        if t % 100 == 99:
            out.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out.append(str(optimizer))


class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y


def module_fit(out):
    x = torch.linspace(-math.pi, math.pi, 200)
    y = torch.sin(x)
    model = Polynomial3()
    criterion = torch.nn.MSELoss(reduction='sum')
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
    for _ in range(STEPS):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out += [loss.item(), len(model.string()) > 0, [n for n, _ in model.named_parameters()].__repr__()]

    random.seed(0)
    model = DynamicNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    for t in range(STEPS):
        loss = criterion(model(x), y)
        if t % 100 == 99:
            out.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out += [p.item() for p in model.parameters()]
    out.append(repr(optimizer.state_dict()["param_groups"]))
    out += optimizer.state_dict()["state"][0]["momentum_buffer"].reshape(1).tolist()


def main():
    torch.manual_seed(0)
    out = []
    numpy_fit(out)
    tensor_fit(out)
    autograd_fit(out)
    function_fit(out)
    nn_fit(out)
    module_fit(out)
    return out
