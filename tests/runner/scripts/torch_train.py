"""An ordinary PyTorch training script (run by real torch and by ``python -m vfw run --as torch``)."""

import json
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main(epochs):
    rng = np.random.RandomState(0)
    features = torch.tensor(rng.randn(64, 4), dtype=torch.float32)
    labels = torch.tensor((rng.randn(64) > 0).astype(np.int64))
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    with torch.no_grad():  # weights from numpy, so both frameworks start from the same point
        for parameter in model.parameters():
            parameter.copy_(torch.tensor(rng.randn(*parameter.shape) * 0.5, dtype=torch.float32))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(epochs):
        for batch_features, batch_labels in DataLoader(TensorDataset(features, labels), batch_size=16):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(batch_features), batch_labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    print(json.dumps({"torch_package": torch.__name__, "tensor_module": type(features).__module__, "losses": losses}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
