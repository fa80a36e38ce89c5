"""Set and point-cloud learning: Deep Sets (phi per element, masked sum and masked mean pooling over padded sets
with a lengths mask, rho on the pooled vector) and a small PointNet (a T-Net predicting a 3x3 transform added to
the identity, applied by torch.bmm, shared per-point MLPs as Conv1d with BatchNorm1d, global max pooling with
argmax "critical points", the feature-transform orthogonality regulariser), plus a point-cloud autoencoder trained
with a Chamfer distance from torch.cdist (min over each direction). No bias in front of a BatchNorm: its gradient
is zero up to round-off, which Adam would amplify into lr-sized steps of arbitrary sign."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class DeepSets(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 16))
        self.rho = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x, mask):
        h = self.phi(x.unsqueeze(-1)) * mask.unsqueeze(-1)
        summed = h.sum(dim=1)
        mean = summed / mask.sum(dim=1, keepdim=True).clamp(min=1)
        return self.rho(torch.cat([summed, mean], dim=-1)).squeeze(-1)


class TNet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.convs = nn.Sequential(nn.Conv1d(k, 16, 1, bias=False), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1),
                                   nn.ReLU())
        self.fc = nn.Linear(32, k * k)
        nn.init.zeros_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x):
        g = torch.max(self.convs(x), 2, keepdim=True)[0].view(-1, 32)
        return self.fc(g).view(-1, self.k, self.k) + torch.eye(self.k).unsqueeze(0)


class PointNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.stn = TNet(3)
        self.conv1 = nn.Sequential(nn.Conv1d(3, 16, 1, bias=False), nn.BatchNorm1d(16), nn.ReLU())
        self.fstn = TNet(16)
        self.conv2 = nn.Sequential(nn.Conv1d(16, 32, 1, bias=False), nn.BatchNorm1d(32), nn.ReLU(),
                                   nn.Conv1d(32, 64, 1, bias=False))
        self.cls = nn.Sequential(nn.Linear(64, 32, bias=False), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3),
                                 nn.Linear(32, n_classes))

    def forward(self, pts):
        x = pts.transpose(2, 1)
        trans = self.stn(x)
        x = torch.bmm(x.transpose(2, 1), trans).transpose(2, 1)
        x = self.conv1(x)
        trans_feat = self.fstn(x)
        x = torch.bmm(x.transpose(2, 1), trans_feat).transpose(2, 1)
        x = self.conv2(x)
        glob, critical = x.max(dim=2)
        return F.log_softmax(self.cls(glob), dim=1), trans_feat, critical


def feature_transform_regularizer(trans):
    eye = torch.eye(trans.size(1))[None, :, :]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - eye, dim=(1, 2)))


def chamfer(a, b):
    d = torch.cdist(a, b) ** 2
    return d.min(dim=2).values.mean() + d.min(dim=1).values.mean()


def main():
    torch.manual_seed(31)
    g = torch.Generator().manual_seed(31)
    out = []
    # Deep Sets: the sum of a padded set of digits.
    lengths = torch.randint(1, 8, (32,), generator=g)
    mask = (torch.arange(8)[None, :] < lengths[:, None]).float()
    sets = torch.randint(0, 10, (32, 8), generator=g).float() * mask
    target = sets.sum(1)
    ds = DeepSets()
    opt = torch.optim.Adam(ds.parameters(), lr=1e-2)
    for _ in range(8):
        loss = F.mse_loss(ds(sets / 10, mask), target / 10)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    perm = torch.randperm(8, generator=g)
    out.append((ds(sets / 10, mask) - ds(sets[:, perm] / 10, mask[:, perm])).abs().max().item())
    # PointNet: spheres against cubes.
    sphere = F.normalize(torch.randn(8, 32, 3, generator=g), dim=-1)
    cube = torch.rand(8, 32, 3, generator=g) * 2 - 1
    cube = cube / cube.abs().amax(dim=-1, keepdim=True)
    pts, labels = torch.cat([sphere, cube]), torch.tensor([0] * 8 + [1] * 8)
    net = PointNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999))
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(5):
        net.train()
        pred, trans_feat, _ = net(pts)
        loss = F.nll_loss(pred, labels) + 0.001 * feature_transform_regularizer(trans_feat)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out.append(loss.item())
    net.eval()
    with torch.no_grad():
        pred, _, critical = net(pts)
    out += [pred.exp().sum(1).mean().item(), float(critical.unique().numel()), *pred[:3].flatten().tolist()]
    # Point-cloud autoencoder with a Chamfer loss.
    decoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16 * 3))
    encoder = nn.Sequential(nn.Conv1d(3, 32, 1), nn.ReLU(), nn.Conv1d(32, 64, 1))
    params = list(encoder.parameters()) + list(decoder.parameters())
    opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True)
    for _ in range(6):
        code = encoder(sphere.transpose(1, 2)).amax(dim=2)
        recon = decoder(code).view(-1, 16, 3)
        loss = chamfer(recon, sphere)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    d = torch.cdist(sphere[:2], cube[:2], p=1.0)
    out += [d.sum().item(), torch.cdist(sphere[0], cube[0], p=float("inf")).mean().item()]
    return out
