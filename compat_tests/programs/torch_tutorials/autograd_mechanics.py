""""Autograd mechanics" and "A Gentle Introduction to torch.autograd": requires_grad propagation, grad_fn chains
(next_functions down to AccumulateGrad), retain_grad on non-leaf tensors, tensor hooks that scale or print
gradients, hooks on a leaf and handle.remove(), saved tensors and in-place checks, freezing parameters with
requires_grad_(False) for fine-tuning, and excluding subgraphs with no_grad / inference_mode / set_grad_enabled."""

import torch
from torch import nn


def chain(grad_fn, depth=0):
    """The names of a grad_fn graph, depth first."""
    if grad_fn is None:
        return []
    names = [f"{'  ' * depth}{grad_fn.name()}"]
    for next_fn, _ in grad_fn.next_functions:
        names += chain(next_fn, depth + 1)
    return names


def main():
    out = []
    torch.manual_seed(0)
    x = torch.randn(5, 5)
    y = torch.randn(5, 5)
    z = torch.randn((5, 5), requires_grad=True)
    a = x + y
    out.append(a.requires_grad)
    b = a + z
    out.append(b.requires_grad)

    w = torch.randn(3, 4, requires_grad=True)
    bias = torch.zeros(3, requires_grad=True)
    inp = torch.randn(2, 4)
    h = (inp @ w.t() + bias).tanh()
    h.retain_grad()
    loss = (h ** 2).sum()
    out += chain(loss.grad_fn)
    out.append(type(loss.grad_fn.next_functions[0][0].next_functions[0][0]).__name__)
    leaf = h.grad_fn.next_functions[0][0].next_functions[1][0]
    out.append(leaf.name())
    out.append(leaf.variable is bias)

    seen = []
    handle = h.register_hook(lambda g: seen.append(g.abs().sum().item()))
    bias_handle = bias.register_hook(lambda g: g * 2)
    loss.backward(retain_graph=True)
    out += seen + h.grad.flatten().tolist() + bias.grad.tolist()
    out += [h.is_leaf, w.is_leaf, repr(h.grad_fn.name())]
    handle.remove()
    bias_handle.remove()
    w.grad = None
    bias.grad = None
    loss.backward()
    out += seen + bias.grad.tolist() + w.grad.flatten().tolist()

    v = torch.randn(3, requires_grad=True)
    s = v.sigmoid()
    s.mul_(2)
    out.append(s.grad_fn.name())
    try:
        s.sum().backward()
        out.append("no error")
    except RuntimeError as err:
        out.append(str(err).split(":")[0])  # the rest names the tensor in each library's words
    t = v * 3
    t.add_(1)
    t.sum().backward()
    out += [t.grad_fn.name(), t._version] + v.grad.tolist()

    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    for param in model.parameters():
        param.requires_grad_(False)
    model[2] = nn.Linear(8, 2)
    out.append(repr([n for n, p in model.named_parameters() if p.requires_grad]))
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        loss = model(torch.ones(2, 4)).pow(2).sum()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += [repr(model[0].weight.grad), repr(model[2].weight.grad is None)]

    with torch.no_grad():
        out.append((v * 2).requires_grad)
    with torch.inference_mode():
        t = v * 2
        out.append(t.requires_grad)
    with torch.set_grad_enabled(False):
        out.append((v * 2).requires_grad)
    torch.set_grad_enabled(True)
    out.append((v * 2).requires_grad)
    out.append(torch.is_grad_enabled())

    detached = v.detach()
    out += [detached.requires_grad, detached.data_ptr() == v.data_ptr()]
    q = torch.ones(2, 2, requires_grad=True)
    r = q * q
    g, = torch.autograd.grad(r.sum(), q, create_graph=True)
    out += [repr(g), g.grad_fn is not None]
    g.sum().backward()
    out += q.grad.flatten().tolist()
    return out
