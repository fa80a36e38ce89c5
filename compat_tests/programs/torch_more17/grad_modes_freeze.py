"""Autograd modes and freezing, as a "no_grad vs inference_mode vs eval" explainer shows them: nested no_grad /
enable_grad / set_grad_enabled (as a function and as a decorator), inference_mode tensors and the errors of using
them in autograd or updating them in place, in-place ops on leaves that require grad, requires_grad_(False)
freezing of a backbone, an optimizer over filter(lambda p: p.requires_grad), train()/eval() propagating to Dropout
and BatchNorm children, and the frozen weights staying bit-identical."""

import torch
import torch.nn as nn


def caught(fn):
    try:
        result = fn()
    except Exception as e:  # noqa: BLE001 - the program prints whatever the framework raises
        return f"{type(e).__name__}: {e}"
    return f"ok {result}"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(6, 12), nn.BatchNorm1d(12), nn.ReLU(), nn.Dropout(0.3))
        self.head = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3))

    def forward(self, x):
        return self.head(self.backbone(x))


@torch.no_grad()
def evaluate(model, x):
    return model(x).argmax(1)


def main():
    torch.manual_seed(0)
    out = []
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        a = w * 2
        with torch.enable_grad():
            b = w * 2
        with torch.set_grad_enabled(True):
            c = w * 3
    out += [a.requires_grad, b.requires_grad, c.requires_grad, torch.is_grad_enabled()]
    torch.set_grad_enabled(False)
    d = w + 1
    out.append(d.requires_grad)
    torch.set_grad_enabled(True)
    out.append((w + 1).requires_grad)
    out.append(evaluate.__name__)

    with torch.inference_mode():
        inf = torch.ones(3) * 2
        out += [inf.requires_grad, inf.is_inference(), torch.is_inference_mode_enabled()]
    out.append(torch.is_inference_mode_enabled())
    out.append(caught(lambda: (inf * w).sum().backward()))
    out.append(caught(lambda: inf.add_(1)))
    out.append(caught(lambda: inf.requires_grad_()))
    out.append(caught(lambda: (inf.clone() * w).sum().item()))
    with torch.inference_mode(mode=False):
        out.append(torch.ones(1).is_inference())

    def leaf_inplace():
        w.add_(1)
    out.append(caught(leaf_inplace))
    out.append(caught(lambda: w.zero_()))
    with torch.no_grad():
        w.add_(1)  # the way optimizers update leaves
    out.append(str(w))
    out.append(w.is_leaf)
    out.append(caught(lambda: (w * 2).requires_grad_(False)))
    out.append(caught(lambda: w.detach().requires_grad_(True).is_leaf))

    torch.manual_seed(1)
    model = Net()
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    out.append(str(trainable))
    out.append(sum(p.numel() for p in model.parameters() if p.requires_grad))
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
    out.append(len(opt.param_groups[0]["params"]))
    frozen_before = model.backbone[0].weight.clone()

    x = torch.randn(16, 6)
    y = torch.randint(0, 3, (16,))
    model.train()
    out.append(str([m.training for m in model.modules()]))
    for _ in range(5):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += [torch.equal(frozen_before, model.backbone[0].weight), model.backbone[0].weight.grad is None,
            model.backbone[1].running_mean.abs().sum().item(), int(model.backbone[1].num_batches_tracked)]

    model.eval()
    out.append(str([m.training for m in model.modules()]))
    with torch.no_grad():
        e1, e2 = model(x), model(x)
    out += [torch.equal(e1, e2), e1.requires_grad, str(evaluate(model, x))]
    model.head.train()
    out.append(str([m.training for m in model.modules()]))
    with torch.no_grad():
        out.append(torch.equal(model(x), model(x)))
    model.requires_grad_(True)
    out.append(sum(p.requires_grad for p in model.parameters()))
    return out
