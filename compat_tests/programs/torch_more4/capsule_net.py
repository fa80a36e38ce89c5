"""A capsule network with dynamic routing (Sabour et al., as in the common PyTorch re-implementations): a conv
stem, primary capsules reshaped from a strided convolution, the squash non-linearity, prediction vectors from a
learned weight tensor by broadcasting matmul, three routing iterations (softmax of the logits over output
capsules, weighted sums by einsum, agreement added in place of a detached copy), the margin loss with relu
squared, a reconstruction decoder fed the capsule masked by one_hot of the longest, and Adam with ExponentialLR."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def squash(s, dim=-1, eps=1e-8):
    sq = (s ** 2).sum(dim=dim, keepdim=True)
    return sq / (1 + sq) * s / torch.sqrt(sq + eps)


class CapsNet(nn.Module):
    def __init__(self, n_classes=3, in_caps_dim=4, out_caps_dim=6, routing=3):
        super().__init__()
        self.stem = nn.Conv2d(1, 16, 3)
        self.primary = nn.Conv2d(16, 4 * in_caps_dim, 3, stride=2)
        self.in_caps_dim, self.routing = in_caps_dim, routing
        n_in = 4 * 3 * 3
        self.W = nn.Parameter(0.05 * torch.randn(1, n_in, n_classes, out_caps_dim, in_caps_dim))
        self.decoder = nn.Sequential(nn.Linear(n_classes * out_caps_dim, 32), nn.ReLU(), nn.Linear(32, 100),
                                     nn.Sigmoid())

    def forward(self, x, y=None):
        h = F.relu(self.stem(x))
        u = self.primary(h)  # (B, 4 * d, 3, 3)
        b = u.shape[0]
        u = u.view(b, 4, self.in_caps_dim, 3, 3).permute(0, 1, 3, 4, 2).reshape(b, -1, self.in_caps_dim)
        u = squash(u)
        u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)  # (B, n_in, n_out, d_out)
        logits = torch.zeros(u_hat.shape[:3])
        for i in range(self.routing):
            c = logits.softmax(dim=2)
            v = squash(torch.einsum("bio,biod->bod", c, u_hat if i == self.routing - 1 else u_hat.detach()))
            if i < self.routing - 1:
                logits = logits + torch.einsum("biod,bod->bio", u_hat.detach(), v)
        lengths = v.norm(dim=-1)
        chosen = lengths.argmax(1) if y is None else y
        mask = F.one_hot(chosen, v.shape[1]).unsqueeze(-1).to(v.dtype)
        recon = self.decoder((v * mask).flatten(1))
        return lengths, recon, c


def margin_loss(lengths, y, m_pos=0.9, m_neg=0.1, lam=0.5):
    t = F.one_hot(y, lengths.shape[1]).float()
    loss = t * F.relu(m_pos - lengths) ** 2 + lam * (1 - t) * F.relu(lengths - m_neg) ** 2
    return loss.sum(1).mean()


def main():
    torch.manual_seed(59)
    g = torch.Generator().manual_seed(59)
    y = torch.randint(0, 3, (24,), generator=g)
    x = 0.1 * torch.rand(24, 1, 10, 10, generator=g)
    x[y == 0, :, 2:8, 4:6] += 0.9
    x[y == 1, :, 4:6, 2:8] += 0.9
    x[y == 2, :, 2:8, 2:8] += torch.eye(6) * 0.9
    model = CapsNet()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    out = []
    for _ in range(8):
        lengths, recon, _c = model(x, y)
        loss = margin_loss(lengths, y) + 0.0005 * F.mse_loss(recon, x.flatten(1), reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), (lengths.argmax(1) == y).float().mean().item()]
    with torch.no_grad():
        lengths, recon, c = model(x[:4])
    out += lengths.flatten().tolist() + recon[0, :10].tolist() + [c.sum(2).mean().item(), str(tuple(c.shape))]
    out.append(model.W.grad.abs().sum().item())
    return out
