"""A CTC speech-recognition-like model on synthetic "spectrograms": a Conv1d front end over features, a
bidirectional 2-layer LSTM, a linear classifier, log_softmax over classes with time-major (T, N, C) logits,
nn.CTCLoss(blank=0, zero_infinity=True) with per-sample input and target lengths (concatenated 1-D targets and
padded 2-D targets), reduction="sum" / "none", greedy decoding (argmax, unique_consecutive, blank removal) and an
edit distance by dynamic programming."""

import torch
import torch.nn as nn
import torch.nn.functional as F

N_FEAT, N_CLASS = 6, 5  # class 0 is the blank


def synth(n, generator):
    xs, ys, in_lens, tgt_lens = [], [], [], []
    for _ in range(n):
        length = int(torch.randint(2, 5, (1,), generator=generator))
        labels = torch.randint(1, N_CLASS, (length,), generator=generator)
        frames = []
        for lab in labels.tolist():
            dur = int(torch.randint(2, 4, (1,), generator=generator))
            frame = torch.zeros(dur, N_FEAT)
            frame[:, lab] = 1.0
            frames.append(frame)
            frames.append(torch.zeros(1, N_FEAT))
        x = torch.cat(frames) + 0.1 * torch.randn(sum(f.shape[0] for f in frames), N_FEAT, generator=generator)
        xs.append(x)
        ys.append(labels)
        in_lens.append(x.shape[0])
        tgt_lens.append(length)
    return xs, ys, torch.tensor(in_lens), torch.tensor(tgt_lens)


class SpeechModel(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        # no conv bias before BatchNorm: its gradient is round-off, which Adam would amplify into real steps
        self.conv = nn.Sequential(nn.Conv1d(N_FEAT, 16, kernel_size=3, padding=1, bias=False),
                                  nn.BatchNorm1d(16), nn.Hardtanh(0, 20))
        self.rnn = nn.LSTM(16, hidden, num_layers=2, bidirectional=True, dropout=0.1)
        self.fc = nn.Linear(2 * hidden, N_CLASS)

    def forward(self, x):  # x: (N, T, F)
        h = self.conv(x.transpose(1, 2))  # (N, C, T)
        h = h.permute(2, 0, 1)  # (T, N, C)
        h, _ = self.rnn(h)
        return F.log_softmax(self.fc(h), dim=2)


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(dim=2).transpose(0, 1)
    decoded = []
    for seq, n in zip(best, lengths.tolist()):
        collapsed = torch.unique_consecutive(seq[:n])
        decoded.append(collapsed[collapsed != 0].tolist())
    return decoded


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, cb in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (ca != cb))
    return d[-1]


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(11)
    xs, ys, in_lens, tgt_lens = synth(24, g)
    x = nn.utils.rnn.pad_sequence(xs, batch_first=True)
    padded_targets = nn.utils.rnn.pad_sequence(ys, batch_first=True)
    flat_targets = torch.cat(ys)
    model = SpeechModel()
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    out = [x.shape[1], flat_targets.numel()]
    for epoch in range(6):
        model.train()
        for i in range(0, 24, 8):
            sl = slice(i, i + 8)
            log_probs = model(x[sl])
            offsets = torch.cat([torch.zeros(1, dtype=torch.long), tgt_lens.cumsum(0)])
            targets = flat_targets[offsets[i]:offsets[i + 8]] if epoch % 2 == 0 else padded_targets[sl]
            loss = ctc(log_probs, targets, in_lens[sl], tgt_lens[sl])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            out.append(loss.item())
    model.eval()
    with torch.no_grad():
        log_probs = model(x)
        per_sample = F.ctc_loss(log_probs, padded_targets, in_lens, tgt_lens, reduction="none")
        summed = F.ctc_loss(log_probs, flat_targets, in_lens, tgt_lens, reduction="sum")
        out += per_sample.tolist() + [summed.item()]
        decoded = greedy_decode(log_probs, in_lens)
        errors = sum(edit_distance(d, y.tolist()) for d, y in zip(decoded, ys))
        out += [errors / int(tgt_lens.sum()), str(decoded[:4])]
    # Impossible alignment (target longer than input) -> inf, zeroed by zero_infinity.
    lp = torch.randn(3, 1, N_CLASS).log_softmax(2).requires_grad_()
    bad = F.ctc_loss(lp, torch.tensor([[1, 2, 3, 4]]), torch.tensor([3]), torch.tensor([4]), reduction="none")
    zeroed = F.ctc_loss(lp, torch.tensor([[1, 2, 3, 4]]), torch.tensor([3]), torch.tensor([4]), zero_infinity=True)
    zeroed.backward()
    out += [str(bad.isinf().tolist()), zeroed.item(), lp.grad.abs().sum().item()]
    return out
