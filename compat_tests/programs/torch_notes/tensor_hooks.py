"""Hooks on tensors and the "optimizer in backward" pattern (autograd note "Backward hooks execution", tutorial
"How to save memory by fusing the optimizer step into the backward pass"): register_hook returning a modified
gradient (on leaves and intermediate tensors, in registration order), retain_grad on intermediates and its
interaction with hooks, Tensor.register_post_accumulate_grad_hook running an optimizer step per parameter during
backward (compared with the ordinary step), and gradient checkpointing giving the same gradients."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def main():
    out = []
    torch.manual_seed(8)
    a = torch.randn(3, requires_grad=True)
    b = a * 2
    b.retain_grad()
    order = []
    b.register_hook(lambda g: order.append("first") or g * 3)
    b.register_hook(lambda g: order.append("second") or g + 1)
    a.register_hook(lambda g: order.append("leaf") or g.clamp(max=5.0))
    c = (b ** 2).sum()
    c.backward()
    out += [repr(order), repr(b.grad), repr(a.grad), b.is_leaf, b.requires_grad]
    out += [a.grad.sum().item()]

    # A hook on a tensor used twice sees the summed gradient once.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 2 + y * 3).sum().backward()
    out += [repr(seen)] + x.grad.tolist()
    try:
        torch.ones(2).register_hook(lambda g: g)
    except RuntimeError as err:
        out.append(str(err))
    try:
        b.retain_grad()
        out.append(repr(b.retains_grad))
        torch.ones(2).retain_grad()
    except RuntimeError as err:
        out.append(str(err))

    # Optimizer step inside backward.
    torch.manual_seed(9)
    model = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2))
    reference = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2))
    reference.load_state_dict(model.state_dict())
    optimizer_dict = {p: torch.optim.Adam([p], lr=0.05) for p in model.parameters()}
    accumulated = []

    def optimizer_hook(parameter):
        accumulated.append(tuple(parameter.shape))
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(optimizer_hook)
    ref_opt = torch.optim.Adam(reference.parameters(), lr=0.05)
    data = torch.randn(16, 5)
    target = torch.randn(16, 2)
    for _ in range(4):
        loss = nn.functional.mse_loss(model(data), target)
        loss.backward()
        ref_opt.zero_grad()
        ref_loss = nn.functional.mse_loss(reference(data), target)
        ref_loss.backward()
        ref_opt.step()
        out += [loss.item(), ref_loss.item()]
    # (not the order of the hooks: for nn.Linear on 2-d inputs torch accumulates the bias first, vfw the weight)
    out += [len(accumulated), repr(sorted(set(accumulated))), repr([p.grad for p in model.parameters()])]
    out.append(max((p - q).abs().max().item() for p, q in zip(model.parameters(), reference.parameters())))

    # Checkpointed block: same gradients, hooks still fire on the outer tensors.
    block = nn.Sequential(nn.Linear(5, 5), nn.GELU(), nn.Linear(5, 5))
    inp = torch.randn(3, 5, requires_grad=True)
    fired = []
    mid = inp * 1.5
    mid.register_hook(lambda g: fired.append(round(g.abs().sum().item(), 4)))
    checkpoint(block, mid, use_reentrant=False).pow(2).sum().backward()
    plain_grad = inp.grad.clone()
    inp.grad = None
    block(inp * 1.5).pow(2).sum().backward()
    out += [len(fired), (plain_grad - inp.grad).abs().max().item(), inp.grad.norm().item()]
    return out
