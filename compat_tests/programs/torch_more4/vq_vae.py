"""A VQ-VAE on small synthetic images (the VQ-VAE tutorials): a strided conv encoder, a codebook looked up by
squared distances (sum of squares minus 2 * matmul) and argmin, the straight-through estimator
(z + (q - z).detach()), codebook and commitment losses, exponential-moving-average codebook updates with one_hot
counts, Laplace smoothing and in-place buffer updates, codebook perplexity; a ConvTranspose2d decoder, Adam, and
codes re-used to decode."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMAQuantizer(nn.Module):
    def __init__(self, n_codes=16, dim=8, decay=0.9, eps=1e-5):
        super().__init__()
        self.decay, self.eps = decay, eps
        embed = torch.randn(n_codes, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(n_codes))
        self.register_buffer("embed_avg", embed.clone())

    def forward(self, z):  # z: (B, C, H, W)
        flat = z.permute(0, 2, 3, 1).reshape(-1, z.shape[1])
        dist = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.embed.t() + self.embed.pow(2).sum(1)
        codes = dist.argmin(1)
        onehot = F.one_hot(codes, self.embed.shape[0]).type(flat.dtype)
        q = F.embedding(codes, self.embed).view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
        if self.training:
            with torch.no_grad():
                self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
                self.embed_avg.mul_(self.decay).add_(onehot.t() @ flat, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                size = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
                self.embed.copy_(self.embed_avg / size.unsqueeze(1))
        commitment = F.mse_loss(z, q.detach())
        avg = onehot.mean(0)
        perplexity = torch.exp(-(avg * torch.log(avg + 1e-10)).sum())
        return z + (q - z).detach(), commitment, perplexity, codes.view(z.shape[0], z.shape[2], z.shape[3])


class VQVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 16, 4, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(16, 8, 3, padding=1))
        self.quantizer = EMAQuantizer()
        self.decoder = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                     nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1))

    def forward(self, x):
        q, commitment, perplexity, codes = self.quantizer(self.encoder(x))
        return self.decoder(q), commitment, perplexity, codes


def shapes(n, generator):
    imgs = torch.zeros(n, 1, 12, 12)
    corners = torch.randint(0, 7, (n, 2), generator=generator)
    for i, (r, c) in enumerate(corners.tolist()):
        imgs[i, 0, r:r + 5, c:c + 5] = 1.0
    return imgs + 0.05 * torch.randn(n, 1, 12, 12, generator=generator)


def main():
    torch.manual_seed(47)
    g = torch.Generator().manual_seed(47)
    data = shapes(32, g)
    model = VQVAE()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    out = []
    for _ in range(10):
        recon, commitment, perplexity, codes = model(data)
        loss = F.mse_loss(recon, data) + 0.25 * commitment
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), perplexity.item()]
    out += model.quantizer.cluster_size.tolist()
    model.eval()
    with torch.no_grad():
        recon, _, perplexity, codes = model(data[:4])
        again = model.decoder(F.embedding(codes, model.quantizer.embed).permute(0, 3, 1, 2))
        out += [(again - recon).abs().max().item(), perplexity.item(), str(tuple(codes.shape))]
        out += codes[0].flatten().tolist() + recon[0, 0, 5].tolist()
    out += [model.encoder[0].weight.grad.norm().item()]
    return out
