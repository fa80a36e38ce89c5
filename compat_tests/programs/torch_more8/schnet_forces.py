"""A SchNet-style interatomic potential (as in schnetpack / PyG's SchNet): pairwise distances with torch.cdist
on a small batch of random molecules, radial basis expansion (Gaussian smearing over torch.linspace centres), a
cosine cutoff, continuous-filter convolutions as message passing over an edge list (torch.nonzero of the
neighbour mask, index_select, index_add_), shifted softplus, per-atom energies pooled per molecule with
scatter_add_ over a batch vector; forces as -dE/dx by torch.autograd.grad with create_graph=True so that the loss
on energies and forces trains the network (force matching), with Adam and ReduceLROnPlateau."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def shifted_softplus(x):
    return F.softplus(x) - math.log(2.0)


class GaussianSmearing(nn.Module):
    def __init__(self, cutoff, n_gaussians):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0.0, cutoff, n_gaussians))
        self.coeff = -0.5 / (cutoff / (n_gaussians - 1)) ** 2

    def forward(self, d):
        return torch.exp(self.coeff * (d[:, None] - self.centers) ** 2)


class Interaction(nn.Module):
    def __init__(self, hidden, n_gaussians, cutoff):
        super().__init__()
        self.cutoff = cutoff
        self.filter = nn.Sequential(nn.Linear(n_gaussians, hidden), nn.Softplus(), nn.Linear(hidden, hidden))
        self.in2f = nn.Linear(hidden, hidden, bias=False)
        self.f2out = nn.Sequential(nn.Linear(hidden, hidden), nn.Softplus(), nn.Linear(hidden, hidden))

    def forward(self, h, src, dst, dist, rbf):
        cut = 0.5 * (torch.cos(dist * math.pi / self.cutoff) + 1.0) * (dist < self.cutoff).float()
        w = self.filter(rbf) * cut[:, None]
        messages = self.in2f(h).index_select(0, src) * w
        agg = torch.zeros_like(h).index_add_(0, dst, messages)
        return h + self.f2out(agg)


class SchNet(nn.Module):
    def __init__(self, n_species=4, hidden=16, n_gaussians=12, cutoff=3.0, n_interactions=2):
        super().__init__()
        self.cutoff = cutoff
        self.embed = nn.Embedding(n_species, hidden)
        self.rbf = GaussianSmearing(cutoff, n_gaussians)
        self.interactions = nn.ModuleList([Interaction(hidden, n_gaussians, cutoff) for _ in range(n_interactions)])
        self.out1 = nn.Linear(hidden, hidden // 2)
        self.out2 = nn.Linear(hidden // 2, 1)

    def forward(self, species, pos, batch, n_molecules):
        same = batch[:, None] == batch[None, :]
        dmat = torch.cdist(pos, pos)
        neighbours = same & (dmat < self.cutoff) & ~torch.eye(len(pos), dtype=torch.bool)
        dst, src = neighbours.nonzero(as_tuple=True)
        dist = (pos[dst] - pos[src]).norm(dim=-1)
        rbf = self.rbf(dist)
        h = self.embed(species)
        for block in self.interactions:
            h = block(h, src, dst, dist, rbf)
        atom_e = self.out2(shifted_softplus(self.out1(h))).squeeze(-1)
        return torch.zeros(n_molecules, dtype=pos.dtype).scatter_add_(0, batch, atom_e)


def reference_energy(pos, batch, n_molecules):
    # A Lennard-Jones-like pair potential as the synthetic "DFT" label.
    same = (batch[:, None] == batch[None, :]) & ~torch.eye(len(pos), dtype=torch.bool)
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = (diff ** 2).sum(-1) + (~same).float()
    inv6 = (1.0 / r2) ** 3
    pair = torch.where(same, 0.1 * (inv6 ** 2 - inv6), torch.zeros_like(r2))
    return 0.5 * torch.zeros(n_molecules).index_add(0, batch, pair.sum(1))


def main():
    torch.manual_seed(3)
    g = torch.Generator().manual_seed(3)
    n_molecules, atoms = 4, 5
    batch = torch.arange(n_molecules).repeat_interleave(atoms)
    species = torch.randint(0, 4, (n_molecules * atoms,), generator=g)
    base = torch.randn(n_molecules * atoms, 3, generator=g) * 1.2
    model = SchNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    out = []
    for _ in range(6):
        pos = (base + 0.05 * torch.randn(base.shape, generator=g)).requires_grad_(True)
        e_ref = reference_energy(pos, batch, n_molecules)
        f_ref = -torch.autograd.grad(e_ref.sum(), pos)[0]
        energy = model(species, pos, batch, n_molecules)
        forces = -torch.autograd.grad(energy.sum(), pos, create_graph=True)[0]
        loss = F.mse_loss(energy, e_ref.detach()) + 10.0 * F.mse_loss(forces, f_ref)
        opt.zero_grad()
        loss.backward()
        opt.step()
        plateau.step(loss.item())
        out += [loss.item(), forces.abs().mean().item(), energy.sum().item()]
    out.append(opt.param_groups[0]["lr"])
    return out
