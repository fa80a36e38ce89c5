"""Sparse coding and hypernetworks (as in the LISTA / "learned optimizers" tutorials and the HyperNetworks
repositories): ISTA with the step from the spectral norm (torch.linalg.matrix_norm(ord=2)) and F.softshrink,
dictionary learning alternating ISTA codes with a gradient step on the atoms, renormalised with Tensor.renorm_
under torch.no_grad; LISTA (unrolled ISTA with learned matrices and per-layer thresholds through a hand-written
soft threshold with torch.sign and F.relu) trained on codes; then a hypernetwork mapping a task embedding to the
flattened weights of a target MLP, unflattened with torch.split / view into a parameter dict and applied to each
task's batch with torch.func.functional_call under torch.func.vmap (in_dims over tasks), trained with Adam and
an orthogonally parametrized embedding table (nn.utils.parametrizations.orthogonal)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap


def ista(x, dictionary, lam, n_iters=20):
    step = 1.0 / torch.linalg.matrix_norm(dictionary, ord=2) ** 2
    z = torch.zeros(x.shape[0], dictionary.shape[1])
    for _ in range(n_iters):
        grad = (z @ dictionary.T - x) @ dictionary
        z = F.softshrink(z - step * grad, lambd=(lam * step).item())
    return z


def soft_threshold(x, theta):
    return torch.sign(x) * F.relu(x.abs() - theta)


class LISTA(nn.Module):
    def __init__(self, n_in, n_atoms, n_layers=3):
        super().__init__()
        self.W = nn.Linear(n_in, n_atoms, bias=False)
        self.S = nn.Linear(n_atoms, n_atoms, bias=False)
        self.theta = nn.Parameter(torch.full((n_layers,), 0.05))

    def forward(self, x):
        b = self.W(x)
        z = soft_threshold(b, self.theta[0])
        for theta in self.theta[1:]:
            z = soft_threshold(b + self.S(z), theta)
        return z


class HyperNet(nn.Module):
    def __init__(self, n_tasks, emb_dim, target):
        super().__init__()
        self.embed = nn.utils.parametrizations.orthogonal(nn.Linear(emb_dim, n_tasks, bias=False))
        self.shapes = {name: p.shape for name, p in target.named_parameters()}
        total = sum(s.numel() for s in self.shapes.values())
        self.net = nn.Sequential(nn.Linear(emb_dim, 32), nn.Tanh(), nn.Linear(32, total))
        with torch.no_grad():
            self.net[2].weight.mul_(0.1)

    def forward(self):
        flat = self.net(self.embed.weight)  # (n_tasks, total)
        chunks = torch.split(flat, [s.numel() for s in self.shapes.values()], dim=1)
        return {name: c.view(-1, *shape) for (name, shape), c in zip(self.shapes.items(), chunks)}


def main():
    torch.manual_seed(10)
    g = torch.Generator().manual_seed(10)
    true_dict = F.normalize(torch.randn(8, 12, generator=g), dim=0)
    codes = torch.randn(40, 12, generator=g) * (torch.rand(40, 12, generator=g) < 0.2)
    x = codes @ true_dict.T
    out = []
    dictionary = F.normalize(torch.randn(8, 12, generator=g), dim=0)
    for _ in range(4):
        z = ista(x, dictionary, 0.05)
        residual = z @ dictionary.T - x
        with torch.no_grad():
            dictionary -= 0.5 * residual.T @ z / x.shape[0]
            dictionary.renorm_(2, 1, 1.0)
        out += [residual.pow(2).mean().item(), (z != 0).float().mean().item()]
    out.append(torch.linalg.svdvals(dictionary).max().item())

    target_codes = ista(x, true_dict, 0.05, n_iters=50)
    lista = LISTA(8, 12)
    opt = torch.optim.Adam(lista.parameters(), lr=1e-2)
    for _ in range(6):
        loss = F.mse_loss(lista(x), target_codes)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += lista.theta.tolist()

    n_tasks = 4
    target = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    hyper = HyperNet(n_tasks, 4, target)
    slopes = torch.linspace(-1, 1, n_tasks)
    xs = torch.rand(n_tasks, 16, 2, generator=g) * 2 - 1
    ys = (slopes[:, None] * xs[..., 0] + xs[..., 1] ** 2).unsqueeze(-1)

    def run_target(params, inputs):
        return functional_call(target, params, (inputs,))

    opt = torch.optim.Adam(hyper.parameters(), lr=1e-2)
    for _ in range(6):
        params = hyper()
        preds = vmap(run_target)(params, xs)
        loss = F.mse_loss(preds, ys)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    emb = hyper.embed.weight
    out += [(emb.T @ emb - torch.eye(4)).abs().max().item() < 1e-5, preds.std().item()]
    return out
