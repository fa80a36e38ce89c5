"""A Kaggle-style training loop with gradient accumulation: OneCycleLR stepped per optimizer step (three_phase,
cycle_momentum on AdamW's betas), clip_grad_norm_ returning the total norm (inf norm and 2-norm, foreach), loss
scaled by the accumulation steps, then a second stage with SequentialLR(LinearLR warmup ->
CosineAnnealingWarmRestarts(T_mult=2)) and ChainedScheduler; scheduler/optimizer state_dict round trips and the
optimizer's repr."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.LayerNorm(16), nn.Dropout(0.1), nn.Linear(16, 3))


def main():
    torch.manual_seed(3)
    x = torch.randn(64, 6)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, drop_last=True)
    model = make_model()
    accum = 2
    epochs = 2
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, epochs=epochs,
                                                steps_per_epoch=len(loader) // accum, pct_start=0.25,
                                                anneal_strategy="cos", three_phase=True)
    out = [str(opt), len(loader)]
    for epoch in range(epochs):
        model.train()
        opt.zero_grad(set_to_none=True)
        for i, (xb, yb) in enumerate(loader):
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, foreach=True)
                out.append(norm.item())
                opt.step()
                opt.zero_grad(set_to_none=True)
                sched.step()
                out += [loss.item() * accum, sched.get_last_lr()[0], opt.param_groups[0]["betas"][0]]
        out.append(epoch)
    state = sched.state_dict()
    out += [state["total_steps"], state["_step_count"], state["last_epoch"], str(sorted(state))]

    # stage 2: warmup then warm restarts, SGD with momentum
    opt2 = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    warm = torch.optim.lr_scheduler.LinearLR(opt2, start_factor=0.1, end_factor=1.0, total_iters=3)
    restarts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=2, eta_min=1e-3)
    seq = torch.optim.lr_scheduler.SequentialLR(opt2, schedulers=[warm, restarts], milestones=[3])
    for step in range(10):
        xb, yb = x[step * 6:(step + 1) * 6], y[step * 6:(step + 1) * 6]
        loss = F.cross_entropy(model(xb), yb)
        opt2.zero_grad()
        loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=float("inf"))
        opt2.step()
        seq.step()
        out += [loss.item(), total.item(), seq.get_last_lr()[0], opt2.param_groups[0]["lr"]]
    out.append(str(opt2))

    # fractional epochs for CosineAnnealingWarmRestarts, as its docstring shows
    opt3 = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=0.2)
    cawr = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt3, T_0=3, T_mult=1, eta_min=0.01)
    iters = 4
    for epoch in range(2):
        for i in range(iters):
            opt3.step()
            cawr.step(epoch + i / iters)
            out.append(cawr.get_last_lr()[0])
    out += [cawr.T_cur, cawr.T_i]

    # ChainedScheduler of ExponentialLR and a ConstantLR
    opt4 = torch.optim.SGD([nn.Parameter(torch.zeros(2))], lr=1.0)
    chain = torch.optim.lr_scheduler.ChainedScheduler([
        torch.optim.lr_scheduler.ConstantLR(opt4, factor=0.5, total_iters=2),
        torch.optim.lr_scheduler.ExponentialLR(opt4, gamma=0.9)])
    for _ in range(4):
        opt4.step()
        chain.step()
        out.append(chain.get_last_lr()[0])
    return out
