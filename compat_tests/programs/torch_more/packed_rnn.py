"""Variable-length sequences: a Dataset of ragged sequences with a collate_fn that pads them (pad_sequence),
pack_padded_sequence(enforce_sorted=False) into a bidirectional LSTM and a GRU, pad_packed_sequence back, and a
per-sequence regression target. Adam + StepLR, gradient clipping by value."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset


class RaggedDataset(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(5)
        self.items = []
        for _ in range(n):
            length = int(torch.randint(2, 9, (1,), generator=g))
            seq = torch.randn(length, 3, generator=g)
            self.items.append((seq, seq[:, 0].sum() - seq[:, 1].mean()))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate(batch):
    seqs, targets = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, torch.stack(targets)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(16, 6, batch_first=True)
        self.out = nn.Linear(6, 1)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
        packed_out, (h, c) = self.lstm(packed)
        unpacked, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
        packed2 = pack_padded_sequence(unpacked, out_lengths, batch_first=True, enforce_sorted=False)
        _, h_gru = self.gru(packed2)
        return self.out(h_gru[-1]).squeeze(-1), unpacked, h


def main():
    torch.manual_seed(3)
    data = RaggedDataset(40)
    loader = DataLoader(data, batch_size=8, shuffle=True, collate_fn=collate)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    out = []
    for _epoch in range(4):
        for padded, lengths, targets in loader:
            pred, unpacked, h = model(padded, lengths)
            loss = nn.functional.mse_loss(pred, targets)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            out.append(loss.item())
        sched.step()
    out += list(unpacked.shape) + list(h.shape)
    out.append(unpacked[lengths.argmin(), -1].abs().sum().item())  # padding positions come back as zeros
    packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    out += packed.batch_sizes.tolist() + packed.sorted_indices.tolist() + packed.unsorted_indices.tolist()
    return out


if __name__ == "__main__":
    print(main())
