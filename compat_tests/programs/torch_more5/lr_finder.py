"""A learning-rate finder and the one-cycle policy (the fastai / pytorch-lr-finder recipe): an exponential LR
sweep with LambdaLR over a copied model (copy.deepcopy, state_dict restore), loss smoothing with a bias-corrected
running average, stopping on divergence, the steepest-gradient suggestion with numpy, then OneCycleLR
(three_phase, linear anneal, cycle_momentum on SGD), CyclicLR (triangular2 / exp_range, scale_fn), and
ReduceLROnPlateau in mode="max" on a validation accuracy with threshold_mode="abs" and cooldown; get_last_lr,
the optimizer's momentum per step, and a scheduler state_dict round trip."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import lr_scheduler


def make_model():
    return nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 3))


def lr_sweep(model, x, y, start_lr=1e-5, end_lr=10.0, steps=20):
    state = copy.deepcopy(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=start_lr, momentum=0.9)
    gamma = (end_lr / start_lr) ** (1 / (steps - 1))
    sched = lr_scheduler.LambdaLR(opt, lambda i: gamma ** i)
    lrs, losses, avg, best = [], [], 0.0, float("inf")
    for i in range(steps):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        avg = 0.98 * avg + 0.02 * loss.item()
        smoothed = avg / (1 - 0.98 ** (i + 1))
        lrs.append(sched.get_last_lr()[0])
        losses.append(smoothed)
        best = min(best, smoothed)
        sched.step()
        if smoothed > 4 * best or not np.isfinite(smoothed):
            break
    model.load_state_dict(state)
    grads = np.gradient(np.array(losses))
    return lrs, losses, lrs[int(grads.argmin())]


def main():
    torch.manual_seed(41)
    g = torch.Generator().manual_seed(41)
    x = torch.randn(64, 6, generator=g)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    xv = torch.randn(32, 6, generator=g)
    yv = (xv[:, 0] > 0).long() + (xv[:, 1] > 0.5).long()
    model = make_model()
    before = [p.clone() for p in model.parameters()]
    lrs, losses, suggestion = lr_sweep(model, x, y)
    out = [float(len(lrs)), suggestion, *lrs[:5], *losses]
    out.append(max((a - b).abs().max().item() for a, b in zip(before, model.parameters())))
    # One-cycle training.
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=12, pct_start=0.3, anneal_strategy="linear",
                                    three_phase=True, div_factor=10.0, final_div_factor=100.0)
    for _ in range(12):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0], opt.param_groups[0]["momentum"]]
    # Cyclic schedules on Adam-free SGD and on RMSprop (no momentum cycling).
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.8)
    cyc = lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2",
                                base_momentum=0.8, max_momentum=0.95)
    for _ in range(10):
        cyc.step()
        out += [cyc.get_last_lr()[0], opt.param_groups[0]["momentum"]]
    opt2 = torch.optim.RMSprop(model.parameters(), lr=0.01)
    cyc2 = lr_scheduler.CyclicLR(opt2, 0.001, 0.01, step_size_up=2, step_size_down=4, mode="exp_range", gamma=0.9,
                                 cycle_momentum=False)
    fn = lr_scheduler.CyclicLR(opt2, 0.001, 0.01, step_size_up=2, scale_fn=lambda c: 1 / c, scale_mode="cycle",
                               cycle_momentum=False)
    for _ in range(8):
        cyc2.step()
        fn.step()
        out += [cyc2.get_last_lr()[0], fn.get_last_lr()[0]]
    # Plateau on a validation accuracy.
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.05,
                                             threshold_mode="abs", cooldown=1, min_lr=1e-4)
    for _ in range(10):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        plateau.step(acc)
        out += [loss.item(), acc, plateau.get_last_lr()[0], float(plateau.num_bad_epochs)]
    state = plateau.state_dict()
    restored = lr_scheduler.ReduceLROnPlateau(opt, mode="max")
    restored.load_state_dict(state)
    out += [restored.best, float(restored.cooldown_counter), str(sorted(k for k in state if not k.startswith("_")))]
    return out
