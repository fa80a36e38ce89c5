"""A Neural ODE and a continuous normalizing flow with hand-written fixed-step solvers (as in the torchdiffeq
examples and FFJORD-style notebooks, without torchdiffeq): an RK4 integrator over a time grid from torch.linspace
fitting a spiral trajectory (time-dependent dynamics from torch.cat with t.expand), the CNF's exact divergence from
per-row autograd.grad(create_graph=True) and from torch.func (vmap(jacrev(f)) and torch.vmap over
torch.func.functional_call), the Hutchinson trace estimator with Rademacher noise (torch.randint * 2 - 1), a
MultivariateNormal base log-density, and a Runge-Kutta-Fehlberg error estimate checked against RK4."""

import torch
import torch.nn as nn
from torch.distributions import MultivariateNormal
from torch.func import functional_call, jacrev, vmap


class ODEFunc(nn.Module):
    def __init__(self, dim=2, hidden=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Softplus(),
                                 nn.Linear(hidden, dim))

    def forward(self, t, y):
        return self.net(torch.cat([y, t.expand(*y.shape[:-1], 1)], dim=-1))


def rk4_step(f, t, y, h):
    k1 = f(t, y)
    k2 = f(t + h / 2, y + h / 2 * k1)
    k3 = f(t + h / 2, y + h / 2 * k2)
    k4 = f(t + h, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint_rk4(f, y0, ts, substeps=2):
    ys = [y0]
    y = y0
    for t0, t1 in zip(ts[:-1], ts[1:]):
        h = (t1 - t0) / substeps
        for i in range(substeps):
            y = rk4_step(f, t0 + i * h, y, h)
        ys.append(y)
    return torch.stack(ys)


def exact_divergence(f, t, z):
    with torch.enable_grad():
        z = z.requires_grad_(True)
        dz = f(t, z)
        div = sum(torch.autograd.grad(dz[:, i].sum(), z, create_graph=True)[0][:, i] for i in range(z.shape[1]))
    return dz, div


def hutchinson_divergence(f, t, z, eps):
    with torch.enable_grad():
        z = z.requires_grad_(True)
        dz = f(t, z)
        vjp = torch.autograd.grad(dz, z, eps, create_graph=True)[0]
    return dz, (vjp * eps).sum(1)


def cnf_log_prob(func, x, base, n_steps=4, eps=None):
    """Integrates [z, -log|det|] from t=1 back to t=0 with Euler steps of the augmented dynamics."""
    z, delta_logp = x, torch.zeros(x.shape[0])
    h = -1.0 / n_steps
    for k in range(n_steps):
        t = torch.tensor(1.0 + k * h)
        dz, div = exact_divergence(func, t, z) if eps is None else hutchinson_divergence(func, t, z, eps)
        z = z + h * dz
        delta_logp = delta_logp - h * div
    return base.log_prob(z) - delta_logp


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
    ts = torch.linspace(0.0, 1.0, 9)
    y0 = torch.tensor([[2.0, 0.0]])
    with torch.no_grad():
        true_y = odeint_rk4(lambda t, y: (y ** 3) @ true_A, y0, ts, substeps=4)
    func = ODEFunc()
    opt = torch.optim.RMSprop(func.parameters(), lr=1e-3)
    out = [true_y.abs().sum().item()]
    for _ in range(6):
        pred = odeint_rk4(func, y0, ts)
        loss = torch.mean(torch.abs(pred - true_y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    # Continuous normalizing flow on a two-moons-like cloud.
    theta = torch.rand(48, generator=g) * torch.pi
    x = torch.stack([torch.cos(theta), torch.sin(theta)], 1) + 0.05 * torch.randn(48, 2, generator=g)
    base = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2) * 0.5)
    cnf = ODEFunc(hidden=16)
    opt = torch.optim.Adam(cnf.parameters(), lr=5e-3)
    for step in range(4):
        eps = None if step % 2 == 0 else torch.randint(0, 2, x.shape, generator=g).float() * 2 - 1
        loss = -cnf_log_prob(cnf, x, base, eps=eps).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    # torch.func: the exact Jacobian trace per sample, two ways, against the autograd loop.
    t = torch.tensor(0.3)
    params = {k: v.detach() for k, v in cnf.named_parameters()}

    def single(z):
        return functional_call(cnf, params, (t, z.unsqueeze(0))).squeeze(0)

    jac = vmap(jacrev(single))(x[:6])
    _, div = exact_divergence(cnf, t, x[:6].clone())
    out += [torch.diagonal(jac, dim1=-2, dim2=-1).sum(-1).sub(div).abs().max().item(), jac.abs().sum().item()]
    batched = torch.vmap(single, in_dims=0)(x[:6])
    out.append(batched.sub(cnf(t, x[:6])).abs().max().item())

    # One RK45 (Fehlberg) step: the embedded error estimate.
    f = lambda s, y: -2.0 * y + torch.sin(s)  # noqa: E731
    y, h, s = torch.tensor([1.0]), 0.1, torch.tensor(0.0)
    k1 = f(s, y)
    k2 = f(s + h / 4, y + h * k1 / 4)
    k3 = f(s + 3 * h / 8, y + h * (3 * k1 + 9 * k2) / 32)
    k4 = f(s + 12 * h / 13, y + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197)
    k5 = f(s + h, y + h * (439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104))
    k6 = f(s + h / 2, y + h * (-8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40))
    y4 = y + h * (25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5)
    y5 = y + h * (16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55)
    out += [y5.item(), (y5 - y4).abs().item(), (y5 - rk4_step(f, s, y, h)).abs().item()]
    return out
