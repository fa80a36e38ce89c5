"""RepVGG structural re-parameterisation (Ding et al.), as in the DingXiaoH/RepVGG repository: training-time blocks
with a 3x3 conv + BN, a 1x1 conv + BN and an identity BN branch are fused into a single 3x3 conv for deployment
(BN folding, F.pad of the 1x1 kernel, an identity kernel built with torch.zeros and index assignment); the model runs
in channels_last memory format (Module.to(memory_format=torch.channels_last), is_contiguous(memory_format=...)), and
the deployed network is evaluated in float16 and bfloat16 and compared with float32."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, k, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout))


def fuse(branch):
    if branch is None:
        return 0, 0
    if isinstance(branch, nn.Sequential):
        kernel, bn = branch[0].weight, branch[1]
    else:
        c = branch.num_features
        kernel = torch.zeros(c, c, 3, 3)
        kernel[torch.arange(c), torch.arange(c), 1, 1] = 1.0
        bn = branch
    std = (bn.running_var + bn.eps).sqrt()
    t = (bn.weight / std).reshape(-1, 1, 1, 1)
    return kernel * t, bn.bias - bn.running_mean * bn.weight / std


class RepBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.dense = conv_bn(cin, cout, 3, stride)
        self.one = conv_bn(cin, cout, 1, stride)
        self.identity = nn.BatchNorm2d(cout) if cin == cout and stride == 1 else None
        self.deployed = None

    def forward(self, x):
        if self.deployed is not None:
            return F.relu(self.deployed(x))
        out = self.dense(x) + self.one(x)
        if self.identity is not None:
            out = out + self.identity(x)
        return F.relu(out)

    def reparameterize(self):
        k3, b3 = fuse(self.dense)
        k1, b1 = fuse(self.one)
        kid, bid = fuse(self.identity)
        conv = self.dense[0]
        self.deployed = nn.Conv2d(conv.in_channels, conv.out_channels, 3, conv.stride, 1)
        self.deployed.weight.data = k3 + F.pad(k1, [1, 1, 1, 1]) + kid
        self.deployed.bias.data = b3 + b1 + bid


class RepNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(RepBlock(3, 8, 2), RepBlock(8, 8), RepBlock(8, 12, 2), RepBlock(12, 12))
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.blocks(x), 1).flatten(1))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    x = torch.randn(8, 3, 16, 16, generator=g)
    y = torch.randint(0, 4, (8,), generator=g)
    model = RepNet().to(memory_format=torch.channels_last)
    xc = x.contiguous(memory_format=torch.channels_last)
    out = [str(model.blocks[0].dense[0].weight.is_contiguous(memory_format=torch.channels_last)),
           str(xc.is_contiguous()), str(xc.stride())]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _step in range(4):
        loss = F.cross_entropy(model(xc), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        train_form = model(xc)
        for block in model.blocks:
            block.reparameterize()
        model = model.to(memory_format=torch.channels_last)
        deployed = model(xc)
        out.append((train_form - deployed).abs().max().item() < 1e-4)
        out += deployed.flatten().tolist()
        for dtype in (torch.float16, torch.bfloat16):
            low = model.to(dtype)
            pred = low(xc.to(dtype))
            out += [str(pred.dtype), str(low.fc.weight.dtype)]
            out += pred.float().flatten().tolist()
            model = model.float()
    return out
