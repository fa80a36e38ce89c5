"""Single-image super-resolution in the ESPCN / SRCNN style on synthetic textures: low-resolution inputs by
F.interpolate (bicubic, area, bilinear with antialias), a sub-pixel convolution net with nn.PixelShuffle (and
PixelUnshuffle back), reflection and replicate padding, an L1 + SSIM loss where SSIM uses a separable Gaussian
window applied by a grouped conv2d, PSNR through log10, nn.Unfold / nn.Fold patch extraction and overlap-add
reconstruction averaged by a folded count, AdamW with a MultiplicativeLR schedule."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def gaussian_window(size=5, sigma=1.5, channels=1):
    coords = torch.arange(size, dtype=torch.float32) - size // 2
    g = torch.exp(-(coords ** 2) / (2 * sigma ** 2))
    g = g / g.sum()
    return (g[:, None] @ g[None, :]).expand(channels, 1, size, size).contiguous()


def ssim(a, b, window):
    c = a.shape[1]
    pad = window.shape[-1] // 2
    mu_a = F.conv2d(F.pad(a, (pad,) * 4, mode="reflect"), window, groups=c)
    mu_b = F.conv2d(F.pad(b, (pad,) * 4, mode="reflect"), window, groups=c)
    sa = F.conv2d(F.pad(a * a, (pad,) * 4, mode="reflect"), window, groups=c) - mu_a ** 2
    sb = F.conv2d(F.pad(b * b, (pad,) * 4, mode="reflect"), window, groups=c) - mu_b ** 2
    sab = F.conv2d(F.pad(a * b, (pad,) * 4, mode="reflect"), window, groups=c) - mu_a * mu_b
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    return (((2 * mu_a * mu_b + c1) * (2 * sab + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (sa + sb + c2))).mean()


class ESPCN(nn.Module):
    def __init__(self, scale=2, channels=1):
        super().__init__()
        self.body = nn.Sequential(nn.ReplicationPad2d(2), nn.Conv2d(channels, 16, 5), nn.Tanh(),
                                  nn.ReflectionPad2d(1), nn.Conv2d(16, 8, 3), nn.Tanh(),
                                  nn.Conv2d(8, channels * scale ** 2, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        up = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        return up + self.shuffle(self.body(x))


def textures(n, generator):
    yy, xx = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
    freq = torch.rand(n, 2, 1, 1, generator=generator) * 8 + 2
    phase = torch.rand(n, 1, 1, 1, generator=generator) * math.pi
    img = 0.5 + 0.25 * torch.sin(freq[:, :1] * xx + phase) + 0.25 * torch.cos(freq[:, 1:] * yy)
    return img.clamp(0, 1)


def main():
    torch.manual_seed(61)
    g = torch.Generator().manual_seed(61)
    hr = textures(12, g)
    lr_bicubic = F.interpolate(hr, scale_factor=0.5, mode="bicubic", align_corners=False)
    lr_area = F.interpolate(hr, size=(8, 8), mode="area")
    lr_aa = F.interpolate(hr, size=(8, 8), mode="bilinear", antialias=True, align_corners=False)
    out = [lr_bicubic.sum().item(), (lr_area - lr_aa).abs().max().item(), lr_aa[0, 0, 3].tolist()[0]]
    unshuffled = F.pixel_unshuffle(hr, 2)
    out += [str(tuple(unshuffled.shape)), (F.pixel_shuffle(unshuffled, 2) - hr).abs().max().item()]
    window = gaussian_window()
    model = ESPCN()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.95)
    for _ in range(8):
        sr = model(lr_area)
        loss = F.l1_loss(sr, hr) + 0.2 * (1 - ssim(sr, hr, window))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        mse = F.mse_loss(sr.detach().clamp(0, 1), hr)
        out += [loss.item(), (10 * torch.log10(1.0 / mse)).item()]
    # Patch-wise inference with Unfold / Fold and overlap averaging.
    with torch.no_grad():
        unfold = nn.Unfold(kernel_size=6, stride=4)
        patches = unfold(F.pad(lr_area, (1, 1, 1, 1), mode="replicate"))  # (B, 36, L)
        n_patch = patches.shape[-1]
        outs = model(patches.transpose(1, 2).reshape(-1, 1, 6, 6))
        cols = outs.reshape(lr_area.shape[0], n_patch, -1).transpose(1, 2)
        fold = nn.Fold(output_size=(20, 20), kernel_size=12, stride=8)
        summed = fold(cols)
        counts = fold(torch.ones_like(cols))
        merged = (summed / counts)[:, :, 2:18, 2:18]
        out += [str(tuple(patches.shape)), counts.max().item(), (merged - model(lr_area)).abs().mean().item()]
        out += merged[0, 0, 7].tolist()
    return out
