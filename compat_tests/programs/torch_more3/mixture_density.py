"""A mixture density network (Bishop's inverse-sine problem): a network emitting mixture logits, means and log
standard deviations, the negative log-likelihood via torch.distributions.MixtureSameFamily(Categorical(logits),
Normal) checked against a hand-written logsumexp, then sampling (sample under a seed), the mixture's mean and
variance, cdf, and a 2-D MixtureSameFamily over Independent(Normal); also torch.quantile / nanquantile of the
samples, and an Adam loop with gradient clipping by norm."""

import math

import torch
import torch.nn as nn
from torch import distributions as D

K = 3


class MDN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 24), nn.Tanh(), nn.Linear(24, 24), nn.Tanh())
        self.pi = nn.Linear(24, K)
        self.mu = nn.Linear(24, K)
        self.log_sigma = nn.Linear(24, K)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.mu(h), self.log_sigma(h).clamp(-5, 3)


def mixture(logits, mu, log_sigma):
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(mu, log_sigma.exp()))


def manual_nll(logits, mu, log_sigma, y):
    log_pi = torch.log_softmax(logits, dim=-1)
    z = (y - mu) / log_sigma.exp()
    log_n = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.logsumexp(log_pi + log_n, dim=-1).mean()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(9)
    y = torch.rand(256, 1, generator=g) * 2 - 1
    x = y + 0.3 * torch.sin(2 * math.pi * y) + 0.05 * torch.randn(256, 1, generator=g)
    model = MDN()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    out = []
    for _epoch in range(4):
        for i in range(0, 256, 64):
            logits, mu, log_sigma = model(x[i:i + 64])
            dist = mixture(logits, mu, log_sigma)
            loss = -dist.log_prob(y[i:i + 64].squeeze(-1)).mean()
            manual = manual_nll(logits, mu, log_sigma, y[i:i + 64])
            opt.zero_grad()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), 2.0, norm_type=2.0)
            opt.step()
            out += [loss.item(), manual.item(), norm.item()]
    with torch.no_grad():
        grid = torch.linspace(-0.8, 0.8, 5).unsqueeze(1)
        dist = mixture(*model(grid))
        out += dist.mean.tolist() + dist.variance.tolist() + dist.cdf(torch.zeros(5)).tolist()
        out += [str(dist.batch_shape), str(dist.event_shape)]
        torch.manual_seed(4)
        samples = dist.sample((200,))
        out += samples[:3].flatten().tolist()
        out += torch.quantile(samples, torch.tensor([0.1, 0.5, 0.9]), dim=0).flatten().tolist()
        with_nan = samples[:, 0].clone()
        with_nan[::7] = float("nan")
        out += [torch.nanquantile(with_nan, 0.25).item(), torch.quantile(samples[:, 1], 0.5,
                                                                        interpolation="nearest").item()]
        mix2 = D.MixtureSameFamily(D.Categorical(probs=torch.tensor([0.3, 0.7])),
                                   D.Independent(D.Normal(torch.tensor([[0.0, 1.0], [2.0, -1.0]]),
                                                          torch.tensor([[1.0, 0.5], [0.3, 2.0]])), 1))
        pts = torch.tensor([[0.0, 0.0], [1.5, -0.5], [2.0, 1.0]])
        out += mix2.log_prob(pts).tolist() + mix2.mean.tolist() + mix2.variance.tolist()
        out += [str(mix2.event_shape)]
        torch.manual_seed(5)
        out += mix2.sample((4,)).flatten().tolist()
    return out
