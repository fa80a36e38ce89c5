"""A ConvNeXt-style image classifier (timm style): a patchify stem, blocks of depthwise 3x3 Conv2d (groups=C),
LayerNorm over channels by permuting to channels-last, pointwise nn.Linear MLP with GELU, a learned layer-scale
gamma, DropPath (per-sample stochastic depth from x.new_empty(...).bernoulli_(keep).div_(keep)), a channels-first
LayerNorm written with F.layer_norm in the downsampling layers, trunc_normal_ init via model.apply, and
layer-wise learning-rate decay: AdamW parameter groups built from parameter names, with no weight decay on norms,
biases and gammas."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def drop_path(x, drop_prob, training):
    if drop_prob == 0.0 or not training:
        return x
    keep = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    mask = x.new_empty(shape).bernoulli_(keep)
    return x * mask.div_(keep)


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an NCHW tensor."""

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, ls_init=1e-1):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=3, padding=1, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(ls_init * torch.ones(dim))
        self.drop_path = drop_path

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x).permute(0, 2, 3, 1)
        x = self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        x = (self.gamma * x).permute(0, 3, 1, 2)
        return shortcut + drop_path(x, self.drop_path, self.training)


class ConvNeXt(nn.Module):
    def __init__(self, dims=(8, 16), depths=(2, 2), n_classes=4, drop_path_rate=0.2):
        super().__init__()
        self.downsample_layers = nn.ModuleList()
        self.downsample_layers.append(nn.Sequential(nn.Conv2d(3, dims[0], 2, stride=2), LayerNorm2d(dims[0])))
        for i in range(len(dims) - 1):
            self.downsample_layers.append(nn.Sequential(LayerNorm2d(dims[i], eps=1e-6),
                                                        nn.Conv2d(dims[i], dims[i + 1], 2, stride=2)))
        rates = [r.item() for r in torch.linspace(0, drop_path_rate, sum(depths))]
        self.stages = nn.ModuleList()
        cur = 0
        for i, depth in enumerate(depths):
            self.stages.append(nn.Sequential(*[Block(dims[i], rates[cur + j]) for j in range(depth)]))
            cur += depth
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], n_classes)
        self.apply(self._init_weights)
        self.head.weight.data.mul_(0.5)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.constant_(m.bias, 0)

    def forward(self, x):
        for down, stage in zip(self.downsample_layers, self.stages):
            x = stage(down(x))
        return self.head(self.norm(x.mean([-2, -1])))


def layer_id(name, n_layers):
    if name.startswith("downsample_layers.0"):
        return 0
    if name.startswith("stages"):
        return int(name.split(".")[1]) + 1
    return n_layers - 1


def param_groups_lrd(model, weight_decay, layer_decay):
    n_layers = len(model.stages) + 2
    scales = [layer_decay ** (n_layers - 1 - i) for i in range(n_layers)]
    groups = {}
    for name, p in model.named_parameters():
        no_decay = p.ndim == 1 or name.endswith(".gamma")
        lid = layer_id(name, n_layers)
        key = f"layer_{lid}_{'no_decay' if no_decay else 'decay'}"
        if key not in groups:
            groups[key] = {"params": [], "weight_decay": 0.0 if no_decay else weight_decay, "lr_scale": scales[lid],
                           "names": []}
        groups[key]["params"].append(p)
        groups[key]["names"].append(name)
    return list(groups.values())


def main():
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(11)
    x = torch.randn(16, 3, 16, 16, generator=g)
    y = torch.randint(0, 4, (16,), generator=g)
    x = x + y.view(-1, 1, 1, 1) * 0.3
    model = ConvNeXt()
    groups = param_groups_lrd(model, weight_decay=0.05, layer_decay=0.75)
    out = [len(groups), " ".join(sorted(n for grp in groups for n in grp["names"] if grp["weight_decay"] == 0))]
    for grp in groups:
        del grp["names"]
    opt = torch.optim.AdamW(groups, lr=4e-3, betas=(0.9, 0.999))
    for grp in opt.param_groups:
        grp["lr"] = grp["lr"] * grp["lr_scale"]
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    for _ in range(10):
        model.train()
        loss = crit(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(x)
    out += [logits.sum().item(), logits.abs().max().item(), (logits.argmax(1) == y).float().mean().item()]
    out += [grp["lr"] for grp in opt.param_groups]
    out.append(model.stages[1][1].gamma.abs().sum().item())
    return out
