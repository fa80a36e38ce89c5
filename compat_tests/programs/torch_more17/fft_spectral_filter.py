"""A signal-processing notebook: a noisy two-tone signal cleaned with torch.fft (rfft / rfftfreq, a low-pass mask,
irfft), fftshift / ifftshift of a centred spectrum, a 2-D fft2 image blur, Parseval's check, then a learnable
spectral filter (complex weights as view_as_complex of a real parameter) trained with Adam to denoise batches."""

import math

import torch
import torch.nn as nn


class SpectralFilter(nn.Module):
    def __init__(self, n_freq):
        super().__init__()
        # a complex weight per frequency kept as (re, im) pairs, as FNO-style layers do
        self.weight = nn.Parameter(torch.stack([torch.ones(n_freq), torch.zeros(n_freq)], dim=-1) * 0.5)

    def forward(self, x):
        spec = torch.fft.rfft(x, dim=-1)
        spec = spec * torch.view_as_complex(self.weight)
        return torch.fft.irfft(spec, n=x.shape[-1], dim=-1)


def main():
    torch.manual_seed(0)
    out = []
    fs, n = 64.0, 128
    t = torch.arange(n) / fs
    clean = torch.sin(2 * math.pi * 3.0 * t) + 0.5 * torch.sin(2 * math.pi * 7.0 * t)
    noisy = clean + 0.4 * torch.randn(n)

    spec = torch.fft.rfft(noisy)
    freqs = torch.fft.rfftfreq(n, d=1 / fs)
    out += [spec.shape[0], freqs[1].item(), freqs[-1].item(), str(spec.dtype)]
    peaks = torch.topk(spec.abs(), 2).indices.sort().values
    out += freqs[peaks].tolist()
    mask = (freqs < 10.0).to(spec.dtype)
    filtered = torch.fft.irfft(spec * mask, n=n)
    out += [(noisy - clean).pow(2).mean().item(), (filtered - clean).pow(2).mean().item()]

    # Parseval: energy in time == energy in frequency / n
    full = torch.fft.fft(noisy)
    out += [noisy.pow(2).sum().item(), (full.abs() ** 2).sum().item() / n]

    centred = torch.fft.fftshift(torch.fft.fftfreq(8, d=0.5))
    out.append(str(centred))
    out.append(str(torch.fft.ifftshift(centred)))
    power_db = 10 * torch.log10(torch.fft.fftshift(full.abs() ** 2) + 1e-8)
    out += [power_db.max().item(), power_db.argmax().item()]

    img = torch.zeros(16, 16)
    img[6:10, 6:10] = 1.0
    f2 = torch.fft.fft2(img)
    ky = torch.fft.fftfreq(16).view(-1, 1)
    kx = torch.fft.fftfreq(16).view(1, -1)
    gauss = torch.exp(-(kx ** 2 + ky ** 2) / (2 * 0.05 ** 2))
    blurred = torch.fft.ifft2(f2 * gauss).real
    out += [blurred.sum().item(), blurred[8, 8].item(), blurred[0, 0].item()]
    out.append(torch.allclose(torch.fft.irfft2(torch.fft.rfft2(img), s=img.shape), img, atol=1e-5))
    ortho = torch.fft.rfft(noisy, norm="ortho")
    out.append((ortho.abs() ** 2).sum().item())

    model = SpectralFilter(n // 2 + 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    phase = torch.rand(32, 1) * 2 * math.pi
    batch_clean = torch.sin(2 * math.pi * 3.0 * t + phase)
    for step in range(12):
        batch_noisy = batch_clean + 0.5 * torch.randn(32, n)
        loss = nn.functional.mse_loss(model(batch_noisy), batch_clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            out.append(loss.item())
    gain = torch.view_as_complex(model.weight).abs()
    out += [gain[6].item(), gain[40].item(), model.weight.grad.norm().item()]
    return out
