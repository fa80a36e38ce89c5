"""A small Transformer language model: token and position embeddings, TransformerEncoder with a causal mask and
dropout, a tied output projection, Adam with a warm-up LambdaLR."""

import math

import numpy as np
import torch
from torch import nn

VOCAB, WIDTH, LENGTH = 11, 16, 8


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Parameter(torch.randn(LENGTH, WIDTH) * 0.1)
        layer = nn.TransformerEncoderLayer(WIDTH, nhead=4, dim_feedforward=32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, tokens):
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1])
        hidden = self.encoder(self.tokens(tokens) * math.sqrt(WIDTH) + self.positions, mask=mask, is_causal=True)
        return hidden @ self.tokens.weight.T


def main():
    torch.manual_seed(3)
    rng = np.random.default_rng(3)
    start = rng.integers(0, VOCAB, (32, 1))
    sequences = torch.from_numpy((start + np.arange(LENGTH + 1)) % VOCAB)  # count upwards modulo VOCAB
    model = TinyLM()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 4))
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        logits = model(sequences[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), sequences[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    print(main())
