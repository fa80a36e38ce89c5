"""Optimizers and schedules seen in training scripts: RMSprop/Adagrad/Adamax/NAdam/RAdam on parameter groups,
add_param_group mid-training, ReduceLROnPlateau on a validation loss, CosineAnnealingWarmRestarts stepped with
fractional epochs, SequentialLR(LinearLR warmup, ExponentialLR), ChainedScheduler, CyclicLR, PolynomialLR, and the
optimizer state_dict layout."""

import warnings

import torch
from torch import nn
from torch.optim import lr_scheduler


def run(optimizer_class, kwargs, steps=8):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = optimizer_class([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.005}],
                                **kwargs)
    x, y = torch.randn(32, 3), torch.randn(32, 1)
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    state = optimizer.state_dict()
    return losses + [",".join(sorted(state["state"][0])), len(state["param_groups"]),
                     ",".join(sorted(k for k in state["param_groups"][0] if k != "params"))]


def main():
    warnings.simplefilter("ignore")
    out = []
    for cls, kwargs in [(torch.optim.RMSprop, {"lr": 0.01, "momentum": 0.9, "centered": True}),
                        (torch.optim.Adagrad, {"lr": 0.1, "lr_decay": 0.01}), (torch.optim.Adamax, {"lr": 0.02}),
                        (torch.optim.NAdam, {"lr": 0.01, "weight_decay": 0.01}), (torch.optim.RAdam, {"lr": 0.01}),
                        (torch.optim.Adam, {"lr": 0.01, "amsgrad": True}), (torch.optim.Adadelta, {"lr": 1.0})]:
        out += run(cls, kwargs)
    torch.manual_seed(1)
    model = nn.Linear(2, 1)
    extra = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    plateau = lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1, threshold=0.05)
    x, y = torch.randn(16, 2), torch.randn(16, 1)
    for epoch in range(10):
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        plateau.step(loss.item() if epoch % 3 else 1.0)
        out += [loss.item(), optimizer.param_groups[0]["lr"]]
        if epoch == 4:
            optimizer.add_param_group({"params": extra.parameters(), "lr": 0.05})
    out.append(len(optimizer.param_groups))

    def schedule(make, steps=12, fractional=False):
        opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
        sched = make(opt)
        lrs = []
        for i in range(steps):
            opt.step()
            if fractional:
                sched.step(i / 3)
            else:
                sched.step()
            lrs.append(opt.param_groups[0]["lr"])
        return lrs

    out += schedule(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001))
    out += schedule(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2), fractional=True)
    out += schedule(lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
                                                            lr_scheduler.ExponentialLR(o, gamma=0.9)], milestones=[4]))
    out += schedule(lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
                                                             lr_scheduler.StepLR(o, step_size=2, gamma=0.7)]))
    out += schedule(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"))
    out += schedule(lambda o: lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0))
    out += schedule(lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=12, anneal_strategy="linear"))
    return out


if __name__ == "__main__":
    print(main())
