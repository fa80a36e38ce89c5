"""What a "model summary" cell in a notebook prints: a model with repeated blocks in a ModuleList (collapsed by
torch's repr), an OrderedDict Sequential, TransformerEncoder / MultiheadAttention / GRU / Conv reprs, parameter
counts per module (trainable and frozen), a torchinfo-like table of output shapes from forward hooks, tensors of
several dtypes (float16, bfloat16, complex64, int8, uint8, bool, empty, 0-d, big ones), torch.finfo / iinfo, an
optimizer with two parameter groups and the repr of a scheduler's state dict values."""

from collections import OrderedDict

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Dropout(p=0.1), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(OrderedDict([
            ("conv", nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1, bias=False)),
            ("bn", nn.BatchNorm2d(8, momentum=0.05)),
            ("act", nn.ReLU(inplace=True)),
            ("pool", nn.AdaptiveAvgPool2d((2, 2))),
        ]))
        self.blocks = nn.ModuleList([Block(32) for _ in range(3)])
        self.extra = nn.ModuleList([Block(32), nn.Identity(), Block(32)])
        self.rnn = nn.GRU(32, 16, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1)
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True, kdim=16, vdim=16)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 2, dim_feedforward=24, batch_first=True,
                                                                    norm_first=True), num_layers=2,
                                         enable_nested_tensor=False)
        self.head = nn.Linear(32, 5)
        self.emb = nn.Embedding(10, 4, padding_idx=0, max_norm=1.0)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.params = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(3, 2))])

    def forward(self, img):
        x = self.stem(img).flatten(1)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def main():
    torch.manual_seed(0)
    out = []
    net = Net()
    out.append(str(net))
    out.append(repr(net.blocks))
    out.append(repr(net.params))
    net.stem.requires_grad_(False)
    total = sum(p.numel() for p in net.parameters())
    trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
    out += [total, trainable]
    for name, module in net.named_children():
        out.append(f"{name:<8}{type(module).__name__:<20}{sum(p.numel() for p in module.parameters()):>8,}")

    shapes = []
    hooks = [m.register_forward_hook(lambda m, i, o: shapes.append(f"{type(m).__name__}: {tuple(o.shape)}"))
             for m in net.modules() if not list(m.children())]
    net.eval()
    with torch.no_grad():
        y = net(torch.randn(2, 3, 8, 8))
    for h in hooks:
        h.remove()
    out += shapes + [str(y.shape), str(y.dtype), repr(y.round(decimals=3))]

    tensors = [
        torch.linspace(-1, 1, 5, dtype=torch.float16),
        torch.linspace(-1, 1, 5, dtype=torch.bfloat16),
        torch.tensor([1 + 2j, -0.5j], dtype=torch.complex64),
        torch.tensor([-3, 7], dtype=torch.int8),
        torch.tensor([200, 3], dtype=torch.uint8),
        torch.tensor([[True, False], [False, True]]),
        torch.empty(0, 3),
        torch.tensor(3.25, dtype=torch.float64),
        torch.arange(2000, dtype=torch.float32).reshape(40, 50) / 7,
        torch.tensor([1e-8, 1.0, 1e8]),
        torch.tensor([float("nan"), float("inf"), -float("inf"), 0.5]),
        torch.zeros(2, 3, dtype=torch.int64),
        torch.tensor([0.1, 0.25], requires_grad=True) * 2,
    ]
    out += [repr(t) for t in tensors]
    out += [str(torch.finfo(torch.float16)), str(torch.finfo(torch.bfloat16)), str(torch.iinfo(torch.int16)),
            torch.finfo(torch.float32).eps, torch.finfo().tiny, str(torch.get_default_dtype())]

    decay, no_decay = [], []
    for name, p in net.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim < 2 or "norm" in name or name.endswith(".bias") else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-4, betas=(0.9, 0.95), fused=None)
    out += [repr(opt), len(decay), len(no_decay)]
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    out.append(str({k: v for k, v in sorted(sched.state_dict().items())}))
    return out
