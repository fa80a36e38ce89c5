""""What is torch.nn really?": logistic regression from scratch (xavier-like init, log_softmax, nll, accuracy),
refactored step by step into F.cross_entropy, nn.Module with nn.Parameter, nn.Linear, optim, TensorDataset,
DataLoader, validation with get_data/loss_batch/fit, a CNN using view and F.avg_pool2d, nn.Sequential with a
Lambda module, and a WrappedDataLoader with a preprocess function, on synthetic 8x8 "digits"."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

bs = 16
lr = 0.5
epochs = 2


def synthetic(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 64)).astype(np.float32)
    y = (x[:, :32].sum(1) > x[:, 32:].sum(1)).astype(np.int64) + 2 * (x[:, 0] > 0.5)
    return x, y


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


class MnistLogistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(64, 10) / math.sqrt(64))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


class MnistLogistic2(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 10)

    def forward(self, xb):
        return self.lin(xb)


class MnistCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 8, 8)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 1)
        return xb.view(-1, xb.size(1))


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x, y):
    return x.view(-1, 1, 8, 8), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(valid_ds, batch_size=bs * 2))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl, out):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        out += [epoch, val_loss]


def main():
    out = []
    torch.manual_seed(0)
    x_train, y_train = synthetic(96, 0)
    x_valid, y_valid = synthetic(64, 1)
    x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
    n, c = x_train.shape
    out += [repr(x_train.shape), repr(y_train.min()), repr(y_train.max()), n, c]

    weights = torch.randn(64, 10) / math.sqrt(64)
    weights.requires_grad_()
    bias = torch.zeros(10, requires_grad=True)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    xb = x_train[0:bs]
    preds = model(xb)
    out += [str(preds[0]).split("grad_fn")[1], repr(preds.shape)]
    loss_func = nll
    yb = y_train[0:bs]
    out += [repr(loss_func(preds, yb)), repr(accuracy(preds, yb))]
    for _ in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    out += [loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item()]

    loss_func = F.cross_entropy

    def model2(xb):
        return xb @ weights + bias
    out.append(repr(loss_func(model2(xb), yb)))

    for cls in (MnistLogistic, MnistLogistic2):
        model = cls()
        out.append(repr(loss_func(model(xb), yb)))

        def fit_manual(model):
            for _ in range(epochs):
                for i in range((n - 1) // bs + 1):
                    xb, yb = x_train[i * bs: i * bs + bs], y_train[i * bs: i * bs + bs]
                    loss = loss_func(model(xb), yb)
                    loss.backward()
                    with torch.no_grad():
                        for p in model.parameters():
                            p -= p.grad * lr
                        model.zero_grad()
        fit_manual(model)
        out.append(loss_func(model(xb), yb).item())

    model, opt = MnistLogistic2(), None
    opt = optim.SGD(model.parameters(), lr=lr)
    train_ds = TensorDataset(x_train, y_train)
    for _ in range(epochs):
        for i in range((n - 1) // bs + 1):
            xb, yb = train_ds[i * bs: i * bs + bs]
            loss_func(model(xb), yb).backward()
            opt.step()
            opt.zero_grad()
    out.append(loss_func(model(xb), yb).item())

    valid_ds = TensorDataset(x_valid, y_valid)
    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    model = MnistLogistic2()
    opt = optim.SGD(model.parameters(), lr=lr)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl, out)

    model = MnistCNN()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl, out)

    model = nn.Sequential(
        Lambda(preprocess_view),
        nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    out.append(str(model).replace(str(model[0].func), "f"))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl, out)

    train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    valid_dl = WrappedDataLoader(valid_dl, preprocess)
    model = nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 10, kernel_size=3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    fit(epochs, model, loss_func, opt, train_dl, valid_dl, out)
    out.append(len(train_dl))
    return out


def preprocess_view(x):
    return x.view(-1, 1, 8, 8)
