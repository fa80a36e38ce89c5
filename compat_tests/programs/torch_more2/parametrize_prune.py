"""Constrained and pruned weights: torch.nn.utils.parametrize with hand-written parametrizations (a symmetric
matrix, a positive diagonal via softplus, a chained pair), parametrizations.weight_norm, cached() during an
evaluation, right_inverse on assignment, remove_parametrizations(leave_parametrized=True); then
torch.nn.utils.prune: l1_unstructured, random_unstructured, ln_structured, global_unstructured, the weight_orig /
weight_mask names, the forward pre-hook, prune.remove, and the sparsity reached."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations, prune


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class PositiveDiagonal(nn.Module):
    def forward(self, X):
        return X - torch.diag(torch.diagonal(X)) + torch.diag(F.softplus(torch.diagonal(X)))


class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def forward(self, X):
        return X * self.s


def main():
    torch.manual_seed(21)
    x = torch.randn(32, 6)
    target = torch.randn(32, 6)
    layer = nn.Linear(6, 6)
    parametrize.register_parametrization(layer, "weight", Symmetric())
    parametrize.register_parametrization(layer, "weight", PositiveDiagonal())
    ortho = parametrizations.weight_norm(nn.Linear(6, 6, bias=False))
    scaled = nn.Linear(6, 6)
    parametrize.register_parametrization(scaled, "bias", Scale(0.5))
    out = [str(parametrize.is_parametrized(layer)), str(parametrize.is_parametrized(layer, "bias")),
           ",".join(n for n, _ in layer.named_parameters()), ",".join(layer.state_dict().keys()),
           type(layer).__name__, str(layer.parametrizations.weight)]
    params = list(layer.parameters()) + list(ortho.parameters()) + list(scaled.parameters())
    opt = torch.optim.Adam(params, lr=0.02)
    for _step in range(8):
        y = scaled(ortho(layer(x)))
        loss = F.mse_loss(y, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        w = layer.weight
        out += [loss.item(), (w - w.T).abs().max().item(), torch.diagonal(w).min().item(),
                ortho.weight.norm(dim=1).sum().item(), ortho.parametrizations.weight.original0.sum().item()]
    with torch.no_grad(), parametrize.cached():
        out.append(scaled(ortho(layer(x))).sum().item())
    # Assigning goes through right_inverse (Symmetric keeps the upper triangle of the assigned matrix).
    single = nn.Linear(4, 4)
    parametrize.register_parametrization(single, "weight", Symmetric())
    with torch.no_grad():
        single.weight = torch.arange(16.0).view(4, 4)
    out += single.weight.flatten().tolist() + single.parametrizations.weight.original.flatten().tolist()
    parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
    out += [",".join(n for n, _ in layer.named_parameters()), type(layer).__name__, layer.weight.sum().item()]

    # Pruning.
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 6))
    prune.l1_unstructured(net[0], name="weight", amount=0.3)
    prune.random_unstructured(net[0], name="bias", amount=3)
    prune.ln_structured(net[2], name="weight", amount=0.25, n=2, dim=0)
    out += [",".join(n for n, _ in net.named_parameters()), ",".join(n for n, _ in net.named_buffers()),
            str(prune.is_pruned(net)), str(list(net[0]._forward_pre_hooks.values())[0].__class__.__name__)]
    prune.global_unstructured([(net[2], "bias"), (net[4], "weight")], pruning_method=prune.L1Unstructured,
                              amount=0.4)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for _step in range(6):
        loss = F.mse_loss(net(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), float((net[0].weight == 0).sum()), net[0].weight_orig.grad.abs().sum().item()]
    prune.l1_unstructured(net[0], name="weight", amount=0.2)  # iterative: a PruningContainer
    out.append(float((net[0].weight_mask == 0).sum()))
    for module, name in ((net[0], "weight"), (net[0], "bias"), (net[2], "weight"), (net[2], "bias"),
                         (net[4], "weight")):
        prune.remove(module, name)
    out += [",".join(n for n, _ in net.named_parameters()), len(list(net.buffers())), str(prune.is_pruned(net))]
    total = sum(p.numel() for p in net.parameters())
    zeros = sum(float((p == 0).sum()) for p in net.parameters())
    out += [zeros / total, net(x).sum().item()]
    return out
