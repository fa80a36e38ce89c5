"""A small ResNet: BasicBlocks with BatchNorm and projection shortcuts, weight-decay parameter groups from
named_parameters, SGD + MultiStepLR, train()/eval(), torch.no_grad, argmax accuracy, the model's repr."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                                          nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, num_blocks=(1, 1), num_classes=3):
        super().__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(2, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(16, num_blocks[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.linear = nn.Linear(16, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, planes, num_blocks, stride):
        layers = []
        for s in [stride] + [1] * (num_blocks - 1):
            layers.append(BasicBlock(self.in_planes, planes, s))
            self.in_planes = planes
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        return self.linear(torch.flatten(self.avgpool(out), 1))


def main():
    torch.manual_seed(42)
    x = torch.randn(48, 2, 8, 8)
    y = torch.randint(0, 3, (48,))
    x[y == 1, 0] += 1.0
    x[y == 2, 1] -= 1.0
    model = ResNet()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
    optimizer = torch.optim.SGD([{"params": decay, "weight_decay": 1e-3}, {"params": no_decay, "weight_decay": 0.0}],
                                lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[4, 7], gamma=0.1)
    out = [len(decay), len(no_decay), sum(p.numel() for p in model.parameters())]
    for _epoch in range(9):
        model.train()
        perm = torch.randperm(48)
        for i in range(0, 48, 24):
            idx = perm[i:i + 24]
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            out.append(loss.item())
        scheduler.step()
        model.eval()
        with torch.no_grad():
            logits = model(x)
            out.append((logits.argmax(dim=1) == y).float().mean().item())
    out.append(model.bn1.num_batches_tracked.item())
    out.append(model.layer2[0].shortcut[1].running_mean.abs().sum().item())
    out.append(repr(model))
    out.append(str(model.layer2[0].shortcut))
    return out


if __name__ == "__main__":
    print(main())
