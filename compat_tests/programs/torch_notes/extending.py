"""The "Extending PyTorch" note: a custom ``autograd.Function`` in the separate ``forward(*args)`` +
``setup_context(ctx, inputs, output)`` style (LinearFunction with an optional bias, ``ctx.needs_input_grad``),
``ctx.set_materialize_grads(False)`` (backward sees None for unused outputs), ``mark_dirty`` for an in-place
function, checked with ``gradcheck`` and ``gradgradcheck``; and a custom ``nn.Module`` (the note's ``Linear`` with
``nn.Parameter``, ``register_buffer`` and ``extra_repr``)."""

import math

import torch
from torch import nn
from torch.autograd import Function, gradcheck, gradgradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


NEEDS = []


class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.constant = inputs[1]
        NEEDS.append(repr(ctx.needs_input_grad))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


SEEN = []


class SplitTwo(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        SEEN.append((g1 is None, g2 is None))
        grad = torch.zeros(1, dtype=torch.float64) if g1 is None else g1 * 2
        if g2 is not None:
            grad = grad + g2 * 3
        return grad


class Cube(Function):
    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("scratch", torch.ones(2), persistent=False)
        bound = 1 / math.sqrt(input_features)
        nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        self.calls += 1
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f"input_features={self.input_features}, output_features={self.output_features}, " \
               f"bias={self.bias is not None}"


def main():
    out = []
    torch.manual_seed(11)
    inputs = (torch.randn(4, 5, dtype=torch.double, requires_grad=True),
              torch.randn(3, 5, dtype=torch.double, requires_grad=True),
              torch.randn(3, dtype=torch.double, requires_grad=True))
    out.append(gradcheck(LinearFunction.apply, inputs, eps=1e-6, atol=1e-4))
    out.append(gradgradcheck(LinearFunction.apply, inputs, eps=1e-6, atol=1e-4))
    no_bias = LinearFunction.apply(inputs[0], inputs[1], None)
    out += [repr(no_bias.shape), type(no_bias.grad_fn).__name__]
    no_bias.sum().backward()
    out += inputs[1].grad.flatten().tolist() + [inputs[2].grad is None]

    a = torch.randn(3, requires_grad=True)
    y = MulConstant.apply(a, 5.0)
    y.sum().backward()
    out += a.grad.tolist() + NEEDS
    MulConstant.apply(torch.randn(2), 2.0)
    out.append(NEEDS[-1])

    x = torch.tensor([1.5], dtype=torch.float64, requires_grad=True)
    first, second = SplitTwo.apply(x)
    first.backward(retain_graph=True)
    (second * 4).backward()
    out += x.grad.tolist() + [repr(SEEN)]

    c = torch.randn(3, dtype=torch.double, requires_grad=True)
    out += [gradcheck(Cube.apply, (c,)), gradgradcheck(Cube.apply, (c,))]
    (g,) = torch.autograd.grad(Cube.apply(c).sum(), c, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), c)
    out += (gg - 6 * c).abs().tolist()

    lin = Linear(5, 3)
    out += [repr(lin), repr(Linear(2, 2, bias=False)), repr(list(lin.state_dict().keys()))]
    out += [repr([name for name, _ in lin.named_buffers()]), repr([name for name, _ in lin.named_parameters()])]
    result = lin(torch.randn(4, 5))
    result = lin(torch.randn(4, 5))
    result.pow(2).mean().backward()
    out += [lin.calls.item(), repr(lin.calls), lin.weight.grad.norm().item(), lin.bias.grad.sum().item()]
    try:  # a backward that forgets the constant: gradcheck's error names the mismatch
        gradcheck(lambda t: Cube.apply(t) + MulConstant.apply(t, 2.0) * 0 + t.detach().pow(2), (c,))
        out.append("passed")
    except RuntimeError as err:
        out.append(str(err).split("\n")[0])
    return out
