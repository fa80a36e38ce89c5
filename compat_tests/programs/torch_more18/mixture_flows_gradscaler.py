"""Probabilistic-modelling recipes from distribution tutorials: a 2-d Gaussian mixture (MixtureSameFamily over
Independent Normals) fitted by maximum likelihood, its sampling, mean/variance and the log-density of held-out
points; a log-normal built as a TransformedDistribution (Affine then Exp) and checked against LogNormal; a
variational posterior trained by rsample reparameterization with an analytic kl_divergence; log_prob / entropy /
mean of Categorical, Bernoulli, Beta, Gamma and Dirichlet with seeded sampling; and mixed precision on CPU:
torch.autocast(bfloat16) with torch.amp.GradScaler (unscale_, clip_grad_norm_, a skipped step on an inf
gradient, the scale's growth and backoff, the scaler's state_dict)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import distributions as D


def main():
    torch.manual_seed(0)
    out = []
    # data from three clusters
    centers = torch.tensor([[-2.0, 0.0], [1.5, 1.5], [0.5, -2.0]])
    data = torch.cat([c + 0.4 * torch.randn(30, 2) for c in centers])
    logits = torch.zeros(3, requires_grad=True)
    locs = torch.randn(3, 2).requires_grad_()
    log_scales = torch.zeros(3, 2, requires_grad=True)
    opt = torch.optim.Adam([logits, locs, log_scales], lr=0.1)

    def mixture():
        comp = D.Independent(D.Normal(locs, log_scales.exp()), 1)
        return D.MixtureSameFamily(D.Categorical(logits=logits), comp)

    for _ in range(15):
        nll = -mixture().log_prob(data).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        out.append(nll.item())
    gmm = mixture()
    out += [str(gmm.batch_shape), str(gmm.event_shape), *gmm.mean.tolist(), *gmm.variance.tolist()]
    out += gmm.log_prob(torch.tensor([[0.0, 0.0], [1.5, 1.4]])).tolist()
    torch.manual_seed(1)
    draws = gmm.sample((6,))
    out += draws.flatten().tolist()
    out += gmm.mixture_distribution.probs.tolist()

    # a log-normal two ways
    base = D.Normal(torch.tensor([0.2, -0.5]), torch.tensor([0.8, 0.3]))
    flow = D.TransformedDistribution(base, [D.transforms.AffineTransform(loc=1.0, scale=0.5),
                                            D.transforms.ExpTransform()])
    ref = D.LogNormal(1.0 + 0.5 * base.loc, 0.5 * base.scale)
    pts = torch.tensor([[0.5, 2.0], [3.0, 1.2]])
    out += flow.log_prob(pts).flatten().tolist() + ref.log_prob(pts).flatten().tolist()
    torch.manual_seed(2)
    s = flow.rsample((3,))
    out += s.flatten().tolist() + [str(flow.event_shape), str(flow.batch_shape)]

    # variational posterior for a Gaussian mean, by the reparameterization trick
    torch.manual_seed(3)
    obs = 1.3 + 0.5 * torch.randn(20)
    mu = torch.zeros(1, requires_grad=True)
    log_sigma = torch.zeros(1, requires_grad=True)
    vopt = torch.optim.SGD([mu, log_sigma], lr=0.05)
    prior = D.Normal(0.0, 2.0)
    for _ in range(8):
        q = D.Normal(mu, log_sigma.exp())
        z = q.rsample((16,))
        lik = D.Normal(z, 0.5).log_prob(obs).sum(-1).mean()
        elbo = lik - D.kl_divergence(q, prior).sum()
        vopt.zero_grad()
        (-elbo / obs.numel()).backward()
        vopt.step()
        out += [elbo.item(), mu.item(), log_sigma.item()]

    torch.manual_seed(4)
    for dist in [D.Categorical(logits=torch.tensor([0.5, -1.0, 2.0])), D.Bernoulli(probs=torch.tensor([0.2, 0.9])),
                 D.Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.5])),
                 D.Gamma(torch.tensor([2.0, 0.7]), torch.tensor([1.5, 3.0])),
                 D.Dirichlet(torch.tensor([1.0, 2.0, 0.5]))]:
        sample = dist.sample((4,))
        out += sample.flatten().tolist() + dist.log_prob(sample).flatten().tolist()
        means = [m if math.isfinite(m) else f"mean {m}" for m in dist.mean.flatten().tolist()]  # Categorical's: nan
        out += dist.entropy().flatten().tolist() + means + [repr(dist)]
    out.append(D.kl_divergence(D.Beta(2.0, 3.0), D.Beta(1.5, 1.5)).item())
    out.append(D.kl_divergence(D.Dirichlet(torch.tensor([1.0, 2.0])), D.Dirichlet(torch.tensor([2.0, 2.0]))).item())

    # mixed precision with a gradient scaler on CPU
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    mopt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5,
                                  growth_interval=2)
    xb, yb = torch.randn(16, 6), torch.randint(0, 2, (16,))
    for i in range(6):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits_b = model(xb)
            loss = F.cross_entropy(logits_b.float(), yb)
        mopt.zero_grad()
        scaler.scale(loss).backward()
        if i == 3:
            model[0].weight.grad[0, 0] = float("inf")
        scaler.unscale_(mopt)
        norm = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        scaler.step(mopt)
        scaler.update()
        # the skipped step's norm is inf: shown as text (the suite's numbers must be finite)
        shown = norm.item() if math.isfinite(norm.item()) else f"norm {norm.item()}"
        out += [str(logits_b.dtype), loss.item(), scaler.get_scale(), shown]
    out.append(",".join(sorted(scaler.state_dict())))
    out.append(scaler.state_dict()["_growth_tracker"])
    return out


if __name__ == "__main__":
    print(main())
