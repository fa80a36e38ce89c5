"""A categorical (Gumbel-softmax) VAE on binary patterns, with the random pieces such code leans on: F.gumbel_softmax
(soft and hard, straight-through) with an annealed temperature, a KL to the uniform prior from log_softmax,
Bernoulli-sampled binarised data, Dropout1d / FeatureAlphaDropout / RReLU in training mode, initialisers
(orthogonal_, trunc_normal_, kaiming_uniform_, xavier_normal_, sparse_), torch.randperm and multinomial without
replacement for minibatches, Categorical / RelaxedOneHotCategorical / OneHotCategorical draws, and in-place
samplers (bernoulli_, exponential_, geometric_, cauchy_, log_normal_, random_)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import distributions as D


class GumbelVAE(nn.Module):
    def __init__(self, n_in=16, n_latent=3, n_cat=4):
        super().__init__()
        self.n_latent, self.n_cat = n_latent, n_cat
        self.enc = nn.Sequential(nn.Linear(n_in, 32), nn.RReLU(0.1, 0.3), nn.Linear(32, n_latent * n_cat))
        self.dec = nn.Sequential(nn.Linear(n_latent * n_cat, 32), nn.ReLU(), nn.Linear(32, n_in))
        nn.init.orthogonal_(self.enc[0].weight, gain=nn.init.calculate_gain("leaky_relu", 0.2))
        nn.init.trunc_normal_(self.enc[2].weight, std=0.1, a=-0.2, b=0.2)
        nn.init.kaiming_uniform_(self.dec[0].weight, a=math.sqrt(5), nonlinearity="relu")
        nn.init.xavier_normal_(self.dec[2].weight, gain=0.8)
        nn.init.zeros_(self.dec[2].bias)

    def forward(self, x, tau, hard):
        logits = self.enc(x).view(-1, self.n_latent, self.n_cat)
        z = F.gumbel_softmax(logits, tau=tau, hard=hard, dim=-1)
        return self.dec(z.flatten(1)), logits


def main():
    torch.manual_seed(73)
    probs = torch.rand(4, 16)
    data = torch.bernoulli(probs[torch.randint(0, 4, (64,))])
    model = GumbelVAE()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    out = [data.sum().item(), model.enc[0].weight.norm().item(), model.enc[2].weight.abs().max().item() <= 0.2]
    for epoch in range(4):
        tau = max(0.5, math.exp(-0.3 * epoch))
        order = torch.randperm(64)
        for i in range(0, 64, 32):
            x = data[order[i:i + 32]]
            recon, logits = model(x, tau, hard=epoch >= 2)
            q = logits.log_softmax(-1)
            kl = (q.exp() * (q + math.log(model.n_cat))).sum((1, 2)).mean()
            loss = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / x.shape[0] + kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), kl.item()]
    pick = torch.multinomial(torch.ones(64), 8, replacement=False)
    out += pick.tolist()
    # Dropout variants in training mode.
    x = torch.randn(2, 4, 6)
    out += [nn.Dropout1d(0.5)(x).abs().sum().item(), nn.FeatureAlphaDropout(0.3)(x).sum().item(),
            F.rrelu(x, 0.1, 0.4, training=True).sum().item(), F.dropout2d(x.unsqueeze(-1), 0.4).abs().sum().item()]
    # Distribution draws.
    cat = D.Categorical(logits=torch.tensor([0.1, 0.5, -0.3, 1.2]))
    relaxed = D.RelaxedOneHotCategorical(torch.tensor(0.7), probs=torch.tensor([0.2, 0.3, 0.5]))
    onehot = D.OneHotCategorical(probs=torch.tensor([0.6, 0.1, 0.3]))
    out += cat.sample((6,)).tolist() + relaxed.rsample((2,)).flatten().tolist() + onehot.sample((3,)).flatten().tolist()
    out += [cat.entropy().item(), relaxed.log_prob(torch.tensor([0.1, 0.2, 0.7])).item()]
    # In-place samplers.
    t = torch.empty(5)
    out += t.bernoulli_(0.3).tolist() + t.exponential_(2.0).tolist() + t.geometric_(0.4).tolist()
    out += t.cauchy_(0.0, 0.5).tolist() + t.log_normal_(0.0, 0.25).tolist()
    out += torch.empty(5, dtype=torch.long).random_(0, 10).tolist() + torch.empty(3).uniform_(-1, 1).tolist()
    w = torch.empty(6, 5)
    nn.init.sparse_(w, sparsity=0.5, std=0.1)
    out += [(w == 0).sum().item(), w.sum().item()]
    return out
