"""Volumetric segmentation with a tiny 3-D U-Net, in the style of popular medical-imaging repositories (nnU-Net,
MONAI tutorials) written in plain PyTorch: Conv3d + InstanceNorm3d(affine) + LeakyReLU blocks, MaxPool3d and
ConvTranspose3d between scales, a lazily shaped first layer (nn.LazyConv3d), ZeroPad3d / CircularPad3d padding,
deep supervision through F.interpolate(mode="trilinear") and nn.AdaptiveAvgPool3d, a soft Dice + weighted
cross-entropy loss on one-hot targets (F.one_hot permuted to channels-first), AdamW with a PolynomialLR schedule,
and sliding-window-free inference with torch.flip test-time augmentation."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_block(c_in, c_out, lazy=False):
    conv = nn.LazyConv3d(c_out, 3, padding=1) if lazy else nn.Conv3d(c_in, c_out, 3, padding=1)
    return nn.Sequential(conv, nn.InstanceNorm3d(c_out, affine=True), nn.LeakyReLU(0.01, inplace=True),
                         nn.ZeroPad3d(1), nn.Conv3d(c_out, c_out, 3), nn.InstanceNorm3d(c_out, affine=True),
                         nn.LeakyReLU(0.01, inplace=True))


class UNet3D(nn.Module):
    def __init__(self, n_classes=3, base=4):
        super().__init__()
        self.enc1 = conv_block(None, base, lazy=True)
        self.pool = nn.MaxPool3d(2)
        self.enc2 = conv_block(base, 2 * base)
        self.up = nn.ConvTranspose3d(2 * base, base, kernel_size=2, stride=2)
        self.dec1 = conv_block(2 * base, base)
        self.head = nn.Conv3d(base, n_classes, 1)
        self.aux_head = nn.Sequential(nn.CircularPad3d((0, 0, 0, 0, 1, 1)), nn.Conv3d(2 * base, n_classes,
                                                                                      (3, 1, 1)))
        self.context = nn.AdaptiveAvgPool3d(1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        e2 = e2 * torch.sigmoid(self.context(e2))  # squeeze-style global context gate
        d1 = self.dec1(torch.cat([self.up(e2), e1], dim=1))
        aux = F.interpolate(self.aux_head(e2), size=x.shape[2:], mode="trilinear", align_corners=False)
        return self.head(d1), aux


def soft_dice_loss(logits, target, n_classes, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, n_classes).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    inter = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    dice = (2 * inter + eps) / (denom + eps)
    return 1 - dice[1:].mean(), dice


def make_volumes(g, n=4, size=8):
    coords = torch.stack(torch.meshgrid(*(torch.arange(size, dtype=torch.float32),) * 3, indexing="ij"))
    centres = torch.rand(n, 3, 1, 1, 1, generator=g) * 4 + 2
    dist = (coords.unsqueeze(0) - centres).pow(2).sum(1).sqrt()
    labels = (dist < 2.5).long() + (dist < 1.5).long()
    images = labels.float().unsqueeze(1) * 0.5 + 0.3 * torch.randn(n, 1, size, size, size, generator=g)
    return images, labels


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(4)
    images, labels = make_volumes(g)
    model = UNet3D()
    with torch.no_grad():
        model(images[:1])  # materialise the lazy layer before building the optimizer
    out = [repr(tuple(model.enc1[0].weight.shape)), type(model.enc1[0]).__name__]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01, amsgrad=True)
    sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=6, power=0.9)
    class_weights = torch.tensor([0.2, 1.0, 2.0])
    for _step in range(5):
        logits, aux = model(images)
        dice_loss, dice = soft_dice_loss(logits, labels, 3)
        ce = F.cross_entropy(logits, labels, weight=class_weights)
        aux_loss = F.cross_entropy(aux, labels, weight=class_weights)
        loss = dice_loss + ce + 0.3 * aux_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), dice[2].item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        logits, _ = model(images)
        flipped, _ = model(torch.flip(images, dims=(2, 4)))
        tta = (logits.softmax(1) + torch.flip(flipped, dims=(2, 4)).softmax(1)) / 2
        pred = tta.argmax(1)
    out += [(pred == labels).float().mean().item(), tta[:, 2].max().item(),
            torch.bincount(pred.flatten(), minlength=3).tolist()[0], model.enc1[1].weight.sum().item(),
            opt.state[model.head.weight]["max_exp_avg_sq"].sum().item()]
    return out
