"""Density modelling with torch.distributions, as in probabilistic-ML course notebooks: a 2-D Gaussian mixture
(MixtureSameFamily of Categorical logits over Independent(Normal, 1)) fitted by maximum likelihood with Adam, its
mean / variance / samples under a seed; a bounded quantity modelled as a logit-normal TransformedDistribution with a
chain of transforms (AffineTransform -> SigmoidTransform -> AffineTransform onto an interval) and a ComposeTransform
/ ExpTransform log-normal checked against LogNormal; a variational posterior fitted by rsample under
torch.manual_seed with an analytic kl_divergence between Independent Normals."""

import torch
import torch.distributions as D
from torch.distributions import transforms as T


def mixture(logits, loc, log_scale):
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Independent(D.Normal(loc, log_scale.exp()), 1))


def main():
    torch.manual_seed(0)
    centres = torch.tensor([[-2.0, 0.0], [1.5, 1.0], [0.5, -2.0]])
    data = centres[torch.randint(0, 3, (60,))] + 0.4 * torch.randn(60, 2)
    logits = torch.zeros(3, requires_grad=True)
    loc = torch.randn(3, 2).requires_grad_()
    log_scale = torch.zeros(3, 2, requires_grad=True)
    opt = torch.optim.Adam([logits, loc, log_scale], lr=0.1)
    out = []
    for _ in range(10):
        nll = -mixture(logits, loc, log_scale).log_prob(data).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        out.append(nll.item())
    gmm = mixture(logits.detach(), loc.detach(), log_scale.detach())
    out += [str(gmm.batch_shape), str(gmm.event_shape)] + gmm.mean.tolist() + gmm.variance.tolist()
    torch.manual_seed(1)
    samples = gmm.sample((4,))
    out += samples.flatten().tolist() + gmm.log_prob(samples).tolist()
    resp = gmm.component_distribution.log_prob(data[:5].unsqueeze(1)) + gmm.mixture_distribution.logits
    out += resp.softmax(-1).flatten().tolist()

    low, high = 2.0, 5.0
    base = D.Normal(torch.tensor(0.3), torch.tensor(0.8))
    bounded = D.TransformedDistribution(base, [T.AffineTransform(0.5, 1.5), T.SigmoidTransform(),
                                               T.AffineTransform(low, high - low)])
    torch.manual_seed(2)
    draws = bounded.rsample((6,))
    out += draws.tolist() + bounded.log_prob(draws).tolist()
    out += [bool(((draws > low) & (draws < high)).all()), str(bounded.support), str(type(bounded.support).__name__)]
    chain = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.ExpTransform()])
    log_normal = D.TransformedDistribution(D.Normal(0.1, 0.5), chain)
    reference = D.LogNormal(0.2, 1.0)
    points = torch.tensor([0.5, 1.0, 2.5])
    out += (log_normal.log_prob(points) - reference.log_prob(points)).abs().tolist()
    out += chain.inv(points).tolist() + chain.log_abs_det_jacobian(chain.inv(points), points).tolist()

    prior = D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1)
    w_true = torch.tensor([1.0, -0.5, 0.25])
    xs = torch.randn(20, 3)
    ys = xs @ w_true + 0.1 * torch.randn(20)
    mu = torch.zeros(3, requires_grad=True)
    rho = torch.full((3,), -2.0, requires_grad=True)
    opt = torch.optim.Adam([mu, rho], lr=0.05)
    torch.manual_seed(3)
    for _ in range(12):
        q = D.Independent(D.Normal(mu, torch.nn.functional.softplus(rho)), 1)
        w = q.rsample((8,))
        log_lik = D.Normal(w @ xs.T, 0.1).log_prob(ys).sum(-1).mean()
        kl = D.kl_divergence(q, prior)
        loss = kl - log_lik
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), kl.item()]
    out += mu.tolist() + q.entropy().reshape(1).tolist() + [str(q.event_shape), str(q.base_dist.batch_shape)]
    return out
