"""More of the errors and warnings from training-loop debugging threads: a DataLoader collating samples of different
sizes, integer inputs to a float Linear, assigning a plain tensor to a parameter slot, module names with dots,
missing attributes, requires_grad on integer tensors, optimizer misuse (duplicate parameters, a state dict of
another optimizer layout, an unknown option), a scheduler stepped before the optimizer, implicit-dim softmax,
.grad of a non-leaf tensor, view with an impossible shape, and torch.tensor of a list of tensors; warnings are
captured with warnings.catch_warnings and their category and message printed."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


def caught(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 - the program reports whatever the framework raises
            result = f"{type(e).__name__}: {e}"
        else:
            result = f"ok {result}"
    # torch's C++ warnings end in "(Triggered internally at <source file:line>)", which depends on torch's build
    return [result] + [f"{w.category.__name__}: {str(w.message).split(' (Triggered internally')[0]}" for w in seen]


def main():
    torch.manual_seed(0)
    out = []
    ragged = [torch.ones(3), torch.ones(4)]
    out += caught(lambda: next(iter(DataLoader(ragged, batch_size=2))))
    out += caught(lambda: next(iter(DataLoader([(torch.ones(2, 2), 1), (torch.ones(2, 3), 0)], batch_size=2))))
    lin = nn.Linear(3, 2)
    out += caught(lambda: lin(torch.arange(6).view(2, 3)))
    out += caught(lambda: lin(torch.ones(2, 3, dtype=torch.float64)))

    def assign_plain():
        lin.weight = torch.zeros(2, 3)
    out += caught(assign_plain)

    def dotted():
        m = nn.Module()
        m.add_module("a.b", nn.ReLU())
    out += caught(dotted)
    out += caught(lambda: nn.ModuleDict({"x.y": nn.ReLU()}))
    out += caught(lambda: lin.missing)

    def buffer_clash():
        lin.register_buffer("weight", torch.zeros(1))
    out += caught(buffer_clash)
    out += caught(lambda: torch.arange(3).requires_grad_())
    out += caught(lambda: torch.zeros(3, dtype=torch.long, requires_grad=True))

    out += caught(lambda: torch.optim.SGD([lin.weight, lin.weight], lr=0.1))
    out += caught(lambda: torch.optim.SGD([{"params": [lin.weight]}, {"params": [lin.weight, lin.bias]}], lr=0.1))
    out += caught(lambda: torch.optim.Adam(lin.parameters(), lr=-1))
    out += caught(lambda: torch.optim.Adam(lin.parameters(), betas=(1.0, 0.9)))
    out += caught(lambda: torch.optim.SGD(lin.parameters()))
    out += caught(lambda: torch.optim.SGD(lin.parameters(), lr=0.1, nesterov=True))

    opt_a = torch.optim.Adam([{"params": [lin.weight]}, {"params": [lin.bias]}], lr=0.1)
    opt_b = torch.optim.Adam(lin.parameters(), lr=0.1)
    out += caught(lambda: opt_b.load_state_dict(opt_a.state_dict()))
    opt_c = torch.optim.Adam([{"params": [lin.bias]}, {"params": [lin.weight]}], lr=0.1)
    out += caught(lambda: opt_c.load_state_dict(opt_a.state_dict()))

    def scheduler_first():
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        sched.step()
        return sched.get_last_lr()
    out += caught(scheduler_first)
    out += caught(lambda: F.softmax(torch.ones(2, 3)).sum().item())
    out += caught(lambda: F.log_softmax(torch.ones(3)).sum().item())

    def non_leaf_grad():
        a = torch.ones(2, requires_grad=True)
        b = a * 2
        b.sum().backward()
        return b.grad
    out += caught(non_leaf_grad)
    out += caught(lambda: torch.arange(20).view(3, -1))
    out += caught(lambda: torch.arange(20).reshape(6, 4))
    out += caught(lambda: torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]).tolist())
    out += caught(lambda: torch.tensor([torch.ones(2), torch.ones(2)]))
    out += caught(lambda: float(torch.ones(2)))
    out += caught(lambda: nn.Sequential(nn.Linear(2, 2))[3])
    out += caught(lambda: nn.Dropout(p=1.5))
    out += caught(lambda: nn.Conv2d(4, 6, 3, groups=4))
    out += caught(lambda: nn.MultiheadAttention(10, 3))
    out += caught(lambda: nn.LSTM(3, 4, dropout=0.5)(torch.ones(2, 1, 3))[0].shape)
    return out
