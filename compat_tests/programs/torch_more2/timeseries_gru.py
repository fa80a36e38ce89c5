"""Time-series forecasting: a noisy seasonal series standardized, cut into sliding windows with Tensor.unfold,
a GRU encoder with a linear head predicting the next 3 steps, HuberLoss and MSELoss, AdamW with
ReduceLROnPlateau on a validation loss, and an autoregressive rollout."""

import math

import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, hidden=16, horizon=3):
        super().__init__()
        self.gru = nn.GRU(input_size=2, hidden_size=hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, horizon))

    def forward(self, x, h=None):
        y, h = self.gru(x, h)
        return self.head(y[:, -1]), h


def main():
    torch.manual_seed(3)
    t = torch.arange(400, dtype=torch.float32)
    series = torch.sin(2 * math.pi * t / 24) + 0.3 * torch.cos(2 * math.pi * t / 7) + 0.1 * torch.randn(400)
    mean, std = series[:300].mean(), series[:300].std()
    z = (series - mean) / std
    phase = (t % 24) / 24
    window, horizon = 20, 3
    windows = z.unfold(0, window + horizon, 2)                 # (n, 23)
    phases = phase.unfold(0, window + horizon, 2)
    x = torch.stack([windows[:, :window], phases[:, :window]], dim=-1)
    y = windows[:, window:]
    n_train = int(0.8 * len(x))
    x_train, y_train, x_val, y_val = x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    model = Forecaster()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=1e-2)
    huber, mse = nn.HuberLoss(delta=0.5), nn.MSELoss()
    out = [str(tuple(windows.shape)), str(windows.stride())]
    for _epoch in range(6):
        model.train()
        perm = torch.randperm(n_train)
        for i in range(0, n_train, 32):
            idx = perm[i:i + 32]
            pred, _ = model(x_train[idx])
            loss = huber(pred, y_train[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            out.append(loss.item())
        model.eval()
        with torch.no_grad():
            val_pred, _ = model(x_val)
            val_loss = mse(val_pred, y_val)
        sched.step(val_loss)
        out += [val_loss.item(), opt.param_groups[0]["lr"]]
    out.append(str(sched.get_last_lr()))
    # Autoregressive rollout keeping the GRU state between steps.
    with torch.no_grad():
        ctx = x_val[:1]
        pred, h = model(ctx)
        preds = [pred[0, 0]]
        for step in range(5):
            nxt = torch.stack([preds[-1], phase[n_train + step].reshape(())]).view(1, 1, 2)
            pred, h = model(nxt, h)
            preds.append(pred[0, 0])
        out += (torch.stack(preds) * std + mean).tolist()
        out += [h.shape[0], h.norm().item()]
    return out
