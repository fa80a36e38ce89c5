"""An ordinary PyTorch script (``import torch``), run on vfw without changing a line:

    python -m vfw run --as torch examples/unmodified_torch.py

``python -m vfw run`` serves ``import torch`` (and its submodules) from ``vfw.torch`` before the
script starts.  Run with plain ``python``, the script uses the real PyTorch if it is installed and
prints the same numbers.  A small convolutional autoencoder learns to denoise synthetic digits.
"""

import torch
import torch.nn.functional as F
from digits import make_digits
from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU())
        self.decode = nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.decode(self.encode(x)))


def main():
    print("torch module in use:", torch.__name__)
    torch.manual_seed(0)
    clean = torch.from_numpy(make_digits(512, seed=0, noise=0.0)[0]).unsqueeze(1)
    noisy = (clean + 0.3 * torch.randn_like(clean)).clamp(0, 1)
    model = Denoiser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(150):
        batch = torch.randint(0, len(clean), (64,))
        loss = F.mse_loss(model(noisy[batch]), clean[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 49:
            print(f"step {step + 1}: loss {loss.item():.5f}")
    with torch.no_grad():
        print(f"mean squared error: noisy input {F.mse_loss(noisy, clean).item():.5f}, "
              f"denoised {F.mse_loss(model(noisy), clean).item():.5f}")


if __name__ == "__main__":
    main()
