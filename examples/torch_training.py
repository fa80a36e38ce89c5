"""A PyTorch training script run on vfw: swap the import and nothing else changes.

Trains a small classifier on a synthetic 3-class problem with a DataLoader, Adam and a
learning-rate schedule, evaluates it, saves the weights in PyTorch's file format and loads
them back. With ``import torch`` instead of ``import vfw.torch as torch`` the same script
prints the same numbers (tests/test_examples.py checks that against real PyTorch).
"""

import os
import tempfile

import vfw.torch as torch
from vfw.torch import nn
from vfw.torch.utils.data import DataLoader, TensorDataset


def make_data(n):
    """Points around three centres in 2-D, labelled by centre."""
    centres = torch.tensor([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
    labels = torch.randint(0, 3, (n,))
    points = centres[labels] + 0.8 * torch.randn(n, 2)
    return points, labels


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(0)
    train_x, train_y = make_data(512)
    test_x, test_y = make_data(256)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=64, shuffle=True)
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(10):
        model.train()
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
        scheduler.step()
        print(f"epoch {epoch}: loss {total / len(train_x):.6f}")
    model.eval()
    with torch.no_grad():
        accuracy = (model(test_x).argmax(1) == test_y).float().mean().item()
    print(f"test accuracy: {accuracy:.4f}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "classifier.pt")
        torch.save(model.state_dict(), path)
        restored = Classifier()
        restored.load_state_dict(torch.load(path))
    restored.eval()
    with torch.no_grad():
        same = torch.equal(restored(test_x), model(test_x))
    print(f"reloaded weights give the same outputs: {same}")


if __name__ == "__main__":
    main()
