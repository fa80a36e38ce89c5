"""The torch.autograd.grad / backward options of the autograd note: grad with allow_unused and materialize_grads,
grad_outputs for a vector output, create_graph for a second derivative, torch.autograd.backward with inputs=, and
the errors for unused inputs, non-scalar outputs and mismatched grad_outputs."""

import torch


def first_line(fn):
    try:
        fn()
        return "no error"
    except RuntimeError as err:
        return str(err).split("\n")[0]


def main():
    out = []
    torch.manual_seed(12)
    x = torch.randn(3, requires_grad=True)
    unused = torch.randn(3, requires_grad=True)
    y = x.pow(3)
    out.append(first_line(lambda: torch.autograd.grad(y.sum(), [x, unused], retain_graph=True)))
    gx, gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, retain_graph=True)
    out += gx.tolist() + [gu is None]
    gx, gu = torch.autograd.grad(y.sum(), [x, unused], materialize_grads=True, retain_graph=True)
    out += [repr(gu)]
    out.append(first_line(lambda: torch.autograd.grad(y, x, retain_graph=True)))
    (vjp,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.0, -1.0]), retain_graph=True)
    out += vjp.tolist()
    (g1,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), x)
    out += (g2 - 6 * x).abs().tolist() + [g1.requires_grad, g2.requires_grad]

    p = torch.randn(2, requires_grad=True)
    q = torch.randn(2, requires_grad=True)
    r = (p * q).sum()
    torch.autograd.backward(r, inputs=[p])
    out += [q.grad is None] + (p.grad - q).abs().tolist()
    out.append(first_line(lambda: torch.autograd.backward(r)))
    s = (p.exp() * q).sum()
    s.backward(inputs=[q], retain_graph=True)
    out += (q.grad - p.exp()).abs().tolist()
    out.append(first_line(lambda: torch.autograd.grad(s, p, grad_outputs=torch.ones(2))))
    return out
