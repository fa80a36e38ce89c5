"""Variable-length sequences as PackedSequence end to end: pack_sequence(enforce_sorted=False) of a list of
tensors, its data / batch_sizes / sorted_indices / unsorted_indices, a bidirectional 2-layer GRU over it with an
initial hidden state, the final hidden states (already in the caller's order) concatenated across directions,
pad_packed_sequence with batch_first and total_length, unpack_sequence and unpad_sequence back to lists, a
PackedSequence through an elementwise module via ._replace(data=...), and a masked mean over time."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)


class Classifier(nn.Module):
    def __init__(self, n_in=3, hidden=8, n_classes=3):
        super().__init__()
        self.inp = nn.Linear(n_in, n_in)
        self.gru = nn.GRU(n_in, hidden, num_layers=2, bidirectional=True, dropout=0.2)
        self.h0 = nn.Parameter(torch.zeros(4, 1, hidden))
        self.out = nn.Linear(4 * hidden, n_classes)

    def forward(self, packed):
        packed = packed._replace(data=torch.tanh(self.inp(packed.data)))
        h0 = self.h0.expand(-1, packed.batch_sizes[0].item(), -1).contiguous()
        output, h_n = self.gru(packed, h0)
        padded, lengths = pad_packed_sequence(output)
        mask = (torch.arange(padded.size(0))[:, None] < lengths[None, :]).unsqueeze(-1)
        mean = (padded * mask).sum(0) / lengths[:, None]
        last = torch.cat([h_n[-2], h_n[-1]], dim=1)
        return self.out(torch.cat([mean, last], dim=1))


def main():
    torch.manual_seed(19)
    g = torch.Generator().manual_seed(19)
    lengths = [5, 2, 7, 3, 6, 4]
    seqs = [torch.randn(n, 3, generator=g) for n in lengths]
    labels = torch.tensor([len(s) % 3 for s in seqs])
    packed = pack_sequence(seqs, enforce_sorted=False)
    out = [str(type(packed).__name__), str(packed.batch_sizes.tolist()), str(packed.sorted_indices.tolist()),
           str(packed.unsorted_indices.tolist()), str(tuple(packed.data.shape)), isinstance(packed, tuple)]
    model = Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(6):
        model.train()
        loss = F.cross_entropy(model(pack_sequence(seqs, enforce_sorted=False)), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(model.h0.grad.abs().sum().item())
    model.eval()
    with torch.no_grad():
        output, h_n = model.gru(packed)
        padded, lens = pad_packed_sequence(output, batch_first=True, total_length=9)
        pieces = unpack_sequence(output)
    out += [str(tuple(padded.shape)), str(lens.tolist()), str([tuple(p.shape) for p in pieces])]
    # The last valid step of the forward direction is the final forward hidden state.
    last_fwd = torch.stack([padded[i, n - 1, :8] for i, n in enumerate(lengths)])
    out.append((last_fwd - h_n[-2]).abs().max().item())
    out += [(padded[i, lengths[i]:].abs().sum().item()) for i in range(len(lengths))]
    batch_first = pad_sequence(seqs, batch_first=True, padding_value=-1.0)
    back = unpad_sequence(batch_first, torch.tensor(lengths), batch_first=True)
    out.append(max((a - b).abs().max().item() for a, b in zip(back, seqs)))
    out += h_n[:, 0].flatten()[:8].tolist() + pieces[1].flatten()[:6].tolist()
    manual = PackedSequence(packed.data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
    out.append(str([len(t) for t in unpack_sequence(manual)]))
    return out
