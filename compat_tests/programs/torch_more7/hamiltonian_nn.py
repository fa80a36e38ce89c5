"""Hamiltonian neural networks (Greydanus et al.'s hnn repository, in miniature): a scalar H(q, p) network whose
symplectic gradient comes from torch.autograd.grad(H.sum(), x, create_graph=True) split with torch.chunk and
recombined as (dH/dp, -dH/dq) by torch.cat, trained to match the time derivatives of a mass-spring system alongside a
baseline MLP that predicts them directly (nn.Tanh, MSE, Adam with weight decay), then trajectories integrated by a
hand-written RK4 solver and a leapfrog (Stormer-Verlet) integrator that both call the learned field under
torch.enable_grad() with detached requires_grad_ states, the energy drift along them, and a
torch.autograd.functional.jacobian of the learned field whose trace vanishes (a Hamiltonian field is
divergence-free), and the learned energy conserved along its own RK4 trajectory."""

import math

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, n_out))
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight)

    def forward(self, x):
        return self.net(x)


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.h = MLP(1)

    def forward(self, x):
        with torch.enable_grad():
            if not x.requires_grad:
                x = x.detach().requires_grad_(True)
            energy = self.h(x).sum()
            dh = torch.autograd.grad(energy, x, create_graph=True)[0]
        dh_dq, dh_dp = torch.chunk(dh, 2, dim=1)
        return torch.cat([dh_dp, -dh_dq], dim=1)


def spring_data(g, n):
    q = torch.rand(n, 1, generator=g) * 2 - 1
    p = torch.rand(n, 1, generator=g) * 2 - 1
    x = torch.cat([q, p], 1)
    dx = torch.cat([p, -q], 1) + 0.05 * torch.randn(n, 2, generator=g)
    return x, dx


def rk4(field, x, dt, n_steps):
    xs = [x]
    for _ in range(n_steps):
        k1 = field(x)
        k2 = field(x + dt / 2 * k1)
        k3 = field(x + dt / 2 * k2)
        k4 = field(x + dt * k3)
        x = (x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)).detach()
        xs.append(x)
    return torch.stack(xs)


def leapfrog(field, x, dt, n_steps):
    q, p = x[:, :1], x[:, 1:]
    for _ in range(n_steps):
        p = p + dt / 2 * field(torch.cat([q, p], 1))[:, 1:]
        q = q + dt * field(torch.cat([q, p], 1))[:, :1]
        p = p + dt / 2 * field(torch.cat([q, p], 1))[:, 1:]
    return torch.cat([q, p], 1).detach()


def main():
    torch.manual_seed(1)
    g = torch.Generator().manual_seed(1)
    x, dx = spring_data(g, 64)
    hnn, base = HNN(), MLP(2)
    out = []
    for model in (hnn, base):
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
        for _ in range(15):
            loss = (model(x) - dx).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        out.append(loss.item())
    x0 = torch.tensor([[1.0, 0.0], [0.0, 0.5]])
    with torch.no_grad():
        traj_h = rk4(hnn, x0, 0.1, 20)
        traj_b = rk4(base, x0, 0.1, 20)
        end = leapfrog(hnn, x0, 0.1, 20)

    def true_energy(t):
        return 0.5 * (t ** 2).sum(-1)

    out += [true_energy(traj_h[-1]).mean().item(), true_energy(traj_b[-1]).mean().item(),
            traj_h[-1, 0, 0].item(), end.sum().item(), math.cos(2.0)]
    learned_h = hnn.h(traj_h.reshape(-1, 2)).detach().view(21, 2)
    out += [learned_h.mean().item(), (learned_h.max(0).values - learned_h.min(0).values).max().item() < 1e-4]
    jac = torch.autograd.functional.jacobian(lambda s: hnn(s.unsqueeze(0)).squeeze(0), torch.tensor([0.3, -0.2]))
    out += [abs((jac[0, 0] + jac[1, 1]).item()) < 1e-5, jac[0, 1].item(), jac[1, 0].item()]
    return out
