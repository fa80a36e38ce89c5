"""A MobileNetV3 / ShuffleNet-style mobile network: inverted residual blocks (1x1 expand, depthwise 3x3 conv,
squeeze-and-excitation with AdaptiveAvgPool2d + Hardsigmoid gating, 1x1 project), ReLU6 and Hardswish, a channel
shuffle (view / transpose / contiguous / flatten), BatchNorm2d with custom eps and momentum, _make_divisible widths,
SGD with Nesterov momentum, then deployment prep: conv+bn fusion with torch.nn.utils.fusion.fuse_conv_bn_eval (the
fused model must give the same outputs in eval mode)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_eval


def _make_divisible(v, divisor=4, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def channel_shuffle(x, groups):
    b, c, h, w = x.size()
    x = x.view(b, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(b, -1, h, w)


class SqueezeExcitation(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)
        self.scale_activation = nn.Hardsigmoid()

    def forward(self, x):
        s = self.fc2(F.relu(self.fc1(self.avgpool(x))))
        return x * self.scale_activation(s)


def conv_bn(cin, cout, k, stride=1, groups=1, act=nn.Hardswish):
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout, eps=0.001, momentum=0.01)]
    if act is not None:
        layers.append(act(inplace=True) if act in (nn.ReLU6, nn.Hardswish) else act())
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    def __init__(self, cin, expand, cout, stride, use_se, act):
        super().__init__()
        hidden = _make_divisible(cin * expand)
        self.use_res = stride == 1 and cin == cout
        self.expand = conv_bn(cin, hidden, 1, act=act)
        self.dw = conv_bn(hidden, hidden, 3, stride, groups=hidden, act=act)
        self.se = SqueezeExcitation(hidden, _make_divisible(hidden // 4)) if use_se else nn.Identity()
        self.project = conv_bn(hidden, cout, 1, act=None)

    def forward(self, x):
        y = self.project(self.se(channel_shuffle(self.dw(self.expand(x)), 2)))
        return x + y if self.use_res else y


class MobileNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.stem = conv_bn(3, 8, 3, 2)
        self.blocks = nn.Sequential(InvertedResidual(8, 2, 8, 1, False, nn.ReLU6),
                                    InvertedResidual(8, 3, 12, 2, True, nn.Hardswish),
                                    InvertedResidual(12, 3, 12, 1, True, nn.Hardswish))
        self.last = conv_bn(12, 24, 1)
        self.classifier = nn.Sequential(nn.Linear(24, 32), nn.Hardswish(inplace=True), nn.Dropout(0.2),
                                        nn.Linear(32, n_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.last(self.blocks(self.stem(x)))
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def fuse(module):
    """Fold each Conv2d + BatchNorm2d pair of the Sequentials into one conv (eval mode)."""
    for child in module.children():
        if isinstance(child, nn.Sequential) and len(child) >= 2 and isinstance(child[0], nn.Conv2d) \
                and isinstance(child[1], nn.BatchNorm2d):
            child[0] = fuse_conv_bn_eval(child[0], child[1])
            child[1] = nn.Identity()
        else:
            fuse(child)


def main():
    torch.manual_seed(5)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(12, 3, 16, 16, generator=g)
    y = torch.randint(0, 3, (12,), generator=g)
    x[:, 0] += y.float().view(-1, 1, 1)
    model = MobileNet()
    out = [_make_divisible(8 * 3), _make_divisible(10), _make_divisible(37, 8)]
    opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9, nesterov=True, weight_decay=4e-5)
    for _ in range(8):
        model.train()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        before = model(x)
        fuse(model)
        after = model(x)
    conv = model.stem[0]
    fused_error = ((after - before).abs().max() / before.abs().max()).item()
    out += [F.cross_entropy(before, y).item(), fused_error < 1e-3, conv.bias is not None, conv.weight.sum().item(),
            conv.bias.sum().item(), conv.weight.requires_grad, model.blocks[1].dw[0].bias.abs().sum().item(),
            str(model.blocks[1].project)]
    bn = model.stem[1]
    out.append(repr(bn))
    return out
