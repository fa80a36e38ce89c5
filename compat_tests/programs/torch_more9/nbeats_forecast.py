"""N-BEATS for univariate forecasting (as in the philipperemy/n-beats and pytorch-forecasting implementations):
sliding windows cut with Tensor.unfold, a TensorDataset/DataLoader with a seeded generator, generic, trend
(polynomial basis from torch.linspace powers) and seasonality (cos/sin Fourier basis) blocks with theta
projections, doubly residual stacking (backcast subtracted, forecasts summed), an sMAPE loss with a safe divisor
(torch.where), MultiStepLR decay, and evaluation with torch.inference_mode."""

import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def linspace_grid(backcast, forecast):
    t = torch.linspace(-backcast, forecast, backcast + forecast) / (backcast + forecast)
    return t[:backcast], t[backcast:]


class Block(nn.Module):
    def __init__(self, backcast, forecast, theta_dim, basis, hidden=32, share_thetas=False):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(backcast, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.theta_b = nn.Linear(hidden, theta_dim, bias=False)
        self.theta_f = self.theta_b if share_thetas else nn.Linear(hidden, theta_dim, bias=False)
        self.basis = basis
        if basis == "generic":
            self.backcast_fc = nn.Linear(theta_dim, backcast)
            self.forecast_fc = nn.Linear(theta_dim, forecast)
        else:
            tb, tf = linspace_grid(backcast, forecast)
            if basis == "trend":
                powers = torch.arange(theta_dim, dtype=torch.float32)
                self.register_buffer("S_b", tb.unsqueeze(0) ** powers.unsqueeze(1))
                self.register_buffer("S_f", tf.unsqueeze(0) ** powers.unsqueeze(1))
            else:
                k = torch.arange(theta_dim // 2, dtype=torch.float32).unsqueeze(1)
                angles_b = 2 * math.pi * k * tb
                self.register_buffer("S_b", torch.cat([torch.cos(angles_b), torch.sin(angles_b)]))
                angles_f = 2 * math.pi * k * tf
                self.register_buffer("S_f", torch.cat([torch.cos(angles_f), torch.sin(angles_f)]))

    def forward(self, x):
        h = self.fc(x)
        tb, tf = self.theta_b(h), self.theta_f(h)
        if self.basis == "generic":
            return self.backcast_fc(tb), self.forecast_fc(tf)
        return tb.mm(self.S_b), torch.einsum("bp,pt->bt", tf, self.S_f)


class NBeats(nn.Module):
    def __init__(self, backcast, forecast):
        super().__init__()
        self.stacks = nn.ModuleList([
            nn.ModuleList([Block(backcast, forecast, 3, "trend", share_thetas=True) for _ in range(2)]),
            nn.ModuleList([Block(backcast, forecast, 6, "seasonality", share_thetas=True) for _ in range(2)]),
            nn.ModuleList([Block(backcast, forecast, 8, "generic")]),
        ])

    def forward(self, x):
        residual = x
        forecast = torch.zeros(x.size(0), self.stacks[0][0].S_f.size(1))
        parts = []
        for stack in self.stacks:
            stack_forecast = 0
            for block in stack:
                b, f = block(residual)
                residual = residual - b
                stack_forecast = stack_forecast + f
            parts.append(stack_forecast)
            forecast = forecast + stack_forecast
        return residual, forecast, parts


def smape(pred, target):
    denom = pred.abs() + target.abs()
    ratio = torch.where(denom > 0, 2 * (pred - target).abs() / denom.clamp_min(1e-8), torch.zeros_like(denom))
    return ratio.mean()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    t = torch.arange(160, dtype=torch.float32)
    series = 2.0 + 0.01 * t + torch.sin(2 * math.pi * t / 12) + 0.1 * torch.randn(160, generator=g)
    backcast, forecast = 24, 6
    windows = series.unfold(0, backcast + forecast, 3)
    x, y = windows[:, :backcast], windows[:, backcast:]
    n_train = int(0.8 * len(windows))
    loader = DataLoader(TensorDataset(x[:n_train], y[:n_train]), batch_size=16, shuffle=True, generator=g,
                        drop_last=True)
    model = NBeats(backcast, forecast)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3], gamma=0.5)
    out = [windows.shape[0], windows.stride(0), windows.stride(1), float(windows.is_contiguous()), len(loader)]
    for _ in range(4):
        for xb, yb in loader:
            _, pred, _ = model(xb)
            loss = smape(pred, yb) + 0.1 * nn.functional.l1_loss(pred, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        sched.step()
        out.append(sched.get_last_lr()[0])
    model.eval()
    with torch.inference_mode():
        residual, pred, parts = model(x[n_train:])
        out += [smape(pred, y[n_train:]).item(), residual.abs().mean().item(), parts[0].mean().item(),
                parts[1].std().item()]
    return out
