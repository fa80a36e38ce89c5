"""Koopman operator learning, as in DMD tutorials and Koopman-autoencoder repositories: exact dynamic mode
decomposition of a damped oscillator with torch.linalg.svd / torch.linalg.pinv / torch.linalg.lstsq, eigenvalue
magnitudes from torch.linalg.eigvals, a polynomial lifting with torch.vander, a Kronecker-product observable
(torch.kron), reconstruction through torch.linalg.multi_dot and torch.tensordot, signal energy via torch.trapezoid
and torch.cumulative_trapezoid, phase with torch.atan2, then a Koopman autoencoder whose latent step is one linear
map, trained over multi-step rollouts with torch.optim.RMSprop(centered=True) and torch.optim.lr_scheduler.LinearLR,
and the encoder's Jacobian from torch.autograd.grad(is_grads_batched=True)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def oscillator(steps=40, dt=0.1):
    t = torch.arange(steps) * dt
    x = torch.stack([torch.exp(-0.1 * t) * torch.cos(2 * t), torch.exp(-0.1 * t) * torch.sin(2 * t)], dim=1)
    return t, x


class KoopmanAE(nn.Module):
    def __init__(self, n=2, latent=4):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(n, 16), nn.Softsign(), nn.Linear(16, latent))
        self.decode = nn.Sequential(nn.Linear(latent, 16), nn.Softsign(), nn.Linear(16, n))
        self.K = nn.Linear(latent, latent, bias=False)
        nn.init.eye_(self.K.weight)

    def rollout(self, x0, steps):
        z = self.encode(x0)
        zs = [z]
        for _ in range(steps):
            z = self.K(z)
            zs.append(z)
        return torch.stack(zs, dim=1)


def main():
    torch.manual_seed(0)
    t, x = oscillator()
    X, Y = x[:-1].T, x[1:].T
    lifted = torch.cat([torch.vander(x[:, 0], N=3, increasing=True), x[:, 1:] * x[:, :1]], dim=1)
    U, S, Vh = torch.linalg.svd(X, full_matrices=False)
    A_tilde = torch.linalg.multi_dot([U.T, Y, Vh.T, torch.diag(1 / S)])
    A_pinv = Y @ torch.linalg.pinv(X)
    A_lstsq = torch.linalg.lstsq(X.T, Y.T).solution.T
    eig = torch.linalg.eigvals(A_tilde)
    magnitude, _ = torch.sort(eig.abs())
    freq = torch.atan2(eig.imag, eig.real).abs().max() / 0.1
    recon = torch.tensordot(A_pinv, X, dims=([1], [0]))
    energy = torch.trapezoid(x.pow(2).sum(1), t)
    running = torch.cumulative_trapezoid(x.pow(2).sum(1), dx=0.1)
    out = [*magnitude.tolist(), freq.item(), (A_pinv - A_lstsq).abs().max().item() < 1e-4,
           F.mse_loss(recon, Y).item(), energy.item(), running[9].item(), lifted.sum().item(),
           torch.linalg.matrix_rank(lifted).item(),
           torch.kron(torch.eye(2), A_tilde).sum().item(), torch.kron(A_tilde, torch.ones(1, 2))[1, 2].item()]

    model = KoopmanAE()
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9, centered=True, momentum=0.1)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, end_factor=1.0, total_iters=3)
    horizon = 4
    windows = x.unfold(0, horizon + 1, 3).permute(0, 2, 1)  # (n_windows, horizon + 1, 2)
    for _step in range(6):
        z = model.rollout(windows[:, 0], horizon)
        pred = model.decode(z)
        z_true = model.encode(windows)
        loss = F.mse_loss(pred, windows) + 0.1 * F.mse_loss(z, z_true) + F.mse_loss(model.decode(z_true), windows)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    with torch.no_grad():
        koop_eig = torch.linalg.eigvals(model.K.weight).abs().sort().values
    out += koop_eig.tolist()
    # Jacobian of the encoder at one state, one row per latent unit, with batched vector-Jacobian products
    state = x[5].clone().requires_grad_(True)
    jac, = torch.autograd.grad(model.encode(state), state, torch.eye(4), is_grads_batched=True)
    out += [*jac.flatten().tolist(), torch.linalg.svdvals(jac).min().item()]
    return out
