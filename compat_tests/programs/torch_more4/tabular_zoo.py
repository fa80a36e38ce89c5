"""Tabular regression and classification with the less common pieces: quantile bucketing (torch.quantile,
bucketize, searchsorted with right=True), nan handling (nan_to_num, nanmean, nanmedian), embeddings with max_norm
(renormalised in place on lookup), PReLU, SELU with AlphaDropout, BatchNorm1d, a zoo of losses (Huber, KLDiv with
log_target, PoissonNLL, GaussianNLL, MarginRanking, CosineEmbedding, MultiLabelSoftMargin, HingeEmbedding), and
one short run of each of NAdam, RAdam, Adamax, ASGD, Rprop, Adadelta with CyclicLR / SequentialLR /
ChainedScheduler schedules."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TabularNet(nn.Module):
    def __init__(self, n_num=4, n_buckets=5, n_cat=7):
        super().__init__()
        self.bucket_embed = nn.Embedding(n_buckets * n_num, 4, max_norm=1.0)
        self.cat_embed = nn.Embedding(n_cat, 3)
        self.body = nn.Sequential(nn.Linear(n_num + 4 * n_num + 3, 24), nn.BatchNorm1d(24), nn.PReLU(),
                                  nn.Linear(24, 24), nn.SELU(), nn.AlphaDropout(0.1), nn.Linear(24, 3))

    def forward(self, num, buckets, cat):
        b = self.bucket_embed(buckets).flatten(1)
        return self.body(torch.cat([num, b, self.cat_embed(cat)], dim=1))


def make_data(n, generator):
    num = torch.randn(n, 4, generator=generator)
    num[torch.rand(n, 4, generator=generator) < 0.1] = float("nan")
    cat = torch.randint(0, 7, (n,), generator=generator)
    target = torch.stack([num[:, 0].nan_to_num(0.0) * 2 + cat.float() * 0.1, num[:, 1].nan_to_num(0.0).exp(),
                          (num[:, 2].nan_to_num(0.0) > 0).float()], 1)
    return num, cat, target


def main():
    torch.manual_seed(53)
    g = torch.Generator().manual_seed(53)
    num, cat, target = make_data(96, g)
    medians = num.nanmedian(dim=0).values
    means = num.nanmean(dim=0)
    filled = torch.where(num.isnan(), medians, num)
    edges = torch.quantile(filled, torch.tensor([0.2, 0.4, 0.6, 0.8]), dim=0).t().contiguous()
    buckets = torch.stack([torch.bucketize(filled[:, j], edges[j]) for j in range(4)], 1)
    right = torch.searchsorted(edges, filled.t().contiguous(), right=True).t()
    out = medians.tolist() + means.tolist() + edges.flatten().tolist() + [(buckets != right).sum().item()]
    buckets = buckets + torch.arange(4) * 5
    normed = (filled - filled.mean(0)) / filled.std(0)
    model = TabularNet()
    out.append(model.bucket_embed.weight.norm(dim=1).max().item() > 1.0)
    opt = torch.optim.NAdam(model.parameters(), lr=1e-2, momentum_decay=4e-3)
    for _ in range(5):
        pred = model(normed, buckets, cat)
        loss = (F.huber_loss(pred[:, 0], target[:, 0], delta=0.5)
                + F.poisson_nll_loss(pred[:, 1], target[:, 1], log_input=True)
                + F.binary_cross_entropy_with_logits(pred[:, 2], target[:, 2]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(model.bucket_embed.weight.norm(dim=1).max().item() <= 1.0 + 1e-6)
    out += model.bucket_embed.weight[buckets[0]].norm(dim=1).tolist()
    # Losses of the zoo on fixed inputs.
    a, b = torch.randn(6, 5, generator=g), torch.randn(6, 5, generator=g)
    sign = torch.tensor([1, -1, 1, 1, -1, -1])
    log_p, log_q = a.log_softmax(1), b.log_softmax(1)
    out += [F.kl_div(log_p, log_q, reduction="batchmean", log_target=True).item(),
            F.gaussian_nll_loss(a, b, torch.rand(6, 5, generator=g) + 0.1, full=True).item(),
            F.margin_ranking_loss(a[:, 0], b[:, 0], sign.float(), margin=0.2).item(),
            F.cosine_embedding_loss(a, b, sign, margin=0.1).item(),
            F.multilabel_soft_margin_loss(a, (b > 0).float()).item(),
            F.hinge_embedding_loss(a.abs(), (b > 0).float() * 2 - 1, margin=1.5).item(),
            F.soft_margin_loss(a, (b > 0).float() * 2 - 1).item(),
            F.multi_margin_loss(a, sign.clamp(min=0) * 3, p=2, margin=0.5).item()]
    # A few steps of other optimizers with schedules.
    makers = [
        (lambda p: torch.optim.RAdam(p, lr=1e-2, decoupled_weight_decay=True, weight_decay=0.01),
         lambda o: torch.optim.lr_scheduler.SequentialLR(o, [torch.optim.lr_scheduler.LinearLR(o, 0.1, 1.0, 2),
                                                             torch.optim.lr_scheduler.ExponentialLR(o, 0.9)], [2])),
        (lambda p: torch.optim.Adamax(p, lr=1e-2),
         lambda o: torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(o, 0.5, 2),
                                                              torch.optim.lr_scheduler.ExponentialLR(o, 0.95)])),
        (lambda p: torch.optim.SGD(p, lr=1e-2, momentum=0.9),
         lambda o: torch.optim.lr_scheduler.CyclicLR(o, 1e-3, 1e-2, step_size_up=2, mode="triangular2")),
        (lambda p: torch.optim.ASGD(p, lr=1e-2, t0=2), lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [1, 3])),
        (lambda p: torch.optim.Rprop(p, lr=1e-3), lambda o: torch.optim.lr_scheduler.PolynomialLR(o, 5, 2.0)),
        (lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.8), lambda o: torch.optim.lr_scheduler.StepLR(o, 2)),
    ]
    for make_opt, make_sched in makers:
        torch.manual_seed(1)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        o = make_opt(net.parameters())
        s = make_sched(o)
        for _ in range(4):
            loss = F.mse_loss(net(normed), target[:, :1])
            o.zero_grad()
            loss.backward()
            o.step()
            s.step()
        out += [loss.item(), o.param_groups[0]["lr"]]
    return out
