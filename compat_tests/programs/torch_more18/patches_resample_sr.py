"""Patch and resampling plumbing from super-resolution / ViT-from-scratch notebooks: nn.Unfold to cut an image into
(overlapping, padded, dilated) patches and nn.Fold to stitch them back (dividing by the overlap count from folding
ones), an ESPCN-style net upscaling with nn.PixelShuffle and downscaling with nn.PixelUnshuffle, F.interpolate in
nearest / nearest-exact / bilinear (align_corners True and False) / bicubic / area modes with sizes and scale
factors (recompute_scale_factor), and a small training loop on an "area"-downsampled target."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ESPCN(nn.Module):
    def __init__(self, scale=2, channels=1):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, 8, 5, padding=2), nn.Tanh(), nn.Conv2d(8, 8, 3, padding=1),
                                  nn.Tanh(), nn.Conv2d(8, channels * scale ** 2, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.shuffle(self.body(x)) + F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)


def main():
    torch.manual_seed(0)
    out = []
    img = torch.arange(2 * 3 * 8 * 8, dtype=torch.float32).reshape(2, 3, 8, 8) / 17.0
    for kernel, stride, padding, dilation in [(4, 4, 0, 1), (3, 2, 1, 1), ((2, 3), (2, 1), (0, 1), (1, 2))]:
        unfold = nn.Unfold(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation)
        fold = nn.Fold(output_size=(8, 8), kernel_size=kernel, stride=stride, padding=padding, dilation=dilation)
        patches = unfold(img)
        counts = fold(unfold(torch.ones_like(img)))
        restored = fold(patches) / counts
        out += [str(tuple(patches.shape)), repr(unfold), repr(fold), (restored - img).abs().max().item(),
                patches[0, :, 1].sum().item(), counts.min().item(), counts.max().item()]
    # ViT patch embedding two ways: unfold + linear against a strided conv with the same weights
    conv = nn.Conv2d(3, 6, kernel_size=4, stride=4)
    tokens = nn.Unfold(4, stride=4)(img).transpose(1, 2) @ conv.weight.flatten(1).T + conv.bias
    out.append(torch.allclose(tokens, conv(img).flatten(2).transpose(1, 2), atol=1e-5))

    shuffle, unshuffle = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
    lowres = unshuffle(img)
    out += [str(tuple(lowres.shape)), torch.equal(shuffle(lowres), img), repr(shuffle), repr(unshuffle),
            lowres[0, :4, 0, 0].tolist().__repr__()]

    small = img[:, :, :5, :5]
    for kwargs in [dict(size=(7, 9), mode="nearest"), dict(size=(7, 9), mode="nearest-exact"),
                   dict(scale_factor=1.5, mode="nearest"), dict(scale_factor=1.5, mode="nearest-exact"),
                   dict(size=(3, 2), mode="area"), dict(scale_factor=0.5, mode="area"), dict(size=1, mode="area"),
                   dict(size=(10, 10), mode="bilinear", align_corners=True),
                   dict(size=(10, 10), mode="bilinear", align_corners=False),
                   dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
                   dict(scale_factor=1.7, mode="bilinear"), dict(size=(6, 4), mode="bicubic", align_corners=True)]:
        y = F.interpolate(small, **kwargs)
        out += [str(tuple(y.shape)), y.sum().item(), y[1, 2, -1, -1].item()]
    out.append(str(F.interpolate(small[:1, :1], size=(2, 3), mode="area")))
    out.append(str(F.interpolate(small[:1, :1], size=(3, 7), mode="nearest-exact")))
    out.append(str(F.adaptive_avg_pool2d(img[:1, :1], (3, 5))))
    line = img[:, 0, 0, :]
    out += F.interpolate(line.unsqueeze(1), size=5, mode="linear", align_corners=True).flatten().tolist()[:5]
    out += F.interpolate(line.unsqueeze(1), size=3, mode="area").flatten().tolist()

    torch.manual_seed(1)
    hires = torch.rand(4, 1, 12, 12)
    hires = F.avg_pool2d(F.pad(hires, (1, 1, 1, 1), mode="reflect"), 3, stride=1)  # smooth targets
    lowres = F.interpolate(hires, size=(6, 6), mode="area")
    model = ESPCN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(8):
        pred = model(lowres)
        loss = F.l1_loss(pred, hires)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(model.body[0].weight.grad.norm().item())
    with torch.no_grad():
        psnr = 10 * torch.log10(1.0 / F.mse_loss(model(lowres), hires))
    out.append(psnr.item())
    return out


if __name__ == "__main__":
    print(main())
