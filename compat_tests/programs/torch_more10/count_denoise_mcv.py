"""Count-data denoising with molecular cross-validation, as in single-cell RNA-seq repositories (MCV / Noise2Self
style): synthetic counts drawn with torch.distributions.NegativeBinomial from a low-rank rate matrix, each count
split into two independent halves by binomial thinning (torch.binomial(counts, 0.5)), a softplus-rate autoencoder
trained on one half with torch.distributions.Poisson(rate).log_prob and scored on the other, the bottleneck width
chosen by the held-out loss, a Binomial(total_count, logits) log-likelihood of the split, and torch.poisson
resampling for a parametric bootstrap; Adam with a StepLR schedule."""

import torch
import torch.distributions as D
import torch.nn as nn
import torch.nn.functional as F


class CountAE(nn.Module):
    def __init__(self, genes, width):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(genes, 16), nn.Softplus(), nn.Linear(16, width))
        self.decoder = nn.Linear(width, genes)

    def forward(self, counts):
        size = counts.sum(1, keepdim=True) + 1
        z = self.encoder(torch.log1p(counts / size * 10))
        return F.softplus(self.decoder(z)) * size / 10 + 1e-4


def main():
    torch.manual_seed(0)
    cells, genes = 32, 12
    factors = torch.rand(cells, 2) @ torch.rand(2, genes) * 6
    counts = D.NegativeBinomial(total_count=torch.tensor(4.0), logits=torch.log(factors / 4)).sample()
    half = torch.binomial(counts, torch.full_like(counts, 0.5))
    other = counts - half
    out = [counts.sum().item(), half.sum().item(), counts.max().item(),
           D.Binomial(total_count=counts, probs=torch.tensor(0.5)).log_prob(half).sum().item()]
    for width in (1, 3):
        model = CountAE(genes, width)
        opt = torch.optim.Adam(model.parameters(), lr=0.02)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
        for _step in range(8):
            loss = -D.Poisson(model(half)).log_prob(half).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            out.append(loss.item())
        with torch.no_grad():
            rate = model(half)
            out.append(F.poisson_nll_loss(rate, other, log_input=False, full=True).item())
            boot = torch.poisson(rate.expand(3, -1, -1))
            out += [boot.sum((1, 2)).tolist()[0], boot.var(0).mean().item()]
    return out
