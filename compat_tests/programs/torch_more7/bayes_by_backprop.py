"""Bayesian neural networks (the "Weight Uncertainty in Neural Networks" / Bayes-by-backprop re-implementations):
BayesLinear layers with mu / rho parameters initialised by uniform_, sigma = log1p(exp(rho)), weights sampled as
mu + sigma * eps with eps from torch.empty(...).normal_(), a scale-mixture prior whose log-density is a logsumexp of
two torch.distributions.Normal log_probs (torch.stack, log of the mixture weights), the variational log-posterior,
and a closed-form KL via torch.distributions.kl_divergence(Normal, Normal) for a second layer type; the ELBO with
the complexity cost spread over minibatches (a per-batch weight), several Monte-Carlo samples per step, predictive
means and the predictive entropy with Categorical(probs).entropy(), then MC dropout (F.dropout(training=True) kept
on in eval) and the mutual information between predictions and weights."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal, kl_divergence

SIGMA2 = math.exp(-4)


class ScaleMixturePrior:
    def __init__(self, pi=0.5, sigma1=1.0, sigma2=SIGMA2):
        self.pi = pi
        self.n1, self.n2 = Normal(0.0, sigma1), Normal(0.0, sigma2)

    def log_prob(self, w):
        lp = torch.stack([self.n1.log_prob(w) + math.log(self.pi), self.n2.log_prob(w) + math.log(1 - self.pi)])
        return torch.logsumexp(lp, 0).sum()


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, closed_form_kl=False):
        super().__init__()
        self.weight_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-0.2, 0.2))
        self.weight_rho = nn.Parameter(torch.empty(n_out, n_in).uniform_(-5, -4))
        self.bias_mu = nn.Parameter(torch.empty(n_out).uniform_(-0.2, 0.2))
        self.bias_rho = nn.Parameter(torch.empty(n_out).uniform_(-5, -4))
        self.closed_form_kl = closed_form_kl
        self.prior = ScaleMixturePrior()
        self.kl = 0.0

    def forward(self, x, sample=True):
        if not sample:
            return F.linear(x, self.weight_mu, self.bias_mu)
        w_sigma = torch.log1p(torch.exp(self.weight_rho))
        b_sigma = torch.log1p(torch.exp(self.bias_rho))
        w = self.weight_mu + w_sigma * torch.empty(w_sigma.size()).normal_()
        b = self.bias_mu + b_sigma * torch.empty(b_sigma.size()).normal_()
        if self.closed_form_kl:
            prior = Normal(torch.zeros_like(w), torch.ones_like(w))
            self.kl = kl_divergence(Normal(self.weight_mu, w_sigma), prior).sum() + \
                kl_divergence(Normal(self.bias_mu, b_sigma), Normal(0.0, 1.0)).sum()
        else:
            log_q = Normal(self.weight_mu, w_sigma).log_prob(w).sum() + Normal(self.bias_mu, b_sigma).log_prob(b).sum()
            self.kl = log_q - self.prior.log_prob(w) - self.prior.log_prob(b)
        return F.linear(x, w, b)


class BayesNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = BayesLinear(2, 16)
        self.l2 = BayesLinear(16, 3, closed_form_kl=True)

    def forward(self, x, sample=True):
        return self.l2(F.relu(self.l1(x, sample)), sample)

    def kl(self):
        return self.l1.kl + self.l2.kl


class DropoutNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(2, 16), nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(F.dropout(F.relu(self.fc1(x)), p=0.3, training=True))


def main():
    torch.manual_seed(4)
    angles = torch.linspace(0, 2 * math.pi, 48)
    y = (torch.arange(48) % 3)
    radius = 1.0 + y.float()
    x = torch.stack([radius * torch.cos(angles), radius * torch.sin(angles)], 1) + 0.1 * torch.randn(48, 2)
    net = BayesNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    n_batches, samples = 3, 2
    out = []
    for _ in range(4):
        for i, batch in enumerate(torch.arange(48).chunk(n_batches)):
            kl_weight = 2 ** (n_batches - i - 1) / (2 ** n_batches - 1)  # Blundell et al.'s minibatch weighting
            nll, kl = 0.0, 0.0
            for _ in range(samples):
                nll = nll + F.cross_entropy(net(x[batch]), y[batch], reduction="sum")
                kl = kl + net.kl()
            loss = (kl_weight * kl + nll) / samples / len(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
        out += [loss.item(), kl.item()]
    with torch.no_grad():
        probs = torch.stack([F.softmax(net(x), -1) for _ in range(8)])
        mean = probs.mean(0)
        out += [Categorical(probs=mean).entropy().mean().item(), (mean.argmax(1) == y).float().mean().item(),
                F.softmax(net(x, sample=False), -1).max(1).values.mean().item()]

    mc = DropoutNet()
    opt = torch.optim.SGD(mc.parameters(), lr=0.1, momentum=0.9)
    for _ in range(6):
        loss = F.cross_entropy(mc(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    mc.eval()
    with torch.no_grad():
        probs = torch.stack([F.softmax(mc(x), -1) for _ in range(10)])
        total = Categorical(probs=probs.mean(0)).entropy()
        expected = Categorical(probs=probs).entropy().mean(0)
    out += [total.mean().item(), (total - expected).mean().item()]
    return out
