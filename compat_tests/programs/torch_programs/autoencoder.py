"""A convolutional autoencoder: Conv2d down, ConvTranspose2d up, MSE, RMSprop, a state_dict round trip."""

import io

import numpy as np
import torch
from torch import nn


def main():
    torch.manual_seed(4)
    rng = np.random.default_rng(4)
    grid = np.linspace(-1, 1, 8, dtype=np.float32)
    centres = rng.uniform(-0.5, 0.5, (32, 2, 1, 1)).astype(np.float32)
    blobs = np.exp(-((grid[None, :, None] - centres[:, 0]) ** 2 + (grid[None, None, :] - centres[:, 1]) ** 2) * 4)
    x = torch.from_numpy(blobs[:, None].astype(np.float32))
    model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.1), nn.Flatten(),
                          nn.Linear(64, 6), nn.Linear(6, 64), nn.Unflatten(1, (4, 4, 4)),
                          nn.ConvTranspose2d(4, 1, 4, stride=2, padding=1), nn.Sigmoid())
    optimizer = torch.optim.RMSprop(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), x)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    model.load_state_dict(torch.load(buffer))
    with torch.no_grad():
        losses.append(nn.functional.mse_loss(model(x), x).item())
    return losses


if __name__ == "__main__":
    print(main())
