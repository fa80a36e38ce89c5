"""Train a digit classifier PyTorch-style: nn.Module, DataLoader, Adam, a learning-rate schedule.

A small convolutional network learns synthetic 8x8 digits (``digits.py``: drawn procedurally, no
download).  The code is ordinary PyTorch code; only the import names vfw.
"""

import vfw.torch as torch
from digits import make_digits
from vfw.torch import nn
from vfw.torch.utils.data import DataLoader, TensorDataset


class DigitNet(nn.Module):
    """conv(1->8, 3x3) -> ReLU -> 2x2 max pool -> flatten -> Linear(128 -> 10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(8 * 4 * 4, 10)

    def forward(self, images):
        return self.classifier(self.features(images.unsqueeze(1)).flatten(1))


def evaluate(model, images, labels):
    model.eval()
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return (predicted == labels).float().mean().item()


def main():
    torch.manual_seed(0)
    train_images, train_labels = (torch.tensor(a) for a in make_digits(2000, seed=0))
    test_images, test_labels = (torch.tensor(a) for a in make_digits(500, seed=1))
    loader = DataLoader(TensorDataset(train_images, train_labels), batch_size=32, shuffle=True)
    model = DigitNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    print(f"parameters: {sum(p.numel() for p in model.parameters())}")
    for epoch in range(5):
        total = 0.0
        for images, labels in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
        scheduler.step()
        print(f"epoch {epoch + 1}: loss {total / len(train_labels):.4f}, "
              f"test accuracy {evaluate(model, test_images, test_labels):.3f}")


if __name__ == "__main__":
    main()
