"""A small U-Net for binary segmentation of synthetic discs: double-conv blocks with BatchNorm, max-pool
downsampling, ConvTranspose2d upsampling, torch.cat skip connections (with F.pad to fix odd sizes), a Dice loss
plus BCEWithLogitsLoss with pos_weight, Adam with OneCycleLR, IoU of thresholded predictions, a state_dict round
trip and channels_last inputs."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cin // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        dy, dx = x2.size(2) - x1.size(2), x2.size(3) - x1.size(3)
        x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.inc = DoubleConv(1, 4)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(4, 8))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), DoubleConv(8, 16))
        self.up1 = Up(16, 8)
        self.up2 = Up(8, 4)
        self.outc = nn.Conv2d(4, 1, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        return self.outc(self.up2(self.up1(x3, x2), x1))


def dice_loss(logits, target, eps=1.0):
    prob = torch.sigmoid(logits)
    inter = (prob * target).sum(dim=(1, 2, 3))
    union = prob.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def make_discs(n, size, generator):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="xy")
    centers = torch.randint(3, size - 3, (n, 2), generator=generator)
    radius = torch.randint(2, 4, (n, 1, 1), generator=generator)
    masks = ((xx - centers[:, 0, None, None]) ** 2 + (yy - centers[:, 1, None, None]) ** 2 <= radius ** 2).float()
    images = masks * 0.8 + 0.3 * torch.rand(n, size, size, generator=generator)
    return images.unsqueeze(1), masks.unsqueeze(1)


def main():
    torch.manual_seed(4)
    g = torch.Generator().manual_seed(2)
    x, y = make_discs(24, 13, g)
    model = UNet()
    pos_weight = (y.numel() - y.sum()) / y.sum()
    bce = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-2, total_steps=9)
    out = [pos_weight.item()]
    for _epoch in range(3):
        for i in range(0, 24, 8):
            logits = model(x[i:i + 8])
            loss = bce(logits, y[i:i + 8]) + dice_loss(logits, y[i:i + 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            out += [loss.item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        pred = (torch.sigmoid(model(x)) > 0.5).float()
        inter = (pred * y).sum((1, 2, 3))
        union = ((pred + y) > 0).float().sum((1, 2, 3))
        out += (inter / union.clamp(min=1)).tolist()
        buffer = io.BytesIO()
        torch.save(model.state_dict(), buffer)
        buffer.seek(0)
        clone = UNet()
        clone.load_state_dict(torch.load(buffer))
        clone.eval()
        out.append((clone(x) - model(x)).abs().max().item())
        cl = x.to(memory_format=torch.channels_last)
        out += [str(cl.stride()), cl.is_contiguous(memory_format=torch.channels_last), model(cl).sum().item()]
        out.append(model.up1.up.weight.shape[0])
    out.append(str(model.up2))
    return out
