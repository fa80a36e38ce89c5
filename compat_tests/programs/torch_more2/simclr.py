"""SimCLR-style contrastive learning: two augmentations made by tensor ops (random crops by roll, flips with a
per-sample mask, Gaussian noise, brightness jitter), a small conv encoder with a projection head, the NT-Xent
loss (F.normalize, the cosine similarity matrix, masked_fill of the diagonal, cross_entropy on the positive
index), LARS-like per-layer trust ratios by hand, then a linear probe on frozen features."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def augment(x, generator):
    n = x.shape[0]
    flip = torch.rand(n, generator=generator) < 0.5
    x = torch.where(flip.view(n, 1, 1, 1), x.flip(-1), x)
    shifts = torch.randint(-2, 3, (2,), generator=generator)
    x = torch.roll(x, shifts=(int(shifts[0]), int(shifts[1])), dims=(2, 3))
    brightness = 1 + 0.4 * (torch.rand(n, 1, 1, 1, generator=generator) - 0.5)
    x = (x * brightness).clamp(0, 1)
    return x + 0.05 * torch.randn(x.shape, generator=generator)


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.shape[0]
    sim = z @ z.T / temperature
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets), (sim.argmax(1) == targets).float().mean()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16),
                                      nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.projector = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        h = self.features(x)
        return h, self.projector(h)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    labels = torch.arange(64) % 4
    yy, xx = torch.meshgrid(torch.arange(10.0), torch.arange(10.0), indexing="ij")
    patterns = torch.stack([torch.sin(xx / 2), torch.cos(yy / 2), torch.sin((xx + yy) / 3), (xx - yy).abs() / 9])
    images = ((patterns[labels] + 1) / 2).unsqueeze(1) + 0.1 * torch.rand(64, 1, 10, 10, generator=g)
    model = Encoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    out = []
    for _epoch in range(3):
        for batch in images.split(16):
            _, z1 = model(augment(batch, g))
            _, z2 = model(augment(batch, g))
            loss, acc = nt_xent(z1, z2)
            opt.zero_grad()
            loss.backward()
            with torch.no_grad():  # LARS-style trust ratio on weight matrices
                for p in model.parameters():
                    if p.ndim > 1:
                        ratio = p.norm() / (p.grad.norm() + 1e-8)
                        p.grad.mul_(torch.clamp(0.1 * ratio, max=1.0))
            opt.step()
            out += [loss.item(), acc.item()]
    model.eval()
    with torch.no_grad():
        feats, _ = model(images)
    probe = nn.Linear(16, 4)
    probe_opt = torch.optim.LBFGS(probe.parameters(), lr=0.5, max_iter=10)

    def closure():
        probe_opt.zero_grad()
        loss = F.cross_entropy(probe(feats), labels)
        loss.backward()
        return loss

    for _ in range(2):
        out.append(probe_opt.step(closure).item())
    out.append((probe(feats).argmax(1) == labels).float().mean().item())
    cos = F.cosine_similarity(feats[:8, None], feats[None, :8], dim=-1)
    out += cos.flatten().tolist()
    out += [model.features[1].running_mean.sum().item(), model.features[5].running_var.sum().item()]
    return out
