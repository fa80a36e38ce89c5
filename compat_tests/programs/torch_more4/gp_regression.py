"""Exact Gaussian-process regression and Bayesian linear regression (the GPyTorch-free tutorials): an RBF
kernel from cdist, the Cholesky factor with jitter, alpha by cholesky_solve, the negative log marginal
likelihood with the log-determinant from the factor's diagonal, optimised with Adam on log-parameters; the
predictive mean and variance through linalg.solve_triangular; checks against logdet / slogdet / linalg.solve;
and a conjugate Bayesian linear regression posterior with cholesky_inverse and MultivariateNormal."""

import math

import torch


def rbf(a, b, log_ls, log_sf):
    d2 = torch.cdist(a / log_ls.exp(), b / log_ls.exp()).pow(2)
    return (2 * log_sf).exp() * torch.exp(-0.5 * d2)


def main():
    torch.manual_seed(3)
    x = torch.linspace(-3, 3, 40, dtype=torch.float64).unsqueeze(1)
    y = torch.sin(2 * x).squeeze(1) + 0.1 * torch.randn(40, dtype=torch.float64)
    log_ls = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    log_sf = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    log_sn = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
    out = []
    n = x.shape[0]
    for _ in range(15):
        K = rbf(x, x, log_ls, log_sf) + ((2 * log_sn).exp() + 1e-6) * torch.eye(n, dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L)
        nll = 0.5 * (y.unsqueeze(1) * alpha).sum() + L.diagonal().log().sum() + 0.5 * n * math.log(2 * math.pi)
        opt.zero_grad()
        nll.backward()
        opt.step()
        out.append(nll.item())
    out += [log_ls.item(), log_sf.item(), log_sn.item()]
    with torch.no_grad():
        K = rbf(x, x, log_ls, log_sf) + (2 * log_sn).exp() * torch.eye(n, dtype=torch.float64)
        L = torch.linalg.cholesky(K)
        out += [(2 * L.diagonal().log().sum() - torch.logdet(K)).abs().item(),
                torch.linalg.slogdet(K).logabsdet.item()]
        xs = torch.linspace(-3.5, 3.5, 7, dtype=torch.float64).unsqueeze(1)
        Ks = rbf(x, xs, log_ls, log_sf)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        w = torch.linalg.solve_triangular(L, y.unsqueeze(1), upper=False)
        mean = (v.T @ w).squeeze(1)
        var = (2 * log_sf).exp() - v.pow(2).sum(0)
        out += mean.tolist() + var.tolist()
        out.append((mean - Ks.T @ torch.linalg.solve(K, y)).abs().max().item())
        u, _ = torch.triangular_solve(Ks, L, upper=False)
        out.append((u - v).abs().max().item())
    # Bayesian linear regression with a Gaussian prior: posterior N(m, S), S^-1 = I/a + X^T X / s2.
    X = torch.cat([torch.ones(30, 1), torch.randn(30, 2)], dim=1)
    w_true = torch.tensor([0.5, -1.0, 2.0])
    t = X @ w_true + 0.3 * torch.randn(30)
    precision = torch.eye(3) / 4.0 + X.T @ X / 0.09
    L = torch.linalg.cholesky(precision)
    S = torch.cholesky_inverse(L)
    m = S @ X.T @ t / 0.09
    post = torch.distributions.MultivariateNormal(m, precision_matrix=precision)
    out += m.tolist() + S.diagonal().tolist() + [post.log_prob(w_true).item(), post.entropy().item()]
    out.append((S - torch.linalg.inv(precision)).abs().max().item() < 1e-5)
    torch.manual_seed(7)
    out += post.sample((2,)).flatten().tolist()
    return out
