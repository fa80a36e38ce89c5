"""Autograd utilities on a small network: torch.utils.checkpoint.checkpoint (non-reentrant) through the blocks of a
deep residual MLP and checkpoint_sequential, with gradients compared with the plain run; torch.autograd.functional
jacobian (vectorize=True and not), hessian, hvp, vhp, vjp and jvp of a scalar and a vector function; and a custom
autograd.Function with save_for_backward, mark_non_differentiable and once_differentiable, verified by gradcheck."""

import torch
import torch.nn as nn
from torch.autograd import Function
from torch.autograd.function import once_differentiable
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return x + torch.tanh(self.lin(self.norm(x)))


class DeepMLP(nn.Module):
    def __init__(self, dim=12, depth=6, use_checkpoint=False):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)
        self.use_checkpoint = use_checkpoint

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if self.use_checkpoint else block(x)
        return self.head(x)


class SortedClip(Function):
    """Clamps to [-1, 1] and also returns the argsort of the input (an integer output, not differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        order = x.argsort(dim=-1)
        ctx.mark_non_differentiable(order)
        return x.clamp(-1, 1), order

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out, _grad_order):
        (x,) = ctx.saved_tensors
        return grad_out * ((x > -1) & (x < 1)).to(grad_out.dtype)


def main():
    torch.manual_seed(19)
    x = torch.randn(8, 12)
    y = torch.randn(8, 1)
    plain = DeepMLP()
    ckpt = DeepMLP(use_checkpoint=True)
    ckpt.load_state_dict(plain.state_dict())
    out = []
    for model in (plain, ckpt):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        out += [loss.item(), model.blocks[0].lin.weight.grad.norm().item()]
    out.append(max((a.grad - b.grad).abs().max().item() for a, b in zip(plain.parameters(), ckpt.parameters())))
    seq = nn.Sequential(*[Block(12) for _ in range(4)], nn.Linear(12, 1))
    xin = x.clone().requires_grad_(True)
    seq_out = checkpoint_sequential(seq, 2, xin, use_reentrant=False)
    seq_out.sum().backward()
    out += [seq_out.sum().item(), xin.grad.norm().item()]
    # torch.autograd.functional on a small net.
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    f_vec = lambda inp: net(inp)  # noqa: E731
    f_scalar = lambda inp: net(inp).pow(2).sum()  # noqa: E731
    point = torch.randn(3)
    jac = torch.autograd.functional.jacobian(f_vec, point)
    jac_v = torch.autograd.functional.jacobian(f_vec, point, vectorize=True)
    hess = torch.autograd.functional.hessian(f_scalar, point)
    v = torch.tensor([1.0, -0.5, 0.25])
    val, hv = torch.autograd.functional.hvp(f_scalar, point, v)
    _, vh = torch.autograd.functional.vhp(f_scalar, point, v)
    _, vj = torch.autograd.functional.vjp(f_vec, point, torch.tensor([1.0, 2.0]))
    _, jv = torch.autograd.functional.jvp(f_vec, point, v)
    out += jac.flatten().tolist() + [(jac - jac_v).abs().max().item()] + hess.flatten().tolist()
    out += [val.item()] + hv.tolist() + [(hv - hess @ v).abs().max().item(), (vh - hv).abs().max().item()]
    out += vj.tolist() + jv.tolist() + [str(tuple(jac.shape)), str(tuple(hess.shape)), hess.requires_grad]
    # Jacobian of a function with two inputs and create_graph.
    def two(a, b):
        return (a * b.sin()).sum(0)

    ja, jb = torch.autograd.functional.jacobian(two, (torch.randn(4, 2), torch.randn(4, 2)))
    out += [str(tuple(ja.shape)), ja.sum().item(), jb.sum().item()]
    # The custom Function.
    inp = (torch.randn(4, 5, dtype=torch.float64) * 1.5).requires_grad_(True)
    clipped, order = SortedClip.apply(inp)
    out += [order.requires_grad, clipped.requires_grad, type(clipped.grad_fn).__name__.startswith("SortedClip")]
    (clipped * torch.arange(5, dtype=torch.float64)).sum().backward()
    out += inp.grad.flatten().tolist() + order.flatten().tolist()
    smooth = (torch.rand(3, 4, dtype=torch.float64) * 1.6 - 0.8).requires_grad_(True)
    out.append(torch.autograd.gradcheck(lambda t: SortedClip.apply(t)[0], (smooth,), eps=1e-6, atol=1e-4))
    h = SortedClip.apply(smooth)[0].pow(2).sum()
    (g,) = torch.autograd.grad(h, smooth, create_graph=True)
    try:
        g.sum().backward()
        out.append("no error")
    except RuntimeError as err:
        out.append(str(err).split("\n")[0][:60])
    return out
