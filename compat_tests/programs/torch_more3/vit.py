"""A small Vision Transformer: patch embedding by a Conv2d with stride = patch size (and the same patches cut
with Tensor.unfold, checked against it), a learnable cls token and positional embedding as nn.Parameter with
trunc_normal_ init, nn.TransformerEncoder(norm_first=True, activation="gelu", batch_first=True) with a final
LayerNorm, CrossEntropyLoss(label_smoothing=0.1), AdamW with a OneCycleLR-free warmup via LinearLR, and top-1
accuracy in eval mode."""

import torch
import torch.nn as nn

PATCH, IMG, DIM = 4, 12, 24


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, DIM, kernel_size=PATCH, stride=PATCH)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class ViT(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.patch_embed = PatchEmbed()
        n = (IMG // PATCH) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, DIM))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        layer = nn.TransformerEncoderLayer(DIM, nhead=4, dim_feedforward=48, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(DIM),
                                             enable_nested_tensor=False)
        self.head = nn.Linear(DIM, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        x = self.encoder(x)
        return self.head(x[:, 0])


def unfold_patches(x):
    b, c = x.shape[:2]
    p = x.unfold(2, PATCH, PATCH).unfold(3, PATCH, PATCH)  # B, C, H/P, W/P, P, P
    return p.permute(0, 2, 3, 1, 4, 5).reshape(b, -1, c * PATCH * PATCH)


def main():
    torch.manual_seed(0)
    labels = torch.arange(48) % 3
    base = torch.zeros(3, 3, IMG, IMG)
    base[0, 0, :6] = 1
    base[1, 1, :, :6] = 1
    base[2, 2, 3:9, 3:9] = 1
    images = base[labels] + 0.3 * torch.randn(48, 3, IMG, IMG)
    model = ViT()
    out = []
    # Conv2d patch embedding == a linear map of unfolded patches.
    w = model.patch_embed.proj.weight.reshape(DIM, -1)
    via_unfold = unfold_patches(images[:2]) @ w.T + model.patch_embed.proj.bias
    out.append(str(torch.allclose(via_unfold, model.patch_embed(images[:2]), atol=1e-5)))
    out.append(model.pos_embed.abs().max().item() <= 0.04)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)
    for _epoch in range(3):
        model.train()
        perm = torch.randperm(48)
        for i in range(0, 48, 16):
            idx = perm[i:i + 16]
            loss = criterion(model(images[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(images)
        out.append((logits.argmax(-1) == labels).float().mean().item())
        out += logits[:4].flatten().tolist()
    return out
