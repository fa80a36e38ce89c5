"""Keyword spotting on synthetic audio (the torchaudio-free speech-command tutorials): chirps and tones with noise,
torch.stft with a Hann window and a power spectrogram, a triangular mel filterbank built by hand from linspace and
clamps, log-mel with log1p and per-utterance normalisation, SpecAugment masks drawn with a generator (masked_fill of
time and frequency bands from arange comparisons), a Conv1d + BatchNorm1d + bidirectional GRU classifier with
AdaptiveMaxPool1d, class-weighted cross-entropy, and istft reconstructing the waveform."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SR, N_FFT, HOP, N_MELS = 4000, 128, 32, 16


def mel_filterbank(n_fft=N_FFT, n_mels=N_MELS, sr=SR):
    to_mel = lambda f: 2595 * torch.log10(1 + f / 700)  # noqa: E731
    to_hz = lambda m: 700 * (10 ** (m / 2595) - 1)  # noqa: E731
    mels = torch.linspace(to_mel(torch.tensor(0.0)).item(), to_mel(torch.tensor(sr / 2)).item(), n_mels + 2)
    hz = to_hz(mels)
    bins = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    lower, center, upper = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    up = (bins - lower) / (center - lower)
    down = (upper - bins) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)


def synth(n, g):
    t = torch.arange(SR // 2) / SR
    y = torch.randint(0, 3, (n,), generator=g)
    f0 = 300 + 400 * torch.rand(n, 1, generator=g)
    tone = torch.sin(2 * math.pi * f0 * t)
    chirp = torch.sin(2 * math.pi * (f0 + 800 * t) * t)
    pulse = tone * (torch.sin(2 * math.pi * 6 * t) > 0)
    wave = torch.stack([tone, chirp, pulse], 1)[torch.arange(n), y]
    return wave + 0.1 * torch.randn(n, t.shape[0], generator=g), y


def log_mel(wave, window, fbank):
    spec = torch.stft(wave, N_FFT, hop_length=HOP, window=window, return_complex=True)
    power = spec.abs() ** 2
    mel = torch.log1p(fbank @ power)
    return (mel - mel.mean(dim=(1, 2), keepdim=True)) / (mel.std(dim=(1, 2), keepdim=True) + 1e-5)


def spec_augment(mel, g, max_f=3, max_t=6):
    b, f, t = mel.shape
    f_width = torch.randint(0, max_f + 1, (b, 1), generator=g)
    f_start = (torch.rand(b, 1, generator=g) * (f - f_width)).long()
    t_width = torch.randint(0, max_t + 1, (b, 1), generator=g)
    t_start = (torch.rand(b, 1, generator=g) * (t - t_width)).long()
    fr, tr = torch.arange(f), torch.arange(t)
    f_mask = (fr >= f_start) & (fr < f_start + f_width)
    t_mask = (tr >= t_start) & (tr < t_start + t_width)
    return mel.masked_fill(f_mask[:, :, None] | t_mask[:, None, :], 0.0)


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, 24, 5, padding=2, bias=False), nn.BatchNorm1d(24), nn.ReLU())
        self.gru = nn.GRU(24, 16, batch_first=True, bidirectional=True)
        self.pool = nn.AdaptiveMaxPool1d(1)
        self.fc = nn.Linear(32, 3)

    def forward(self, mel):
        h = self.conv(mel)
        h, _ = self.gru(h.transpose(1, 2))
        return self.fc(self.pool(h.transpose(1, 2)).squeeze(-1))


def main():
    torch.manual_seed(71)
    g = torch.Generator().manual_seed(71)
    window = torch.hann_window(N_FFT)
    fbank = mel_filterbank()
    wave, y = synth(24, g)
    mel = log_mel(wave, window, fbank)
    out = [str(tuple(mel.shape)), fbank.sum().item(), mel[0, :, 5].tolist()[0]]
    counts = torch.bincount(y, minlength=3).float()
    weights = counts.sum() / (3 * counts)
    model = KWS()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for _ in range(8):
        logits = model(spec_augment(mel, g))
        loss = F.cross_entropy(logits, y, weight=weights)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(mel)
        out += logits[:4].flatten().tolist() + [(logits.argmax(1) == y).float().mean().item()]
    spec = torch.stft(wave[:2], N_FFT, hop_length=HOP, window=window, return_complex=True)
    back = torch.istft(spec, N_FFT, hop_length=HOP, window=window, length=wave.shape[1])
    out += [(back - wave[:2]).abs().max().item() < 1e-4, str(tuple(spec.shape)), spec.angle()[0, 10, 3].item()]
    return out
