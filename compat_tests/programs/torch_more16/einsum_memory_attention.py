"""Attention written with torch.einsum, as einops-style blog posts and Perceiver / memory-token code do: multi-head
projections split with view/permute, scores "bhqd,bhkd->bhqk" against a learned memory whose batch dimension is 1
(einsum broadcasts size-1 labels), a relative-position bias "hqk" added per head, a causal mask from
torch.triu(ones, diagonal=1).bool() and masked_fill, gating with "bqd,de->bqe"; per-step metrics gathered in Python
lists of one-element tensors and turned into tensors with torch.tensor (each read as a scalar, as torch does), and
the einsum errors a wrong equation gives."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryAttention(nn.Module):
    def __init__(self, dim=8, heads=2, memory=3, max_len=6):
        super().__init__()
        self.heads, self.dk = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.memory_k = nn.Parameter(torch.randn(1, heads, memory, dim // heads) * 0.1)
        self.memory_v = nn.Parameter(torch.randn(1, heads, memory, dim // heads) * 0.1)
        self.rel = nn.Parameter(torch.zeros(heads, 2 * max_len - 1))
        self.gate = nn.Parameter(torch.randn(dim, dim) * 0.2)
        self.out = nn.Linear(dim, dim)
        self.max_len = max_len

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, self.dk).permute(2, 0, 3, 1, 4)
        scale = 1.0 / math.sqrt(self.dk)
        local = torch.einsum("bhqd,bhkd->bhqk", q, k) * scale
        pos = torch.arange(n)
        rel = self.rel[:, (pos[None, :] - pos[:, None]) + self.max_len - 1]  # (h, q, k)
        local = local + torch.einsum("hqk->hqk", rel)
        causal = torch.triu(torch.ones(n, n), diagonal=1).bool()
        local = local.masked_fill(causal, float("-inf"))
        mem = torch.einsum("bhqd,bhkd->bhqk", q, self.memory_k) * scale  # memory batch 1 broadcasts
        attn = torch.softmax(torch.cat([mem, local], dim=-1), dim=-1)
        m = self.memory_k.shape[2]
        ctx = torch.einsum("bhqk,bhkd->bhqd", attn[..., :m], self.memory_v) + \
            torch.einsum("bhqk,bhkd->bhqd", attn[..., m:], v)
        ctx = ctx.transpose(1, 2).reshape(b, n, d)
        gated = ctx * torch.sigmoid(torch.einsum("bqd,de->bqe", x, self.gate))
        return self.out(gated), attn


def main():
    torch.manual_seed(5)
    model = MemoryAttention()
    head = nn.Linear(8, 4)
    opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=0.01)
    x = torch.randn(3, 6, 8)
    y = torch.randint(0, 4, (3, 6))
    out = []
    losses, accs = [], []
    for _ in range(5):
        h, attn = model(x)
        logits = head(h)
        loss = F.cross_entropy(logits.reshape(-1, 4), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach().reshape(1))  # one-element tensors, as (1,)-shaped model outputs often are
        accs.append((logits.argmax(-1) == y).float().mean())
    history = torch.tensor(losses)
    out += [str(history.shape), history.mean().item(), str(torch.tensor(accs).shape), torch.tensor(accs).sum().item()]
    out += [str(torch.tensor([[a, b] for a, b in zip(losses, accs)]).shape)]
    out += [attn[0, 0].sum(-1).tolist()[0], attn[..., :3].sum().item(), model.memory_k.grad.abs().sum().item(),
            model.rel.grad.abs().sum().item(), str(tuple(attn.shape))]

    for equation, shapes in [("bhqd,bhkd->bhqk", [(3, 2, 6, 4), (2, 2, 3, 4)]), ("bqd,de->bqe", [(3, 6, 8), (4, 8)]),
                             ("bhqd,bhkd->bhqk", [(3, 2, 6, 4), (3, 2, 3)]), ("bqd,de->bqf", [(3, 6, 8), (8, 8)])]:
        try:
            torch.einsum(equation, *[torch.zeros(s) for s in shapes])
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out
