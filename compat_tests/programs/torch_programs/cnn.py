"""A small CNN: Conv2d/BatchNorm2d/MaxPool2d/AdaptiveAvgPool2d, AdamW, a cosine schedule, train and eval modes.

The convolution before BatchNorm has no bias: the normalization cancels it, so its gradient is rounding noise,
which Adam scales up to full-sized steps that differ between any two implementations.
"""

import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def main():
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    images = rng.standard_normal((64, 1, 10, 10)).astype(np.float32)
    labels = np.arange(64) % 2
    images[labels == 1, :, 2:8, 4:6] += 2.0  # class 1 has a vertical bar
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=12)
    losses = []
    for step in range(12):
        batch = slice(16 * (step % 4), 16 * (step % 4) + 16)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x[batch]), y[batch])
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        losses.append(nn.functional.cross_entropy(model(x), y).item())
    losses.append(model.features[1].running_var.sum().item())
    return losses


if __name__ == "__main__":
    print(main())
