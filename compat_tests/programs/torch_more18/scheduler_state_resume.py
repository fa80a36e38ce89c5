"""Learning-rate schedules as a fine-tuning script wires them: LambdaLR with one lambda per parameter group
(warmup then inverse square root), MultiplicativeLR, PolynomialLR, ReduceLROnPlateau in "max" mode on a validation
accuracy with cooldown, min_lr per group and threshold_mode="abs", ChainedScheduler and SequentialLR; each
scheduler's get_last_lr() as it goes, its state_dict() keys, a mid-run state_dict / load_state_dict round trip into
fresh optimizer + scheduler objects (the resumed schedule must continue where the first left off), and the
warnings torch gives for stepping the scheduler before the optimizer."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import lr_scheduler


def warmup_rsqrt(step, warmup=3):
    step = max(step, 1)
    return min(step / warmup, (warmup / step) ** 0.5)


def build(kind, opt):
    if kind == "lambda":
        return lr_scheduler.LambdaLR(opt, lr_lambda=[warmup_rsqrt, lambda e: 0.9 ** e])
    if kind == "multiplicative":
        return lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.95 if e % 2 else 0.8)
    if kind == "poly":
        return lr_scheduler.PolynomialLR(opt, total_iters=6, power=1.5)
    if kind == "chained":
        return lr_scheduler.ChainedScheduler([lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=4),
                                              lr_scheduler.ExponentialLR(opt, gamma=0.9)])
    if kind == "sequential":
        return lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt, factor=0.3, total_iters=2),
                                               lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=1e-4)],
                                         milestones=[3])
    if kind == "multistep":
        return lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.5)
    raise ValueError(kind)


def make(kind):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.05}],
                          lr=0.1, momentum=0.9)
    return model, opt, build(kind, opt)


def fit(model, opt, sched, x, y, epochs, record):
    for _ in range(epochs):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        record += [loss.item(), *sched.get_last_lr()]


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 4)
    y = (x[:, 0] > x[:, 1]).long()
    out = []
    for kind in ("lambda", "multiplicative", "poly", "chained", "sequential", "multistep"):
        model, opt, sched = make(kind)
        fit(model, opt, sched, x, y, 3, out)
        keys = sorted(sched.state_dict())
        out.append(kind + ":" + ",".join(keys))
        saved = (model.state_dict(), opt.state_dict(), sched.state_dict())
        straight = []
        fit(model, opt, sched, x, y, 4, straight)
        model2, opt2, sched2 = make(kind)
        model2.load_state_dict(saved[0])
        opt2.load_state_dict(saved[1])
        sched2.load_state_dict(saved[2])
        resumed = []
        fit(model2, opt2, sched2, x, y, 4, resumed)
        out += straight
        out.append(max(abs(a - b) for a, b in zip(straight, resumed)))
        out.append(getattr(sched2, "last_epoch", -99))
        out.append(str([g["initial_lr"] for g in opt2.param_groups]))

    # ReduceLROnPlateau driven by a validation accuracy
    torch.manual_seed(1)
    model = nn.Linear(4, 2)
    opt = torch.optim.Adam([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.02}], lr=0.05)
    plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.3, patience=1, threshold=0.02,
                                             threshold_mode="abs", cooldown=1, min_lr=[1e-3, 5e-3])
    xv, yv = torch.randn(30, 4), torch.randint(0, 2, (30,))
    for _ in range(12):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        plateau.step(acc)
        out += [loss.item(), acc, *plateau.get_last_lr(), plateau.num_bad_epochs, plateau.cooldown_counter]
    state = plateau.state_dict()
    out.append(",".join(sorted(state)))
    out += [state["best"], state["last_epoch"], str(state["min_lrs"])]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = nn.Parameter(torch.zeros(2))
        o = torch.optim.SGD([p], lr=0.1)
        s = lr_scheduler.StepLR(o, step_size=1, gamma=0.5)
        s.step()
        o.step()
    out += [str(w.category.__name__) + ": " + str(w.message)[:80] for w in caught]
    out.append(str(s.get_last_lr()))
    return out


if __name__ == "__main__":
    print(main())
