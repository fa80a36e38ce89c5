"""Quantization-aware training with custom autograd Functions, as QAT / binarized-network blog posts write them: a
straight-through estimator (round with a clipped identity gradient) decorated with once_differentiable, a
two-output Function (values and argmax indices marked non-differentiable), ctx.save_for_backward of inputs and
outputs with ctx.needs_input_grad, non-tensor arguments getting None gradients, a Function used inside
nn.Module.forward, then gradcheck / torch.autograd.functional.jacobian and hessian on a smooth surrogate, and the
error raised when backward is called twice through a once_differentiable Function with create_graph."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class RoundSTE(Function):
    @staticmethod
    def forward(ctx, x, bits, scale):
        ctx.save_for_backward(x, scale)
        ctx.bits = bits
        levels = 2 ** (bits - 1) - 1
        return torch.clamp(torch.round(x / scale), -levels, levels) * scale

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out):
        x, scale = ctx.saved_tensors
        levels = 2 ** (ctx.bits - 1) - 1
        inside = (x / scale).abs() <= levels
        grad_x = grad_out * inside.to(grad_out.dtype) if ctx.needs_input_grad[0] else None
        grad_scale = None
        if ctx.needs_input_grad[2]:
            q = torch.clamp(torch.round(x / scale), -levels, levels)
            grad_scale = (grad_out * torch.where(inside, q - x / scale, q)).sum().reshape(scale.shape)
        return grad_x, None, grad_scale


class MaxWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.max(dim=-1)
        ctx.save_for_backward(idx)
        ctx.shape = x.shape
        ctx.mark_non_differentiable(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad_values, grad_idx):
        idx, = ctx.saved_tensors
        grad = torch.zeros(ctx.shape, dtype=grad_values.dtype)
        return grad.scatter(-1, idx.unsqueeze(-1), grad_values.unsqueeze(-1))


class SmoothAbs(Function):
    @staticmethod
    def forward(ctx, x, eps):
        y = torch.sqrt(x * x + eps)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * x / y, None


class QuantLinear(nn.Linear):
    def __init__(self, *args, bits=4, **kwargs):
        super().__init__(*args, **kwargs)
        self.bits = bits
        self.scale = nn.Parameter(torch.tensor(0.1))

    def forward(self, x):
        w = RoundSTE.apply(self.weight, self.bits, self.scale)
        return F.linear(x, w, self.bias)

    def extra_repr(self):
        return super().extra_repr() + f", bits={self.bits}"


def main():
    torch.manual_seed(7)
    out = []
    model = nn.Sequential(QuantLinear(5, 12, bits=3), nn.Hardtanh(), QuantLinear(12, 3, bits=4))
    out.append(str(model))
    x = torch.randn(40, 5)
    y = (x @ torch.randn(5, 3)).argmax(1)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(6):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        out += [loss.item(), model[0].scale.grad.item(), model[2].weight.grad.norm().item()]
        opt.step()
    out += [model[0].scale.item(), str(logits.grad_fn.name())]
    w = RoundSTE.apply(model[0].weight, 3, model[0].scale)
    out += [str(type(w.grad_fn).__name__), w.unique().numel() <= 7]

    scores = torch.randn(4, 6, requires_grad=True)
    values, idx = MaxWithIndex.apply(scores)
    out += [values.requires_grad, idx.requires_grad, str(idx.dtype), str(idx.tolist())]
    (values * torch.arange(1.0, 5.0)).sum().backward()
    out += scores.grad.sum(0).tolist()

    xd = torch.randn(6, dtype=torch.float64, requires_grad=True)
    out.append(torch.autograd.gradcheck(lambda t: SmoothAbs.apply(t, 0.1), (xd,), eps=1e-6, atol=1e-4))
    jac = torch.autograd.functional.jacobian(lambda t: SmoothAbs.apply(t, 0.1).cumsum(0), xd.detach())
    out += [str(jac.shape), jac.sum().item(), jac.triu(1).abs().sum().item()]
    hess = torch.autograd.functional.hessian(lambda t: (t.sin() * t).sum(), xd.detach())
    out += [hess.diagonal().sum().item(), (hess - torch.diag(hess.diagonal())).abs().max().item()]
    vals, vjp = torch.autograd.functional.vjp(lambda t: t.exp() * 2, xd.detach(), torch.ones(6, dtype=torch.float64))
    out += [vals.sum().item(), vjp.sum().item()]

    z = torch.randn(3, requires_grad=True)
    q = RoundSTE.apply(z, 4, torch.tensor(0.25))
    g, = torch.autograd.grad(q.sum(), z, create_graph=True)
    out += g.tolist()
    try:
        g.sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    return out
