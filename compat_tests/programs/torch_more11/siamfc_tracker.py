"""A SiamFC-style single-object tracker, as in popular siamfc-pytorch repositories: a shared backbone with
nn.InstanceNorm2d(affine=True, track_running_stats=True) embeds an exemplar and a search image, their cross-correlation
runs as one F.conv2d with groups=batch, a balanced logistic loss uses a disk label map from torch.meshgrid, an
im2col cross-check uses F.unfold with torch.baddbmm, the response is upsampled with F.interpolate(mode="bicubic",
align_corners=True), penalised with a cosine window from torch.hann_window / torch.outer, and the peak is located
with torch.unravel_index; scale search with torch.take / index_copy_ / masked_scatter, trained with SGD + Nesterov
under a MultiStepLR schedule."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, c, 3), nn.InstanceNorm2d(c, affine=True, track_running_stats=True),
                                 nn.Hardtanh(-2.0, 2.0), nn.Conv2d(c, c, 3))

    def forward(self, x):
        return self.net(x)


def xcorr(z, x):
    n, c, h, w = x.shape
    response = F.conv2d(x.reshape(1, n * c, h, w), z, groups=n)
    return response.reshape(n, 1, response.shape[-2], response.shape[-1])


def xcorr_unfold(z, x):
    n, c, kh, kw = z.shape
    cols = F.unfold(x, (kh, kw))  # (n, c*kh*kw, L)
    bias = torch.zeros(n, 1, cols.shape[-1])
    return torch.baddbmm(bias, z.reshape(n, 1, -1), cols, beta=1.0, alpha=1.0)


def labels(size, radius=1.5):
    ys, xs = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    center = (size - 1) / 2
    dist = torch.sqrt((ys - center) ** 2 + (xs - center) ** 2)
    return (dist <= radius).float()


def make_pair(g, n=4):
    exemplar = torch.randn(n, 1, 7, 7, generator=g)
    search = 0.3 * torch.randn(n, 1, 13, 13, generator=g)
    search[:, :, 3:10, 3:10] += exemplar
    return exemplar, search


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(9)
    backbone = Backbone()
    adjust = nn.BatchNorm2d(1)
    params = list(backbone.parameters()) + list(adjust.parameters())
    opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.3)
    exemplar, search = make_pair(g)
    out = []
    for _step in range(5):
        z, x = backbone(exemplar), backbone(search)
        response = adjust(xcorr(z, x))
        target = labels(response.shape[-1]).expand_as(response)
        pos = target.sum() / target.numel()
        weight = torch.where(target > 0, 0.5 / pos, 0.5 / (1 - pos)) / target.numel()
        loss = F.binary_cross_entropy_with_logits(response, target, weight=weight, reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    backbone.eval()
    with torch.no_grad():
        z, x = backbone(exemplar), backbone(search)
        direct = xcorr(z, x)
        im2col = xcorr_unfold(z, x).reshape_as(direct)
        up = F.interpolate(direct, scale_factor=3, mode="bicubic", align_corners=True)
        window = torch.outer(torch.hann_window(up.shape[-1], periodic=False),
                             torch.hann_window(up.shape[-1], periodic=False))
        score = torch.sigmoid(up) * 0.8 + 0.2 * window
        flat_peak = score.flatten(1).argmax(1)
        rows, cols = torch.unravel_index(flat_peak, up.shape[-2:])
        # scale search: pick the best of three scale scores per sample
        scale_scores = torch.stack([score.amax((1, 2, 3)) * s for s in (0.95, 1.0, 0.97)], dim=1)
        best = torch.take(scale_scores, scale_scores.argmax(1) + torch.arange(4) * 3)
        table = torch.zeros(6, 4).index_copy_(0, torch.tensor([1, 4]), scale_scores[:2, :].repeat(1, 2)[:, :4])
        marked = torch.zeros(4, 3).masked_scatter(scale_scores > scale_scores.mean(), torch.arange(12.0))
    out += [(direct - im2col).abs().max().item() < 1e-4, *rows.tolist(), *cols.tolist(), best.sum().item(),
            table.sum().item(), marked.sum().item(), backbone.net[1].running_var.mean().item(),
            backbone.net[1].running_mean.mean().item(), up.mean().item()]
    return out
