"""Sharpness-Aware Minimization as in the popular davda54/sam repository: a torch.optim.Optimizer subclass that
wraps a base optimizer class (SGD with Nesterov momentum) and shares its param_groups, keeps the old weights in
self.state[p], climbs to the local worst case by the grad norm (torch.norm of a torch.stack of per-parameter norms,
adaptive variant scaling by |w|), then steps from there; BatchNorm momentum zeroed during the second pass with
model.apply (the repository's disable/enable_running_stats trick), label-smoothed cross-entropy, and an R-Drop
consistency term (two dropout passes, symmetric F.kl_div with log_target=True)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
        if rho < 0.0:
            raise ValueError(f"Invalid rho, should be non-negative: {rho}")
        defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.defaults.update(self.base_optimizer.defaults)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                p.add_(e_w)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        return torch.norm(torch.stack([((torch.abs(p) if group["adaptive"] else 1.0) * p.grad).norm(p=2)
                                       for group in self.param_groups for p in group["params"]
                                       if p.grad is not None]), p=2)


def disable_running_stats(model):
    def _disable(module):
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.backup_momentum = module.momentum
            module.momentum = 0

    model.apply(_disable)


def enable_running_stats(model):
    def _enable(module):
        if isinstance(module, nn.modules.batchnorm._BatchNorm) and hasattr(module, "backup_momentum"):
            module.momentum = module.backup_momentum

    model.apply(_enable)


def make_model():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * 4 * 4, 3))


def rdrop_loss(model, x, y, alpha=0.5):
    logits1, logits2 = model(x), model(x)
    ce = 0.5 * (F.cross_entropy(logits1, y, label_smoothing=0.1) + F.cross_entropy(logits2, y, label_smoothing=0.1))
    lp1, lp2 = F.log_softmax(logits1, -1), F.log_softmax(logits2, -1)
    kl = 0.5 * (F.kl_div(lp1, lp2, reduction="batchmean", log_target=True)
                + F.kl_div(lp2, lp1, reduction="batchmean", log_target=True))
    return ce + alpha * kl, kl


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(24, 1, 8, 8, generator=g)
    y = (x.mean((1, 2, 3)) > 0).long() + (x[:, 0, 0, 0] > 1).long()
    out = []
    for adaptive, rho in ((False, 0.05), (True, 0.5)):
        model = make_model()
        opt = SAM(model.parameters(), torch.optim.SGD, rho=rho, adaptive=adaptive, lr=0.05, momentum=0.9,
                  nesterov=True, weight_decay=5e-4)
        out.append(repr(sorted(opt.defaults)))
        for step in range(4):
            xb, yb = x[step * 6:(step + 1) * 6], y[step * 6:(step + 1) * 6]
            enable_running_stats(model)
            loss, kl = rdrop_loss(model, xb, yb)
            loss.backward()
            opt.first_step(zero_grad=True)
            disable_running_stats(model)
            loss2, _ = rdrop_loss(model, xb, yb)
            loss2.backward()
            opt.second_step(zero_grad=True)
            out += [loss.item(), kl.item(), loss2.item()]
        bn = model[1]
        out += [bn.running_mean.sum().item(), bn.running_var.sum().item(), float(bn.num_batches_tracked),
                bn.momentum, len(opt.state), len(opt.base_optimizer.state)]
        model.eval()
        with torch.no_grad():
            out.append((model(x).argmax(1) == y).float().mean().item())
    try:
        SAM(make_model().parameters(), torch.optim.SGD, rho=-1.0, lr=0.1)
    except ValueError as e:
        out.append(str(e))
    return out
