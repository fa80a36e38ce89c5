"""A char-level WaveNet (the makemore / WaveNet-tutorial style): one-hot input by F.one_hot(...).permute, a causal
Conv1d made by left padding with F.pad, a stack of dilated residual blocks with gated activations
(tanh(filter) * sigmoid(gate) from a chunked convolution), 1x1 residual and skip convolutions summed over the
blocks, ReLU head, cross_entropy over (N, C, L) logits, AdamW with a per-parameter-group weight decay, and
sampling with torch.multinomial and a seeded Generator."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog. pack my box with five dozen liquor jugs. "


class CausalConv1d(nn.Conv1d):
    def __init__(self, cin, cout, kernel_size, dilation=1):
        super().__init__(cin, cout, kernel_size, dilation=dilation)
        self.left = (kernel_size - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left, 0)))


class ResidualBlock(nn.Module):
    def __init__(self, channels, skip_channels, dilation):
        super().__init__()
        self.conv = CausalConv1d(channels, 2 * channels, 2, dilation)
        self.res = nn.Conv1d(channels, channels, 1)
        self.skip = nn.Conv1d(channels, skip_channels, 1)

    def forward(self, x):
        filt, gate = self.conv(x).chunk(2, dim=1)
        z = torch.tanh(filt) * torch.sigmoid(gate)
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, vocab, channels=16, skip_channels=24, dilations=(1, 2, 4, 8)):
        super().__init__()
        self.vocab = vocab
        self.input = CausalConv1d(vocab, channels, 2)
        self.blocks = nn.ModuleList(ResidualBlock(channels, skip_channels, d) for d in dilations)
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_channels, skip_channels, 1), nn.ReLU(),
                                  nn.Conv1d(skip_channels, vocab, 1))
        self.receptive_field = 2 + sum(dilations)

    def forward(self, idx):
        x = self.input(F.one_hot(idx, self.vocab).float().permute(0, 2, 1))
        skips = 0
        for block in self.blocks:
            x, s = block(x)
            skips = skips + s
        return self.head(skips)


def main():
    torch.manual_seed(17)
    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in TEXT])
    model = WaveNet(len(chars))
    decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [p for n, p in model.named_parameters() if not n.endswith("weight")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-2)
    block = 24
    starts = torch.arange(0, len(data) - block - 1, 6)
    x = torch.stack([data[s: s + block] for s in starts])
    y = torch.stack([data[s + 1: s + block + 1] for s in starts])
    out = [float(model.receptive_field), float(sum(p.numel() for p in model.parameters()))]
    for _ in range(10):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    g = torch.Generator().manual_seed(2)
    context = data[:model.receptive_field].unsqueeze(0)
    with torch.no_grad():
        for _ in range(20):
            probs = F.softmax(model(context[:, -model.receptive_field:])[:, :, -1], dim=-1)
            context = torch.cat([context, torch.multinomial(probs, 1, generator=g)], dim=1)
    out.append("".join(chars[i] for i in context[0].tolist()))
    # Causality: changing a future character must not change earlier logits.
    probe = x[:1].clone()
    base = model(probe)
    probe[0, 12] = (probe[0, 12] + 1) % len(chars)
    changed = model(probe)
    out += [(base[..., :12] - changed[..., :12]).abs().max().item(), float((base[..., 12:] != changed[..., 12:]).any())]
    return out
