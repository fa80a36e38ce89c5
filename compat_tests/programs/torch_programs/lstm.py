"""A sequence classifier: Embedding, a 2-layer LSTM, gradient clipping, Adam."""

import numpy as np
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(12, 8)
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.out = nn.Linear(16, 2)

    def forward(self, tokens):
        outputs, (h, c) = self.lstm(self.embed(tokens))
        return self.out(h[-1])


def main():
    torch.manual_seed(2)
    rng = np.random.default_rng(2)
    tokens = torch.from_numpy(rng.integers(0, 12, (48, 7)))
    labels = (tokens == 3).any(dim=1).long()
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)
    losses = []
    for step in range(12):
        batch = slice(16 * (step % 3), 16 * (step % 3) + 16)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(tokens[batch]), labels[batch])
        loss.backward()
        losses.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        optimizer.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    print(main())
