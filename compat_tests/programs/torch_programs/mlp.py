"""An MLP classifier: Linear/ReLU/Dropout, SGD with momentum and weight decay, random minibatches."""

import numpy as np
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((256, 10)), dtype=torch.float32)
    y = (x[:, :3].sum(1) > 0).long() + (x[:, 3] > 0.5).long()
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    losses = []
    for _ in range(25):
        batch = torch.randperm(256)[:32]
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x[batch]), y[batch])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        losses.append(nn.functional.cross_entropy(model(x), y).item())
    return losses


if __name__ == "__main__":
    print(main())
