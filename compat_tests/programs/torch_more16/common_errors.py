"""The errors beginners hit, caught and printed as forum posts and debugging guides show them: a Linear fed the wrong
number of features, a view on a non-contiguous tensor, a backward through a freed graph, an in-place change of a saved
tensor (a sigmoid result, a ReLU output) and a zeroed activation that stays in the graph, class targets out of range
and mismatched loss shapes, load_state_dict with missing / unexpected keys and a size mismatch (strict and
non-strict), stacking tensors of different sizes, broadcasting failures, calling .numpy() on a tensor that requires
grad, an optimizer given a non-leaf tensor, an Embedding index out of range and bad conv / LSTM inputs."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.bn = nn.BatchNorm1d(hidden)
        self.fc2 = nn.Linear(hidden, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x))))


def caught(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (mse_loss's size warning: only the errors are compared)
            result = fn()
    except Exception as e:  # noqa: BLE001 - the program reports whatever the framework raises
        return f"{type(e).__name__}: {e}"
    return f"ok {result}"


def main():
    torch.manual_seed(0)
    out = []
    net = Net()
    x = torch.randn(5, 4)
    out.append(caught(lambda: net(torch.randn(5, 3))))
    out.append(caught(lambda: net.fc1(torch.randn(2, 3, 5))))
    out.append(caught(lambda: x.t().view(-1)))
    out.append(caught(lambda: x.t().reshape(-1).shape))
    out.append(caught(lambda: x.view(3, -1)))
    out.append(caught(lambda: x.view(-1, -1)))

    def double_backward():
        y = (net(x) ** 2).sum()
        y.backward()
        y.backward()
    out.append(caught(double_backward))

    def inplace_saved():
        a = torch.randn(3, requires_grad=True)
        b = a.sigmoid()
        b.mul_(2)
        b.sum().backward()
    out.append(caught(inplace_saved))

    def relu_inplace_after_use():
        h = F.relu(net.fc1(x))
        out = net.fc2(h)
        h += 1  # the classic "ReLU output modified" bug
        out.sum().backward()
    out.append(caught(relu_inplace_after_use))

    def overwritten_activation():
        h = net.fc1(x)
        h.zero_()  # still in the graph: backward runs, with zero gradients through fc1
        net.zero_grad()
        net.fc2(F.relu(h)).sum().backward()
        return net.fc1.weight.grad.abs().sum().item(), h.requires_grad, type(h.grad_fn).__name__
    out.append(caught(overwritten_activation))

    def leaf_inplace():
        w = torch.randn(3, requires_grad=True)
        w += 1
    out.append(caught(leaf_inplace))

    out.append(caught(lambda: F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3]))))
    out.append(caught(lambda: F.mse_loss(torch.randn(4, 3), torch.randn(4, 2))))
    out.append(caught(lambda: F.nll_loss(torch.randn(4, 3), torch.randn(4))))
    out.append(caught(lambda: F.binary_cross_entropy(torch.rand(4), torch.rand(5))))

    other = Net(hidden=6)
    out.append(caught(lambda: net.load_state_dict(other.state_dict())))
    state = net.state_dict()
    state["extra.weight"] = torch.zeros(1)
    del state["fc2.bias"]
    out.append(caught(lambda: net.load_state_dict(state)))
    result = net.load_state_dict(state, strict=False)
    out += [str(result), str(result.missing_keys), str(result.unexpected_keys)]

    out.append(caught(lambda: torch.stack([torch.zeros(2, 3), torch.zeros(3, 3)])))
    out.append(caught(lambda: torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)])))
    out.append(caught(lambda: torch.zeros(2, 3) + torch.zeros(4, 1, 2)))
    out.append(caught(lambda: torch.zeros(2, 3) @ torch.zeros(2, 3)))
    out.append(caught(lambda: torch.randn(2, requires_grad=True).numpy()))
    out.append(caught(lambda: torch.optim.SGD([torch.randn(2, requires_grad=True) * 2], lr=0.1)))
    out.append(caught(lambda: torch.arange(5)[7]))
    out.append(caught(lambda: torch.zeros(3).item()))
    out.append(caught(lambda: net(torch.randn(1, 4))))
    out.append(caught(lambda: nn.Embedding(5, 2)(torch.tensor([1, 5]))))
    out.append(caught(lambda: torch.zeros(2, 3).permute(0, 1, 2)))
    out.append(caught(lambda: torch.zeros(2, 3).transpose(0, 2)))
    out.append(caught(lambda: torch.zeros(2, 3).sum(dim=2)))
    out.append(caught(lambda: torch.zeros(2, 3, dtype=torch.long).mean()))
    out.append(caught(lambda: torch.tensor([1, 2]) / torch.tensor([0, 1])))
    out.append(caught(lambda: nn.Conv2d(3, 4, 3)(torch.randn(1, 2, 8, 8))))
    out.append(caught(lambda: nn.Conv2d(3, 4, 3)(torch.randn(1, 3, 2, 2))))
    out.append(caught(lambda: nn.LSTM(4, 3, batch_first=True)(torch.randn(2, 5, 3))))
    return out
