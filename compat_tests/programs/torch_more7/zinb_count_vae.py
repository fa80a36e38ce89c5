"""An scVI-style variational autoencoder for over-dispersed count data (single-cell expression-like matrices):
library sizes from counts.sum(1), log1p inputs, a Normal posterior with rsample and the KL from
torch.distributions.kl_divergence against a standard Normal prior, a decoder whose softmax gene frequencies times
the library give the means, a per-gene inverse dispersion theta = exp(param), the NegativeBinomial(total_count=theta,
logits=log(mu) - log(theta)) log-likelihood and its mean / variance checked against mu and mu + mu^2 / theta, a
zero-inflated version mixing a point mass at zero through F.softplus / torch.where, a weak HalfCauchy(5) prior on
theta (and HalfCauchy's rsample / cdf), a Poisson baseline, warm-up of the KL weight over steps, Adam with eps=0.01 as
in scVI, and the dispersion learned by the end."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import HalfCauchy, NegativeBinomial, Normal, Poisson, kl_divergence


def zinb_log_prob(x, mu, theta, pi_logits, eps=1e-8):
    nb = NegativeBinomial(total_count=theta, logits=(mu + eps).log() - (theta + eps).log())
    log_nb = nb.log_prob(x)
    softplus_pi = F.softplus(-pi_logits)
    case_zero = F.softplus(-pi_logits + log_nb) - softplus_pi
    case_non_zero = -pi_logits - softplus_pi + log_nb
    return torch.where(x < eps, case_zero, case_non_zero)


class CountVAE(nn.Module):
    def __init__(self, n_genes, n_latent=4, hidden=32, zero_inflated=True):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_genes, hidden), nn.BatchNorm1d(hidden, momentum=0.01, eps=1e-3),
                                     nn.ReLU())
        self.mean, self.log_var = nn.Linear(hidden, n_latent), nn.Linear(hidden, n_latent)
        self.decoder = nn.Sequential(nn.Linear(n_latent, hidden), nn.ReLU())
        self.scale = nn.Linear(hidden, n_genes)
        self.dropout = nn.Linear(hidden, n_genes) if zero_inflated else None
        self.px_r = nn.Parameter(torch.randn(n_genes))

    def forward(self, x):
        library = x.sum(1, keepdim=True)
        h = self.encoder(torch.log1p(x))
        q = Normal(self.mean(h), torch.exp(0.5 * self.log_var(h)) + 1e-4)
        z = q.rsample()
        d = self.decoder(z)
        mu = library * torch.softmax(self.scale(d), dim=-1)
        theta = torch.exp(self.px_r)
        if self.dropout is not None:
            log_lik = zinb_log_prob(x, mu, theta, self.dropout(d)).sum(-1)
        else:
            log_lik = NegativeBinomial(total_count=theta, logits=mu.log() - theta.log()).log_prob(x).sum(-1)
        kl = kl_divergence(q, Normal(torch.zeros_like(z), torch.ones_like(z))).sum(-1)
        return log_lik, kl, mu, theta


def main():
    torch.manual_seed(13)
    g = torch.Generator().manual_seed(13)
    n_cells, n_genes = 48, 12
    programs = torch.rand(3, n_genes, generator=g) * 4
    cell_type = torch.arange(n_cells) % 3
    rate = programs[cell_type] * (0.5 + torch.rand(n_cells, 1, generator=g))
    noise = torch.distributions.Gamma(2.0, 2.0).sample((n_cells, n_genes))
    counts = torch.floor(rate * noise + torch.rand(n_cells, n_genes, generator=g))
    counts = counts * (torch.rand(n_cells, n_genes, generator=g) > 0.2)
    out = [counts.sum().item(), (counts == 0).float().mean().item()]

    for zero_inflated in (True, False):
        torch.manual_seed(13)
        model = CountVAE(n_genes, zero_inflated=zero_inflated)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, eps=0.01)
        for step in range(8):
            log_lik, kl, mu, theta = model(counts)
            kl_weight = min(1.0, step / 4)
            loss = (-log_lik + kl_weight * kl).mean() - 0.01 * HalfCauchy(5.0).log_prob(theta).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), kl.mean().item()]
        out.append(theta.mean().item())
    nb = NegativeBinomial(total_count=theta, logits=mu.log() - theta.log())
    out += [(nb.mean - mu).abs().max().item() < 1e-3, (nb.variance / (mu + mu ** 2 / theta)).mean().item(),
            nb.mode.sum().item(), Poisson(mu.detach()).log_prob(counts).sum(-1).mean().item()]
    scale_prior = HalfCauchy(torch.tensor([1.0, 5.0]))
    out += [scale_prior.rsample((3,)).sum().item(), scale_prior.cdf(torch.tensor([1.0, 1.0])).sum().item()]
    return out
