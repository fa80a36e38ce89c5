"""A 2018-era tutorial run on today's torch, with the deprecation warnings it prints: Variable wrappers,
size_average / reduce loss arguments, F.sigmoid / F.tanh / F.upsample, nn.Softmax() without dim, torch.range,
torch.meshgrid without indexing, the non-underscore nn.init.xavier_uniform, clip_grad_norm, nn.utils.weight_norm,
torch.FloatTensor / LongTensor constructors, .data updates in a hand-written SGD step, x.T on a 3-D tensor, and
mse_loss with a broadcast target; every warning's category and message are recorded with catch_warnings and the
training losses compared."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class OldNet(nn.Module):
    def __init__(self):
        super(OldNet, self).__init__()  # noqa: UP008 - the old tutorials' spelling
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.utils.weight_norm(nn.Linear(6, 3))
        self.softmax = nn.Softmax()

    def forward(self, x):
        x = F.tanh(self.fc1(x))
        return self.softmax(self.fc2(x))


def record(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = fn()
    # torch's C++ warnings end in "(Triggered internally at <source file:line>)", which depends on torch's build
    return value, [f"{w.category.__name__}: {str(w.message).split(' (Triggered internally')[0]}" for w in seen]


def main():
    torch.manual_seed(8)
    out = []
    net, msgs = record(OldNet)
    out += msgs
    w, msgs = record(lambda: nn.init.xavier_uniform(net.fc1.weight))
    out += msgs + [w.sum().item()]
    x = Variable(torch.randn(10, 4))
    y = Variable(torch.LongTensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]), requires_grad=False)
    out += [type(x).__name__, str(x.dtype), str(y.dtype), str(torch.FloatTensor(2, 3).shape),
            str(torch.FloatTensor([1, 2]))]
    lr = 0.5
    for step in range(4):
        probs, msgs = record(lambda: net(x))
        if step == 0:
            out += msgs
        loss, msgs = record(lambda p=probs: F.nll_loss(torch.log(p), y, size_average=True))
        if step == 0:
            out += msgs
        net.zero_grad()
        loss.backward()
        norm, msgs = record(lambda: nn.utils.clip_grad_norm(net.parameters(), 5.0))
        if step == 0:
            out += msgs
        for p in net.parameters():
            p.data.add_(p.grad.data, alpha=-lr)
        out += [loss.data.item(), float(norm)]

    for fn in (lambda: F.sigmoid(torch.zeros(2)).sum(),
               lambda: F.upsample(torch.ones(1, 1, 2, 2), scale_factor=2).shape,
               lambda: F.upsample_bilinear(torch.ones(1, 1, 2, 2), scale_factor=2).sum(),
               lambda: torch.range(0, 4).sum(),
               lambda: torch.meshgrid(torch.arange(2), torch.arange(3))[0].shape,
               lambda: torch.ones(2, 3, 4).T.shape,
               lambda: F.mse_loss(torch.zeros(4, 1), torch.ones(4)),
               lambda: F.l1_loss(torch.zeros(3), torch.ones(3), reduce=False).shape,
               lambda: nn.MSELoss(size_average=False)(torch.zeros(3), torch.ones(3)),
               lambda: F.softmax(torch.ones(3), dim=None).sum(),
               lambda: F.log_softmax(torch.ones(2, 2, 2)).sum(),
               lambda: torch.nn.functional.hardtanh(torch.ones(2) * 3).sum(),
               lambda: torch.tensor([1, 2]).type(torch.FloatTensor).dtype,
               lambda: torch.autograd.Variable(torch.ones(2), volatile=True).requires_grad):
        value, msgs = record(fn)
        out += [str(value)] + msgs
    return out
