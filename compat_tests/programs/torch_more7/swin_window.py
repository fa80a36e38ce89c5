"""A Swin Transformer in miniature (the official repository's structure): window_partition / window_reverse by
view / permute / contiguous, a relative position bias table indexed by an index built from torch.meshgrid,
torch.stack, torch.flatten and broadcasting subtraction (registered as a non-persistent buffer), shifted windows by
torch.roll with negative shifts and the attention mask built by slicing an img_mask, masked_fill(mask != 0, -100.0)
and masked_fill(mask == 0, 0.0), patch merging from strided slices x[:, 0::2, 1::2] concatenated on channels,
nn.init.trunc_normal_ of the table, an nn.Identity when the shift is off, and AdamW with CosineAnnealingLR."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def window_reverse(windows, ws, h, w):
    b = int(windows.shape[0] / (h * w / ws / ws))
    x = windows.view(b, h // ws, w // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)


class WindowAttention(nn.Module):
    def __init__(self, dim, ws, n_heads):
        super().__init__()
        self.ws, self.n_heads = ws, n_heads
        self.scale = (dim // n_heads) ** -0.5
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * ws - 1) * (2 * ws - 1), n_heads))
        coords = torch.stack(torch.meshgrid([torch.arange(ws), torch.arange(ws)], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative = relative.permute(1, 2, 0).contiguous()
        relative[:, :, 0] += ws - 1
        relative[:, :, 1] += ws - 1
        relative[:, :, 0] *= 2 * ws - 1
        self.register_buffer("relative_position_index", relative.sum(-1), persistent=False)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def forward(self, x, mask=None):
        b_, n, c = x.shape
        qkv = self.qkv(x).reshape(b_, n, 3, self.n_heads, c // self.n_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(n, n, -1)
        attn = attn + bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b_ // nw, nw, self.n_heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.n_heads, n, n)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b_, n, c))


class SwinBlock(nn.Module):
    def __init__(self, dim, res, n_heads, ws, shift):
        super().__init__()
        self.res, self.ws, self.shift = res, ws, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, ws, n_heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.drop_path = nn.Identity()
        if shift > 0:
            h, w = res
            img_mask = torch.zeros((1, h, w, 1))
            cnt = 0
            for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                    img_mask[:, hs, wsl, :] = cnt
                    cnt += 1
            mask_windows = window_partition(img_mask, ws).view(-1, ws * ws)
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, -100.0).masked_fill(attn_mask == 0, 0.0)
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        h, w = self.res
        b, _, c = x.shape
        shortcut = x
        x = self.norm1(x).view(b, h, w, c)
        if self.shift > 0:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        windows = window_partition(x, self.ws).view(-1, self.ws * self.ws, c)
        windows = self.attn(windows, mask=self.attn_mask).view(-1, self.ws, self.ws, c)
        x = window_reverse(windows, self.ws, h, w)
        if self.shift > 0:
            x = torch.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
        x = shortcut + self.drop_path(x.view(b, h * w, c))
        return x + self.drop_path(self.mlp(self.norm2(x)))


class PatchMerging(nn.Module):
    def __init__(self, res, dim):
        super().__init__()
        self.res = res
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x):
        h, w = self.res
        b, _, c = x.shape
        x = x.view(b, h, w, c)
        x = torch.cat([x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :], x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]], -1)
        return self.reduction(self.norm(x.view(b, -1, 4 * c)))


class TinySwin(nn.Module):
    def __init__(self, dim=8, n_classes=3):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, kernel_size=2, stride=2)
        self.blocks = nn.Sequential(SwinBlock(dim, (8, 8), 2, 4, 0), SwinBlock(dim, (8, 8), 2, 4, 2))
        self.merge = PatchMerging((8, 8), dim)
        self.stage2 = SwinBlock(2 * dim, (4, 4), 2, 2, 1)
        self.norm = nn.LayerNorm(2 * dim)
        self.head = nn.Linear(2 * dim, n_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = self.stage2(self.merge(self.blocks(x)))
        x = self.norm(x).transpose(1, 2)
        return self.head(torch.flatten(F.adaptive_avg_pool1d(x, 1), 1))


def main():
    torch.manual_seed(3)
    g = torch.Generator().manual_seed(3)
    y = torch.randint(0, 3, (12,), generator=g)
    x = torch.randn(12, 3, 16, 16, generator=g) * 0.5
    x[:, 0] += (y == 1).float().view(-1, 1, 1)
    x[:, :, :8, :8] += (y == 2).float().view(-1, 1, 1, 1)
    model = TinySwin()
    blk = model.blocks[1]
    out = [str(blk.attn.relative_position_index[:4, :6].tolist()), blk.attn_mask.sum().item(),
           str(sorted(k for k in model.state_dict() if "index" in k or "mask" in k))]
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8, eta_min=1e-4)
    for _ in range(8):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out.append(loss.item())
    out.append(model.blocks[0].attn.relative_position_bias_table.grad.norm().item())
    with torch.no_grad():
        logits = model(x)
    out += [logits.sum().item(), (logits.argmax(-1) == y).sum().item(), sched.get_last_lr()[0]]
    return out
