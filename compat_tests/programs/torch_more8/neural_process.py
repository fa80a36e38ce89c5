"""A (latent) Neural Process for 1-D regression (as in the DeepMind neural-processes notebooks and their PyTorch
ports): GP-like sine tasks, a random context/target split from torch.randperm with a generator and index_select,
a deterministic path (mean-aggregated context encodings) and a latent path (Normal posterior over z from the context
and from the targets, sampled with rsample), a decoder giving a Normal with a bounded scale (0.1 + 0.9 *
F.softplus), the ELBO as Independent(Normal).log_prob minus torch.distributions.kl_divergence between posteriors,
Adam with amsgrad, clip_grad_norm_ returning the total norm; then predictive mean and std over several z draws."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, kl_divergence


class NeuralProcess(nn.Module):
    def __init__(self, hidden=24, latent=4):
        super().__init__()
        self.det_encoder = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.lat_encoder = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(1 + hidden + latent, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def latent(self, x, y):
        stats = self.lat_encoder(torch.cat([x, y], -1)).mean(1)
        mu, raw = stats.chunk(2, -1)
        return Normal(mu, 0.1 + 0.9 * torch.sigmoid(raw))

    def forward(self, x_ctx, y_ctx, x_tgt, y_tgt=None):
        r = self.det_encoder(torch.cat([x_ctx, y_ctx], -1)).mean(1, keepdim=True).expand(-1, x_tgt.shape[1], -1)
        prior = self.latent(x_ctx, y_ctx)
        posterior = self.latent(x_tgt, y_tgt) if y_tgt is not None else prior
        z = posterior.rsample().unsqueeze(1).expand(-1, x_tgt.shape[1], -1)
        mu, raw = self.decoder(torch.cat([x_tgt, r, z], -1)).chunk(2, -1)
        pred = Independent(Normal(mu, 0.1 + 0.9 * F.softplus(raw)), 1)
        if y_tgt is None:
            return pred, None
        kl = kl_divergence(posterior, prior).sum(-1)
        return pred, kl


def sample_tasks(n_tasks, n_points, generator):
    amp = torch.rand(n_tasks, 1, 1, generator=generator) * 1.5 + 0.5
    phase = torch.rand(n_tasks, 1, 1, generator=generator) * 3.0
    x = torch.rand(n_tasks, n_points, 1, generator=generator) * 6 - 3
    return x, amp * torch.sin(x + phase)


def main():
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(11)
    model = NeuralProcess()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, amsgrad=True)
    out = []
    for _ in range(8):
        x, y = sample_tasks(8, 20, g)
        perm = torch.randperm(20, generator=g)
        n_ctx = int(torch.randint(3, 10, (1,), generator=g))
        ctx = perm[:n_ctx]
        x_ctx, y_ctx = x.index_select(1, ctx), y.index_select(1, ctx)
        pred, kl = model(x_ctx, y_ctx, x, y)
        nll = -pred.log_prob(y).mean(-1)
        loss = (nll + kl / x.shape[1]).mean()
        opt.zero_grad()
        loss.backward()
        total_norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        out += [loss.item(), kl.mean().item(), total_norm.item(), n_ctx]
    model.eval()
    with torch.no_grad():
        x, y = sample_tasks(2, 12, g)
        x_grid = torch.linspace(-3, 3, 7).view(1, 7, 1).expand(2, -1, -1)
        means = torch.stack([model(x[:, :5], y[:, :5], x_grid)[0].mean for _ in range(4)])
        stddev = model(x[:, :5], y[:, :5], x_grid)[0].stddev
        out += [means.mean().item(), means.std(0).mean().item(), stddev.mean().item()]
    return out
