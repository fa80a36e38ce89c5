"""Stochastic variational inference for a robust hierarchical regression, as in Pyro-free "VI from scratch" blog posts:
a Student-t likelihood (torch.distributions.StudentT) with HalfNormal / LogNormal / Laplace priors, a
LowRankMultivariateNormal guide sampled with rsample (reparameterisation) under torch.manual_seed, an ELBO from
log_prob / entropy, torch.distributions.kl_divergence between Gaussians, Gumbel / Weibull / Kumaraswamy /
ContinuousBernoulli log-densities for auxiliary checks, a block-diagonal covariance via torch.block_diag checked
with torch.linalg.cholesky_ex and torch.linalg.lu_factor / lu_solve, and a directional derivative through
torch.autograd.forward_ad dual numbers; optimised with AdamW(amsgrad=True) under StepLR."""

import torch
import torch.autograd.forward_ad as fwAD
import torch.distributions as D


def make_data(g, n=40, groups=3):
    group = torch.arange(n) % groups
    x = torch.randn(n, generator=g)
    offsets = torch.tensor([-1.0, 0.5, 1.5])
    noise = torch.randn(n, generator=g) * 0.3
    noise[::9] += 4.0  # outliers the Student-t tolerates
    return x, group, offsets[group] + 0.8 * x + noise


def unpack(theta):
    slope, log_scale, log_tau = theta[..., 0], theta[..., 1], theta[..., 2]
    return slope, log_scale, log_tau, theta[..., 3:]


def log_joint(theta, x, group, y):
    slope, log_scale, log_tau, offsets = unpack(theta)
    scale, tau = log_scale.exp(), log_tau.exp()
    prior = (D.Laplace(0.0, 1.0).log_prob(slope) + D.HalfNormal(1.0).log_prob(scale) + log_scale
             + D.LogNormal(0.0, 0.5).log_prob(tau) + log_tau
             + D.Normal(0.0, tau.unsqueeze(-1)).log_prob(offsets).sum(-1))
    mean = offsets[..., group] + slope.unsqueeze(-1) * x
    lik = D.StudentT(4.0, mean, scale.unsqueeze(-1)).log_prob(y).sum(-1)
    return prior + lik


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    x, group, y = make_data(g)
    dim = 6
    loc = torch.zeros(dim, requires_grad=True)
    cov_factor = torch.full((dim, 2), 0.1).requires_grad_()
    log_diag = torch.full((dim,), -1.0, requires_grad=True)
    opt = torch.optim.AdamW([loc, cov_factor, log_diag], lr=0.05, amsgrad=True, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    out = []
    for _step in range(8):
        guide = D.LowRankMultivariateNormal(loc, cov_factor, log_diag.exp())
        theta = guide.rsample((16,))
        elbo = (log_joint(theta, x, group, y) - guide.log_prob(theta)).mean()
        opt.zero_grad()
        (-elbo).backward()
        opt.step()
        sched.step()
        out += [elbo.item(), guide.entropy().item()]
    with torch.no_grad():
        guide = D.LowRankMultivariateNormal(loc, cov_factor, log_diag.exp())
        marginal = D.Normal(loc, guide.variance.sqrt())
        kl = D.kl_divergence(marginal, D.Normal(torch.zeros(dim), torch.ones(dim))).sum()
        out += [*loc.tolist(), kl.item(), guide.covariance_matrix.trace().item()]
        cov = torch.block_diag(guide.covariance_matrix[:3, :3], torch.eye(2) * 0.5, torch.tensor([[2.0]]))
        chol, info = torch.linalg.cholesky_ex(cov)
        lu, pivots = torch.linalg.lu_factor(cov)
        rhs = torch.arange(6.0).unsqueeze(1)
        solved = torch.linalg.lu_solve(lu, pivots, rhs)
        out += [chol.diagonal().prod().item(), int(info), (cov @ solved - rhs).abs().max().item() < 1e-4,
                solved.sum().item()]
        aux = torch.tensor([0.2, 0.7])
        out += [D.Gumbel(0.0, 2.0).log_prob(aux).sum().item(), D.Weibull(1.5, 2.0).log_prob(aux).sum().item(),
                D.Kumaraswamy(2.0, 3.0).log_prob(aux).sum().item(),
                D.ContinuousBernoulli(probs=torch.tensor([0.3, 0.5])).log_prob(aux).sum().item(),
                D.StudentT(3.0).entropy().item(), D.Laplace(0.0, 2.0).cdf(aux).sum().item()]
    # directional derivative of the log joint along the guide mean's first axis, forward mode
    tangent = torch.zeros(dim)
    tangent[0] = 1.0
    with fwAD.dual_level():
        dual = fwAD.make_dual(loc.detach(), tangent)
        value, directional = fwAD.unpack_dual(log_joint(dual, x, group, y))
    theta = loc.detach().requires_grad_(True)
    grad, = torch.autograd.grad(log_joint(theta, x, group, y), theta)
    out += [value.item(), directional.item(), (directional - grad[0]).abs().item() < 1e-3]
    return out
