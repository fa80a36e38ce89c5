"""A physics-informed network and a neural ODE: u(x, t) for the 1-D heat equation u_t = k u_xx trained on the PDE
residual (torch.autograd.grad of the outputs with respect to requires_grad collocation points, second derivatives
through create_graph=True) plus boundary and initial losses, first with Adam then with LBFGS (closure, strong
Wolfe line search); and a neural ODE dy/dt = f(y) integrated with a hand-written RK4 in Python, fitted to a
damped oscillator trajectory by backpropagating through the solver."""

import math

import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 24), nn.Tanh(), nn.Linear(24, 24), nn.Tanh(), nn.Linear(24, 1))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def pde_loss(model, x, t, k=0.1):
    u = model(x, t)
    u_x, u_t = torch.autograd.grad(u, (x, t), grad_outputs=torch.ones_like(u), create_graph=True)
    u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
    return ((u_t - k * u_xx) ** 2).mean()


def rk4(f, y0, ts):
    ys, y = [y0], y0
    for t0, t1 in zip(ts[:-1], ts[1:]):
        h = t1 - t0
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


def main():
    torch.manual_seed(21)
    model = PINN()
    x = (torch.rand(64, 1) * 2 - 1).requires_grad_(True)
    t = torch.rand(64, 1).requires_grad_(True)
    x0 = torch.linspace(-1, 1, 32).unsqueeze(1)
    u0 = torch.sin(math.pi * x0)
    tb = torch.linspace(0, 1, 16).unsqueeze(1)

    def total_loss():
        initial = ((model(x0, torch.zeros_like(x0)) - u0) ** 2).mean()
        boundary = (model(torch.ones_like(tb), tb) ** 2).mean() + (model(-torch.ones_like(tb), tb) ** 2).mean()
        return pde_loss(model, x, t) + initial + boundary

    out = []
    adam = torch.optim.Adam(model.parameters(), lr=5e-3)
    for _ in range(8):
        adam.zero_grad()
        loss = total_loss()
        loss.backward()
        adam.step()
        out.append(loss.item())
    lbfgs = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=6, history_size=5, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = total_loss()
        loss.backward()
        return loss

    for _ in range(2):
        out.append(lbfgs.step(closure).item())
    out.append(total_loss().item())
    # Neural ODE fitted to a damped oscillator.
    ts = torch.linspace(0.0, 3.0, 16)
    true_A = torch.tensor([[-0.1, 1.0], [-1.0, -0.1]])
    with torch.no_grad():
        target = rk4(lambda y: y @ true_A.T, torch.tensor([[1.0, 0.0]]), ts)
    func = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.RMSprop(func.parameters(), lr=1e-2)
    for _ in range(6):
        pred = rk4(func, torch.tensor([[1.0, 0.0]]), ts)
        loss = (pred - target).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += pred[-1].flatten().tolist() + [str(tuple(pred.shape))]
    return out
