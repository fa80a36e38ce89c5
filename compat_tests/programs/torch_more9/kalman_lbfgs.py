"""A linear-Gaussian state-space model fitted by maximum likelihood (as in Kalman-filter-in-PyTorch blog posts and
pyro/pykalman-style code): a Kalman filter written with torch.linalg (cholesky, cholesky_solve, solve_triangular,
slogdet, inv_ex), the per-step innovation log-likelihood from MultivariateNormal(scale_tril=...), covariances
parameterised by a lower-triangular factor (torch.tril, diag_embed of exp), continuous-time dynamics discretised
with torch.linalg.matrix_exp (checked against a Taylor series from torch.linalg.matrix_power), an RTS smoother
backward pass, LBFGS with a closure and strong-Wolfe line search (kept short: the likelihood is ill-conditioned,
and longer runs amplify float32 round-off), then a few Adam steps with a StepLR schedule."""

import torch
import torch.nn as nn
from torch.distributions import MultivariateNormal


class StateSpace(nn.Module):
    def __init__(self, n_state=2, n_obs=1):
        super().__init__()
        self.A_c = nn.Parameter(torch.tensor([[0.0, 1.0], [-1.0, -0.2]]) + 0.1)
        self.H = nn.Parameter(torch.tensor([[1.0, 0.0]]))
        self.q_raw = nn.Parameter(torch.zeros(n_state, n_state))
        self.r_log = nn.Parameter(torch.zeros(n_obs))
        self.dt = 0.3

    def matrices(self):
        F = torch.linalg.matrix_exp(self.A_c * self.dt)
        L = torch.tril(self.q_raw, -1) + torch.diag_embed(torch.exp(torch.diagonal(self.q_raw) - 2.0))
        Q = L @ L.mT + 1e-4 * torch.eye(L.shape[0])
        R = torch.diag(torch.exp(self.r_log - 1.0))
        return F, Q, R

    def filter(self, ys):
        F, Q, R = self.matrices()
        m = torch.zeros(F.shape[0])
        P = torch.eye(F.shape[0])
        loglik = 0.0
        means, covs, preds = [], [], []
        for y in ys:
            m_pred, P_pred = F @ m, F @ P @ F.T + Q
            S = self.H @ P_pred @ self.H.T + R
            L_S = torch.linalg.cholesky(S)
            innovation = y - self.H @ m_pred
            loglik = loglik + MultivariateNormal(torch.zeros_like(y), scale_tril=L_S).log_prob(innovation)
            K = torch.cholesky_solve(self.H @ P_pred, L_S).T
            m = m_pred + K @ innovation
            I_KH = torch.eye(F.shape[0]) - K @ self.H
            P = I_KH @ P_pred @ I_KH.T + K @ R @ K.T
            means.append(m)
            covs.append(P)
            preds.append((m_pred, P_pred))
        return loglik, means, covs, preds

    def smooth(self, ys):
        F, _, _ = self.matrices()
        _, means, covs, preds = self.filter(ys)
        ms, Ps = means[-1], covs[-1]
        smoothed = [ms]
        for k in range(len(ys) - 2, -1, -1):
            m_pred, P_pred = preds[k + 1]
            G = torch.linalg.solve(P_pred, F @ covs[k]).T
            ms = means[k] + G @ (ms - m_pred)
            Ps = covs[k] + G @ (Ps - P_pred) @ G.T
            smoothed.append(ms)
        return torch.stack(smoothed[::-1]), Ps


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    t = torch.arange(20) * 0.3
    ys = (torch.cos(t) * torch.exp(-0.1 * t) + 0.1 * torch.randn(20, generator=g)).unsqueeze(1)
    model = StateSpace()
    out = []
    with torch.no_grad():
        F, Q, R = model.matrices()
        Ad = model.A_c * model.dt
        taylor = torch.eye(2) + Ad + Ad @ Ad / 2 + torch.linalg.matrix_power(Ad, 3) / 6
        sign, logabsdet = torch.linalg.slogdet(F)
        inv, info = torch.linalg.inv_ex(F)
        L = torch.linalg.cholesky(Q + torch.eye(2))
        x = torch.linalg.solve_triangular(L, torch.ones(2, 1), upper=False)
        out += [sign.item(), logabsdet.item(), (inv @ F - torch.eye(2)).abs().max().item(), info.item(),
                x.sum().item(), F.sum().item(), (taylor - F).abs().max().item()]
    opt = torch.optim.LBFGS(model.parameters(), lr=0.2, max_iter=3, history_size=3, line_search_fn="strong_wolfe")
    for _ in range(1):
        def closure():
            opt.zero_grad()
            loss = -model.filter(ys)[0]
            loss.backward()
            return loss
        out.append(opt.step(closure).item())
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(4):
        loss = -model.filter(ys)[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out.append(loss.item())
    with torch.no_grad():
        smoothed, P0 = model.smooth(ys)
        out += [smoothed.abs().sum().item(), torch.trace(P0).item(), (smoothed[:, 0] - ys[:, 0]).pow(2).mean().item()]
    out += [p.detach().abs().sum().item() for p in model.parameters()]
    return out
