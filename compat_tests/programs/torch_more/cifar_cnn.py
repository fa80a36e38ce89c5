"""A CIFAR-style CNN: a custom Dataset with hand-written transforms (random crop from padding, horizontal flip,
normalization), DataLoader(shuffle, drop_last, generator), CrossEntropyLoss(label_smoothing), SGD with Nesterov
momentum and OneCycleLR, then evaluation with argmax accuracy."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

MEAN = torch.tensor([0.5, 0.4, 0.3]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.2, 0.3]).view(3, 1, 1)


class RandomCrop:
    def __init__(self, size, padding):
        self.size, self.padding = size, padding

    def __call__(self, img):
        img = F.pad(img, [self.padding] * 4, mode="reflect")
        top = int(torch.randint(0, img.shape[1] - self.size + 1, (1,)))
        left = int(torch.randint(0, img.shape[2] - self.size + 1, (1,)))
        return img[:, top:top + self.size, left:left + self.size]


class RandomHorizontalFlip:
    def __call__(self, img):
        return img.flip(-1) if torch.rand(1).item() < 0.5 else img


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class SyntheticCIFAR(Dataset):
    def __init__(self, n, transform=None):
        rng = np.random.default_rng(0)
        self.images = rng.random((n, 3, 12, 12)).astype(np.float32)
        self.labels = rng.integers(0, 4, n)
        for c in range(4):  # each class brightens one quadrant
            sel = self.labels == c
            self.images[sel, c % 3, (c // 2) * 6:(c // 2) * 6 + 6, (c % 2) * 6:(c % 2) * 6 + 6] += 0.8
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i])
        if self.transform is not None:
            img = self.transform(img)
        return (img - MEAN) / STD, int(self.labels[i])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.fc1 = nn.Linear(16 * 2 * 2, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def main():
    torch.manual_seed(0)
    train = SyntheticCIFAR(70, Compose([RandomCrop(12, 2), RandomHorizontalFlip()]))
    test = SyntheticCIFAR(40)
    g = torch.Generator()
    g.manual_seed(3)
    loader = DataLoader(train, batch_size=16, shuffle=True, drop_last=True, num_workers=0, generator=g)
    test_loader = DataLoader(test, batch_size=16, shuffle=False)
    net = Net()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    epochs = 3
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    out = [len(loader)]
    for _ in range(epochs):
        net.train()
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = criterion(net(inputs), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            out.append(loss.item())
        out.append(scheduler.get_last_lr()[0])
    net.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in test_loader:
            _, predicted = torch.max(net(images).data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    out += [correct, total, optimizer.param_groups[0]["momentum"]]
    return out


if __name__ == "__main__":
    print(main())
