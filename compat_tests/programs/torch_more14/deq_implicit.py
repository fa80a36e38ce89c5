"""A deep equilibrium (DEQ) layer with implicit differentiation, as in the "Deep Implicit Layers" tutorial: the fixed
point z* = tanh(W z* + U x + b) is found by Newton's method with the Jacobian from
torch.autograd.functional.jacobian(vectorize=True), the backward pass solves (I - df/dz)^T v = dL/dz* with
torch.linalg.solve inside a custom autograd.Function and uses torch.autograd.functional.vjp for the parameter
gradient; cross-checked against unrolled iterations, with jvp/hvp/hessian probes of the energy."""

import torch
import torch.nn as nn
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp


class Cell(nn.Module):
    def __init__(self, dim=4, inp=3):
        super().__init__()
        self.w = nn.Linear(dim, dim, bias=False)
        self.u = nn.Linear(inp, dim)
        with torch.no_grad():
            self.w.weight.mul_(0.5)

    def forward(self, z, x):
        return torch.tanh(self.w(z) + self.u(x))


def newton_fixed_point(cell, x, iters=6):
    z = torch.zeros(x.shape[0], cell.w.weight.shape[0])
    residuals = []
    for _ in range(iters):
        def g(zz):
            return zz - cell(zz, x)
        jac = jacobian(g, z, vectorize=True)  # (B, D, B, D): examples are independent
        blocks = torch.diagonal(jac, dim1=0, dim2=2).permute(2, 0, 1)
        z = z - torch.linalg.solve(blocks, g(z).unsqueeze(-1)).squeeze(-1)
        residuals.append(g(z).norm().item())
    return z.detach(), residuals


class DEQFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cell, *params):
        with torch.enable_grad():
            z, _ = newton_fixed_point(cell, x)
        ctx.cell = cell
        ctx.save_for_backward(z, x)
        return z

    @staticmethod
    def backward(ctx, grad_z):
        z, x = ctx.saved_tensors
        cell = ctx.cell
        with torch.enable_grad():
            jac = jacobian(lambda zz: cell(zz, x), z, vectorize=True)
        blocks = torch.diagonal(jac, dim1=0, dim2=2).permute(2, 0, 1)
        eye = torch.eye(z.shape[1]).expand_as(blocks)
        v = torch.linalg.solve((eye - blocks).transpose(1, 2), grad_z.unsqueeze(-1)).squeeze(-1)
        names = [n for n, _ in cell.named_parameters()]
        params = tuple(p.detach().requires_grad_() for p in cell.parameters())

        def through_params(*ps):
            return torch.func.functional_call(cell, dict(zip(names, ps)), (z, x))

        _, grads = vjp(through_params, params, v)
        return (None, None, *grads)


def main():
    torch.manual_seed(0)
    cell = Cell()
    head = nn.Linear(4, 1)
    x = torch.randn(5, 3)
    target = torch.randn(5, 1)
    z = DEQFunction.apply(x, cell, *cell.parameters())
    loss = ((head(z) - target) ** 2).mean()
    loss.backward()
    implicit = [p.grad.clone() for p in cell.parameters()]
    _, residuals = newton_fixed_point(cell, x)
    out = [loss.item(), str(z.grad_fn.name()), str(type(z.grad_fn).__name__)] + residuals

    cell.zero_grad()
    zz = torch.zeros(5, 4)
    for _ in range(60):  # unrolled: converges to the same fixed point and gradient
        zz = cell(zz, x)
    unrolled_loss = ((head(zz) - target) ** 2).mean()
    unrolled_loss.backward()
    out += [unrolled_loss.item()]
    for a, p in zip(implicit, cell.parameters()):
        out += [(a - p.grad).abs().max().item() < 1e-4, a.norm().item()]

    opt = torch.optim.Adam(list(cell.parameters()) + list(head.parameters()), lr=0.05)
    for _ in range(5):
        z = DEQFunction.apply(x, cell, *cell.parameters())
        loss = ((head(z) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    def energy(zv):
        return 0.5 * (zv ** 2).sum() - torch.log(torch.cosh(cell.w(zv) + cell.u(x[:1]))).sum()

    z0 = torch.randn(1, 4)
    direction = torch.ones(1, 4)
    with torch.no_grad():
        value, tangent = jvp(energy, z0, direction)
    _, hv = hvp(energy, z0, direction)
    h = hessian(energy, z0)
    out += [value.item(), tangent.item()] + hv.flatten().tolist()
    out += [str(tuple(h.shape)), (h.reshape(4, 4) @ direction.flatten() - hv.flatten()).abs().max().item() < 1e-5]
    j_fn = jacobian(lambda a, b: cell(a, b), (z0, x[:1]), vectorize=True, strategy="reverse-mode")
    out += [str(tuple(j_fn[0].shape)), str(tuple(j_fn[1].shape)), j_fn[1].sum().item()]
    return out
