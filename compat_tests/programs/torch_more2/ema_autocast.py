"""Training tricks from popular repos: gradient accumulation over micro-batches inside
torch.autocast(device_type="cpu", dtype=torch.bfloat16), the loss divided by the accumulation steps, gradient
clipping, an exponential moving average of the weights with swa_utils.AveragedModel (get_ema_multi_avg_fn,
use_buffers=True), update_bn over a DataLoader, the dtypes autocast gives, and a warmup + cosine LambdaLR."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU())
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(5)
    x = torch.randn(192, 8)
    y = (x[:, :3] * torch.tensor([1.0, -2.0, 0.5])).argmax(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = Net()
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.95), use_buffers=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    total_steps, warmup = 6, 2

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total_steps - warmup)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    accum = 4
    out = []
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        probe = model(x[:4])
        out += [str(probe.dtype), str(model.body[0](x[:2]).dtype), str(F.softmax(probe, 1).dtype),
                str(torch.mm(x[:2], x[:2].T).dtype), str(F.cross_entropy(probe, y[:4]).dtype)]
    for step, (xb, yb) in enumerate(loader):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = model(xb)
            loss = F.cross_entropy(logits, yb) / accum
        loss.backward()
        if (step + 1) % accum == 0:
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            sched.step()
            ema.update_parameters(model)
            out += [loss.item() * accum, norm.item(), sched.get_last_lr()[0]]
    out.append(ema.n_averaged.item())
    out += [ema.module.head.bias.sum().item(), ema.module.body[1].running_mean.sum().item()]
    update_bn(DataLoader(TensorDataset(x), batch_size=64), ema)
    out += [ema.module.body[1].running_mean.sum().item(), ema.module.body[1].running_var.sum().item(),
            ema.module.body[1].num_batches_tracked.item()]
    ema.eval()
    model.eval()
    with torch.no_grad():
        out += [(ema(x).argmax(1) == y).float().mean().item(), (model(x).argmax(1) == y).float().mean().item()]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            # bfloat16 results of trained weights: a float32 round-off difference can flip a rounding, so only
            # the dtype and the predicted classes are compared.
            low = model(x[:8])
            out += [str(low.dtype)] + low.argmax(1).tolist()
    return out
