"""Speech-enhancement style spectral masking, as in popular denoising repositories and Stack Overflow answers on
torch.stft: noisy sine mixtures go through torch.stft with a Hann window (return_complex=True), the log-magnitude
feeds a small Conv1d/GRU mask estimator, the sigmoid mask scales the magnitude while the noisy phase (torch.angle)
is kept, torch.polar rebuilds the complex spectrum and torch.istft returns to the waveform; the loss mixes an
L1 on magnitudes, an SI-SDR term and a multi-resolution STFT loss; ASGD (averaged SGD, its "ax" state compared)
with gradient clipping by value."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N_FFT, HOP = 32, 8


def spectrum(wave, n_fft=N_FFT, hop=HOP):
    window = torch.hann_window(n_fft)
    return torch.stft(wave, n_fft, hop_length=hop, window=window, center=True, return_complex=True)


class MaskNet(nn.Module):
    def __init__(self, freqs=N_FFT // 2 + 1, hidden=16):
        super().__init__()
        self.conv = nn.Conv1d(freqs, hidden, 3, padding=1)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, freqs)

    def forward(self, log_mag):  # (batch, freqs, frames)
        h = F.leaky_relu(self.conv(log_mag), 0.1).transpose(1, 2)
        h, _ = self.gru(h)
        return torch.sigmoid(self.head(h)).transpose(1, 2)


def si_sdr(estimate, target, eps=1e-8):
    target = target - target.mean(-1, keepdim=True)
    estimate = estimate - estimate.mean(-1, keepdim=True)
    scale = (estimate * target).sum(-1, keepdim=True) / (target.pow(2).sum(-1, keepdim=True) + eps)
    projection = scale * target
    noise = estimate - projection
    return 10 * torch.log10(projection.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps) + eps)


def multi_resolution_loss(estimate, target):
    total = 0.0
    for n_fft, hop in ((16, 4), (32, 8)):
        e, t = spectrum(estimate, n_fft, hop).abs(), spectrum(target, n_fft, hop).abs()
        convergence = torch.linalg.norm(t - e, ord="fro", dim=(-2, -1)) / torch.linalg.norm(t, ord="fro",
                                                                                              dim=(-2, -1))
        log_mag = F.l1_loss(torch.log1p(e), torch.log1p(t))
        total = total + convergence.mean() + log_mag
    return total / 2


def make_batch(g, batch=6, length=128):
    t = torch.arange(length, dtype=torch.float32) / length
    freqs = torch.randint(2, 12, (batch, 2), generator=g).float()
    clean = (torch.sin(2 * math.pi * freqs[:, :1] * t) + 0.5 * torch.sin(2 * math.pi * freqs[:, 1:] * t)) / 1.5
    noisy = clean + 0.3 * torch.randn(batch, length, generator=g)
    return noisy, clean


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    model = MaskNet()
    opt = torch.optim.ASGD(model.parameters(), lr=0.05, t0=3, weight_decay=1e-4)
    out = []
    noisy, clean = make_batch(g)
    spec = spectrum(noisy)
    out += [str(spec.dtype), repr(tuple(spec.shape))]
    # istft of an untouched stft reconstructs the signal
    out.append((torch.istft(spec, N_FFT, HOP, window=torch.hann_window(N_FFT), length=128) - noisy).abs().max().item()
               < 1e-5)
    for _step in range(5):
        noisy, clean = make_batch(g)
        spec = spectrum(noisy)
        mag, phase = spec.abs(), torch.angle(spec)
        mask = model(torch.log1p(mag))
        enhanced = torch.polar(mask * mag, phase)
        wave = torch.istft(enhanced, N_FFT, HOP, window=torch.hann_window(N_FFT), length=noisy.shape[-1])
        mag_loss = F.l1_loss(mask * mag, spectrum(clean).abs())
        sdr = si_sdr(wave, clean).mean()
        loss = mag_loss - 0.05 * sdr + multi_resolution_loss(wave, clean)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        out += [loss.item(), sdr.item(), mask.mean().item()]
    out.append(model.head.bias.grad.abs().max().item())
    state = opt.state[model.head.bias]
    out += [repr(sorted(state)), state["ax"].sum().item(), state["eta"].item(), state["mu"].item()]
    ri = torch.view_as_real(spec)
    out += [repr(tuple(ri.shape)), ri[0, 3, 2].tolist()[0], spec.real.sum().item(), spec.imag.abs().sum().item()]
    return out
