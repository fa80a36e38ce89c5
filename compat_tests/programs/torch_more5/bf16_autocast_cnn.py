"""Mixed precision on the CPU as in the AMP recipe: a CNN (Conv2d, BatchNorm2d, MaxPool2d, AdaptiveAvgPool2d,
Linear) run inside torch.autocast(device_type="cpu", dtype=torch.bfloat16), with the loss computed outside,
torch.amp.GradScaler("cpu", enabled=False) (scale / unscale_ / step / update as no-ops), the dtypes autocast gives
to each layer's output and to ops that stay in float32 or follow their widest input, autocast nested with
enabled=False, torch.is_autocast_enabled, bfloat16 round-off of the logits, and a bfloat16 model by .to()."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def main():
    torch.manual_seed(13)
    g = torch.Generator().manual_seed(13)
    x = torch.randn(16, 1, 8, 8, generator=g)
    y = torch.randint(0, 4, (16,), generator=g)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    out = [scaler.is_enabled(), scaler.get_scale()]
    for _ in range(5):
        opt.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        scaler.step(opt)
        scaler.update()
        out.append(loss.item())
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        conv = model.features[0](x)
        bn = model.features[1](conv)
        mm = x.flatten(1) @ torch.randn(64, 3, generator=g)
        sm = F.softmax(mm, dim=1)
        added = mm + torch.ones(3)
        enabled = torch.is_autocast_enabled("cpu")
        with torch.autocast(device_type="cpu", enabled=False):
            inner = model.fc(torch.ones(2, 16))
            inner_enabled = torch.is_autocast_enabled("cpu")
        logits = model(x)
    out += [str(t.dtype) for t in (conv, bn, mm, sm, added, inner, logits)]
    out += [enabled, inner_enabled, torch.is_autocast_enabled("cpu"), str(torch.get_autocast_dtype("cpu"))]
    out += logits[:2].float().flatten().tolist()
    bf16 = SmallCNN().to(torch.bfloat16)
    bf16.load_state_dict(model.state_dict())
    bf16.eval()
    model.eval()
    with torch.no_grad():
        low = bf16(x.to(torch.bfloat16))
        full = model(x)
    out += [str(low.dtype), str(bf16.fc.weight.dtype), (low.float() - full).abs().max().item() < 0.1]
    out += low[:2].float().flatten().tolist()
    return out
