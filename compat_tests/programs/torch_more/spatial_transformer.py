"""A spatial transformer network: a localization net predicting a 2x3 affine matrix (initialized to identity),
F.affine_grid + F.grid_sample, F.interpolate (bilinear and nearest), nn.Unfold patches, einsum self-attention over
the patches, and SGD."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
        self.fc_loc = nn.Sequential(nn.Linear(4 * 3 * 3, 16), nn.ReLU(True), nn.Linear(16, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
        self.unfold = nn.Unfold(kernel_size=4, stride=4)
        self.qkv = nn.Linear(16, 48)
        self.head = nn.Linear(16, 2)

    def stn(self, x):
        xs = self.localization(x)
        theta = self.fc_loc(xs.view(-1, 4 * 3 * 3)).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta

    def forward(self, x):
        x, theta = self.stn(x)
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)  # 16x16
        patches = self.unfold(x).transpose(1, 2)  # (B, 16 patches, 16)
        q, k, v = self.qkv(patches).chunk(3, dim=-1)
        attn = torch.einsum("bid,bjd->bij", q, k).div(4.0).softmax(dim=-1)
        mixed = torch.einsum("bij,bjd->bid", attn, v)
        return self.head(mixed.mean(1)), theta


def main():
    torch.manual_seed(9)
    x = torch.rand(24, 1, 8, 8)
    y = (x[:, 0, :4].mean((1, 2)) > x[:, 0, 4:].mean((1, 2))).long()
    model = STN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    out = []
    for _step in range(8):
        optimizer.zero_grad()
        logits, theta = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        out += [loss.item(), theta.detach().abs().sum().item()]
    with torch.no_grad():
        small = F.interpolate(x[:2], size=(5, 3), mode="nearest")
        out += small.flatten().tolist()
        out += F.interpolate(x[:1], scale_factor=0.5, mode="bilinear", antialias=True).flatten().tolist()
        rot = torch.tensor([[[0.0, -1.0, 0.1], [1.0, 0.0, -0.2]]])
        grid = F.affine_grid(rot, (1, 1, 5, 5), align_corners=True)
        out += F.grid_sample(x[:1], grid, mode="bilinear", padding_mode="border", align_corners=True).flatten().tolist()
        out += F.grid_sample(x[:1], grid, mode="nearest", padding_mode="zeros", align_corners=True).flatten().tolist()
        folded = F.fold(model.unfold(x[:1]), output_size=(8, 8), kernel_size=4, stride=4)
        out.append((folded - x[:1]).abs().max().item())
    return out


if __name__ == "__main__":
    print(main())
