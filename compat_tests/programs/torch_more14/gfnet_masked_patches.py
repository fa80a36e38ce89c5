"""A Global Filter Network (GFNet) block trained as a masked-patch autoencoder, in the style of the GFNet and MAE
reference repositories: token maps go through torch.fft.rfft2, are multiplied by a learnable complex filter stored
as a real (..., 2) parameter and viewed with torch.view_as_complex, and return through torch.fft.irfft2 with s=;
images are cut into patches with F.unfold, a random subset is masked by argsort of seeded noise, and
reconstructions are stitched back with F.fold (overlap counts from folding ones). The filter's spectrum is
inspected with fftshift, abs / angle, torch.polar and view_as_real."""

import torch
import torch.nn as nn
import torch.nn.functional as F

PATCH = 2
SIZE = 8


class GlobalFilter(nn.Module):
    def __init__(self, dim, h, w):
        super().__init__()
        self.complex_weight = nn.Parameter(torch.randn(h, w // 2 + 1, dim, 2) * 0.02)

    def forward(self, x):  # x: (B, H, W, C)
        spec = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        spec = spec * torch.view_as_complex(self.complex_weight)
        return torch.fft.irfft2(spec, s=x.shape[1:3], dim=(1, 2), norm="ortho")


class MaskedGF(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        grid = SIZE // PATCH
        self.embed = nn.Linear(PATCH * PATCH, dim)
        self.mask_token = nn.Parameter(torch.zeros(dim))
        self.norm = nn.LayerNorm(dim)
        self.filter = GlobalFilter(dim, grid, grid)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.out = nn.Linear(dim, PATCH * PATCH)

    def forward(self, patches, keep):  # patches: (B, L, P*P); keep: (B, L) bool
        tokens = self.embed(patches)
        tokens = torch.where(keep.unsqueeze(-1), tokens, self.mask_token.expand_as(tokens))
        b, length, dim = tokens.shape
        grid = int(length ** 0.5)
        x = tokens.view(b, grid, grid, dim)
        x = x + self.filter(self.norm(x))
        x = x + self.mlp(self.norm(x))
        return self.out(x.reshape(b, length, dim))


def main():
    torch.manual_seed(0)
    yy, xx = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
    phase = torch.rand(6, 1, 1, 1) * 6.28
    images = torch.sin(xx * 0.8 + phase) * torch.cos(yy * 0.5 - phase)
    patches = F.unfold(images, kernel_size=PATCH, stride=PATCH).transpose(1, 2)
    out = [str(tuple(patches.shape))]
    model = MaskedGF()
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.05)
    gen = torch.Generator().manual_seed(5)
    length = patches.shape[1]
    for _ in range(8):
        noise = torch.rand(patches.shape[0], length, generator=gen)
        keep_idx = noise.argsort(dim=1)[:, : length // 2]
        keep = torch.zeros(patches.shape[0], length, dtype=torch.bool).scatter_(1, keep_idx, True)
        recon = model(patches, keep)
        loss = ((recon - patches) ** 2).mean(-1)[~keep].mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(model.filter.complex_weight.grad.abs().sum().item())

    with torch.no_grad():
        recon = model(patches, torch.ones(patches.shape[0], length, dtype=torch.bool))
        overlap = F.unfold(images, kernel_size=3, stride=1, padding=1)
        counts = F.fold(torch.ones_like(overlap), output_size=(SIZE, SIZE), kernel_size=3, padding=1)
        averaged = F.fold(overlap, output_size=(SIZE, SIZE), kernel_size=3, padding=1) / counts
        stitched = F.fold(recon.transpose(1, 2), output_size=(SIZE, SIZE), kernel_size=PATCH, stride=PATCH)
    out += [str(tuple(stitched.shape)), (averaged - images).abs().max().item(), *counts[0, 0, 0, :3].tolist()]
    out += stitched[0, 0, :2].flatten().tolist() + [F.mse_loss(stitched, images).item()]

    weight = torch.view_as_complex(model.filter.complex_weight.detach())
    spectrum = torch.fft.fftshift(weight[..., 0], dim=0)
    out += [str(weight.dtype), str(spectrum.shape)] + spectrum.abs().flatten().tolist()[:6]
    out += spectrum.angle().flatten().tolist()[:6]
    rebuilt = torch.polar(spectrum.abs(), spectrum.angle())
    out += [(rebuilt - spectrum).abs().max().item() < 1e-6, str(torch.view_as_real(rebuilt).shape)]
    full = torch.fft.fft2(images[0, 0])
    shifted = torch.fft.fftshift(full)
    out += torch.fft.ifftshift(shifted).sub(full).abs().max().reshape(1).tolist()
    out += shifted.abs()[SIZE // 2].tolist() + torch.fft.fftfreq(SIZE, d=0.5).tolist()
    out += torch.fft.rfftfreq(SIZE).tolist()
    return out
