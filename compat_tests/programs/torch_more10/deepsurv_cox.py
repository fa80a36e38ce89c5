"""Survival analysis with a DeepSurv-style network, as in popular pycox / DeepSurv ports and Stack Overflow answers
on the Cox partial likelihood: samples sorted by descending time with torch.argsort, the risk set's log-sum handled
by torch.logcumsumexp, censoring as an event mask, an nn.Bilinear interaction between treatment and covariates,
SELU + AlphaDropout layers, Harrell's concordance index from pairwise comparisons, the Breslow baseline hazard with
torch.cumsum and torch.cummax of a step function, a discrete-time (logistic hazard) head with
F.binary_cross_entropy_with_logits and torch.searchsorted bins, and torch.optim.NAdam with ReduceLROnPlateau."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DeepSurv(nn.Module):
    def __init__(self, n_cov=5, hidden=12, n_bins=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_cov, hidden), nn.SELU(), nn.AlphaDropout(0.1),
                                  nn.Linear(hidden, hidden), nn.SELU())
        self.treat = nn.Bilinear(1, hidden, 4)
        self.risk = nn.Linear(hidden + 4, 1, bias=False)
        self.hazard = nn.Linear(hidden + 4, n_bins)

    def forward(self, x, treatment):
        h = self.body(x)
        h = torch.cat([h, self.treat(treatment, h)], dim=-1)
        return self.risk(h).squeeze(-1), self.hazard(h)


def cox_ph_loss(log_risk, time, event):
    order = torch.argsort(time, descending=True)
    log_risk, event = log_risk[order], event[order]
    log_cum = torch.logcumsumexp(log_risk, dim=0)
    return -((log_risk - log_cum) * event).sum() / event.sum().clamp_min(1)


def concordance(log_risk, time, event):
    earlier = time.unsqueeze(1) < time.unsqueeze(0)
    comparable = earlier & event.bool().unsqueeze(1)
    higher = (log_risk.unsqueeze(1) > log_risk.unsqueeze(0)).float()
    ties = (log_risk.unsqueeze(1) == log_risk.unsqueeze(0)).float() * 0.5
    return ((higher + ties) * comparable).sum() / comparable.sum()


def make_data(g, n=64, n_cov=5):
    x = torch.randn(n, n_cov, generator=g)
    treatment = (torch.rand(n, 1, generator=g) > 0.5).float()
    true_risk = x[:, 0] - 0.5 * x[:, 1] + 0.8 * treatment[:, 0] * x[:, 2]
    time = torch.empty(n).exponential_(generator=g) * torch.exp(-true_risk)
    censor = torch.empty(n).exponential_(1.0, generator=g) * 2
    event = (time <= censor).float()
    return x, treatment, torch.minimum(time, censor), event


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(6)
    x, treatment, time, event = make_data(g)
    cuts = torch.quantile(time, torch.tensor([0.25, 0.5, 0.75]))
    bins = torch.searchsorted(cuts, time.contiguous())
    # logistic-hazard targets: survived (0) each bin before the last, event (1) or censored at its own bin
    bin_idx = torch.arange(4)
    at_risk = (bin_idx.unsqueeze(0) <= bins.unsqueeze(1)).float()
    hazard_target = ((bin_idx.unsqueeze(0) == bins.unsqueeze(1)) & event.bool().unsqueeze(1)).float()
    model = DeepSurv()
    opt = torch.optim.NAdam(model.parameters(), lr=0.01, momentum_decay=4e-3, decoupled_weight_decay=True,
                            weight_decay=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=0, threshold=0.05)
    out = [event.sum().item(), bins.tolist()[:6], cuts.tolist()[1]]
    out = [out[0], *out[1], out[2]]
    for _epoch in range(4):
        model.train()
        for idx in torch.randperm(64, generator=g).split(32):
            log_risk, hazard_logits = model(x[idx], treatment[idx])
            cox = cox_ph_loss(log_risk, time[idx], event[idx])
            disc = F.binary_cross_entropy_with_logits(hazard_logits, hazard_target[idx], weight=at_risk[idx],
                                                      reduction="sum") / at_risk[idx].sum()
            loss = cox + disc
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [cox.item(), disc.item()]
        model.eval()
        with torch.no_grad():
            log_risk, _ = model(x, treatment)
            val = cox_ph_loss(log_risk, time, event)
        plateau.step(val)
        out += [val.item(), concordance(log_risk, time, event).item(), opt.param_groups[0]["lr"]]
    # Breslow baseline cumulative hazard at the event times
    order = torch.argsort(time)
    risk_sorted = torch.exp(log_risk[order])
    at_risk_sum = torch.flip(torch.cumsum(torch.flip(risk_sorted, [0]), 0), [0])
    baseline = torch.cumsum(event[order] / at_risk_sum, 0)
    running_max, argmax_idx = torch.cummax(log_risk[order], dim=0)
    out += [baseline[-1].item(), baseline[31].item(), running_max[-1].item(), int(argmax_idx[-1]),
            torch.logcumsumexp(torch.tensor([[0.0, -float("inf"), 1.0]]), dim=1).tolist()[0][1]]
    return out
