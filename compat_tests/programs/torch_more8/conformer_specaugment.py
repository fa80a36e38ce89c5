"""A Conformer encoder block for speech (as in the popular conformer / ESPnet-style repositories): a log-mel-like
front end from torch.stft (hann window, power spectrum, a triangular filter bank built with torch.linspace and
clamps, log1p), SpecAugment time and frequency masks drawn with torch.randint from a generator and applied with
masked_fill, macaron half-step feed-forward modules with SiLU, multi-head self attention with a key padding mask
from sequence lengths, the convolution module (pointwise Conv1d, F.glu, depthwise Conv1d with groups, BatchNorm1d,
SiLU), a subsampling Conv2d front, and a per-utterance mean pooled classifier trained with label smoothing and
AdamW with a OneCycleLR schedule."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def mel_filterbank(n_freqs, n_mels, sample_rate):
    def hz_to_mel(f):
        return 2595.0 * torch.log10(1.0 + f / 700.0)

    mels = torch.linspace(hz_to_mel(torch.tensor(0.0)).item(), hz_to_mel(torch.tensor(sample_rate / 2)).item(),
                          n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    freqs = torch.linspace(0, sample_rate / 2, n_freqs)
    lower, center, upper = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    up = (freqs - lower) / (center - lower)
    down = (upper - freqs) / (upper - center)
    return torch.clamp(torch.minimum(up, down), min=0.0)


def log_mel(wave, n_fft=64, hop=16, n_mels=16, sample_rate=8000):
    spec = torch.stft(wave, n_fft, hop_length=hop, window=torch.hann_window(n_fft), return_complex=True)
    power = spec.abs() ** 2
    fb = mel_filterbank(n_fft // 2 + 1, n_mels, sample_rate)
    return torch.log1p(torch.einsum("mf,bft->bmt", fb, power))


def spec_augment(feats, generator, n_freq_masks=1, freq_width=3, n_time_masks=2, time_width=4):
    b, n_mels, t = feats.shape
    mask = torch.zeros(b, n_mels, t, dtype=torch.bool)
    for _ in range(n_freq_masks):
        width = torch.randint(0, freq_width + 1, (b, 1), generator=generator)
        start = torch.randint(0, n_mels - freq_width, (b, 1), generator=generator)
        idx = torch.arange(n_mels)[None, :]
        mask |= ((idx >= start) & (idx < start + width))[:, :, None]
    for _ in range(n_time_masks):
        width = torch.randint(0, time_width + 1, (b, 1), generator=generator)
        start = torch.randint(0, t - time_width, (b, 1), generator=generator)
        idx = torch.arange(t)[None, :]
        mask |= ((idx >= start) & (idx < start + width))[:, None, :]
    return feats.masked_fill(mask, 0.0)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=2, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * mult), nn.SiLU(), nn.Dropout(dropout),
                                 nn.Linear(dim * mult, dim), nn.Dropout(dropout))

    def forward(self, x):
        return self.net(x)


class ConvModule(nn.Module):
    def __init__(self, dim, kernel_size=5):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.pointwise1 = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, kernel_size, padding=kernel_size // 2, groups=dim,
                                   bias=False)  # followed by batch norm: a bias would get only round-off gradients
        self.bn = nn.BatchNorm1d(dim)
        self.pointwise2 = nn.Conv1d(dim, dim, 1)

    def forward(self, x, pad_mask):
        h = self.norm(x).masked_fill(pad_mask[..., None], 0.0).transpose(1, 2)
        h = F.glu(self.pointwise1(h), dim=1)
        h = F.silu(self.bn(self.depthwise(h)))
        return self.pointwise2(h).transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self, dim, heads=2):
        super().__init__()
        self.ff1, self.ff2 = FeedForward(dim), FeedForward(dim)
        self.attn_norm = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=0.1, batch_first=True)
        self.conv = ConvModule(dim)
        self.final_norm = nn.LayerNorm(dim)

    def forward(self, x, pad_mask):
        x = x + 0.5 * self.ff1(x)
        h = self.attn_norm(x)
        x = x + self.attn(h, h, h, key_padding_mask=pad_mask, need_weights=False)[0]
        x = x + self.conv(x, pad_mask)
        return self.final_norm(x + 0.5 * self.ff2(x))


class Conformer(nn.Module):
    def __init__(self, n_mels=16, dim=16, n_classes=4):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2), nn.ReLU())
        self.proj = nn.Linear(4 * ((n_mels - 3) // 2 + 1), dim)
        self.block = ConformerBlock(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, feats, lengths):
        h = self.subsample(feats.unsqueeze(1))
        b, c, f, t = h.shape
        h = self.proj(h.permute(0, 3, 1, 2).reshape(b, t, c * f))
        sub_lengths = torch.div(lengths - 3, 2, rounding_mode="floor") + 1
        pad_mask = torch.arange(t)[None, :] >= sub_lengths[:, None]
        h = self.block(h, pad_mask)
        keep = (~pad_mask).unsqueeze(-1).float()
        return self.head((h * keep).sum(1) / keep.sum(1))


def main():
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    n, samples = 8, 512
    labels = torch.arange(n) % 4
    t = torch.arange(samples) / 8000.0
    freqs = 300.0 + 600.0 * labels.float()
    waves = torch.sin(2 * torch.pi * freqs[:, None] * t) + 0.1 * torch.randn(n, samples, generator=g)
    feats = log_mel(waves)
    lengths = torch.tensor([feats.shape[-1]] * 4 + [feats.shape[-1] - 8] * 4)
    feats = feats.masked_fill(torch.arange(feats.shape[-1]) >= lengths[:, None, None], 0.0)
    model = Conformer()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=4)
    out = [feats.mean().item(), feats.std().item()]
    for _ in range(4):
        loss = F.cross_entropy(model(spec_augment(feats, g), lengths), labels, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        logits = model(feats, lengths)
    out += [logits.softmax(-1).max(-1).values.mean().item(), model.block.conv.bn.running_var.mean().item()]
    return out
