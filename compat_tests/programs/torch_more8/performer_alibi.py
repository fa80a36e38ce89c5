"""Efficient-attention variants from the lucidrains-style repositories: Performer's FAVOR+ positive random
features (an orthogonal random projection built block by block from torch.linalg.qr of Gaussian matrices and
rescaled by chi-distributed norms, exp(w.x - |x|^2/2) features with a max-subtraction stabilizer), non-causal
linear attention through einsum and causal linear attention with torch.cumsum of key-value outer products; ALiBi
linear position biases (the geometric head slopes, a distance matrix from arange, tril causal masks) added to
softmax attention; a small language model on synthetic copy sequences trained with both and compared to exact
attention on the same inputs, with torch.testing-free error metrics (relative Frobenius error via
torch.linalg.matrix_norm), Adam with gradient accumulation over two micro-batches."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def orthogonal_random_matrix(n_rows, dim, generator):
    blocks = []
    for _ in range(math.ceil(n_rows / dim)):
        q, _ = torch.linalg.qr(torch.randn(dim, dim, generator=generator))
        blocks.append(q.T)
    mat = torch.cat(blocks)[:n_rows]
    norms = torch.randn(n_rows, dim, generator=generator).norm(dim=1)
    return norms[:, None] * mat


def favor_features(x, proj, is_query):
    x = x * x.shape[-1] ** -0.25
    wx = torch.einsum("bhnd,md->bhnm", x, proj)
    sq = (x ** 2).sum(-1, keepdim=True) / 2
    stab = wx.amax(-1, keepdim=True) if is_query else wx.amax(dim=(-1, -2), keepdim=True)
    return torch.exp(wx - sq - stab.detach()) / math.sqrt(proj.shape[0]) + 1e-6


def linear_attention(q, k, v, causal):
    if causal:
        kv = torch.einsum("bhnm,bhnd->bhnmd", k, v).cumsum(2)
        num = torch.einsum("bhnm,bhnmd->bhnd", q, kv)
        den = torch.einsum("bhnm,bhnm->bhn", q, k.cumsum(2))
    else:
        kv = torch.einsum("bhnm,bhnd->bhmd", k, v)
        num = torch.einsum("bhnm,bhmd->bhnd", q, kv)
        den = torch.einsum("bhnm,bhm->bhn", q, k.sum(2))
    return num / den.unsqueeze(-1)


def alibi_slopes(n_heads):
    start = 2 ** (-8 / n_heads)
    return torch.tensor([start ** (i + 1) for i in range(n_heads)])


def alibi_attention(q, k, v):
    n = q.shape[-2]
    pos = torch.arange(n)
    distance = (pos[None, :] - pos[:, None]).float()
    bias = alibi_slopes(q.shape[1])[:, None, None] * distance
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + bias
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    return torch.softmax(scores.masked_fill(~causal, float("-inf")), -1) @ v


class Block(nn.Module):
    def __init__(self, dim, heads, kind, proj=None):
        super().__init__()
        self.heads, self.kind = heads, kind
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(approximate="tanh"), nn.Linear(2 * dim, dim))
        if proj is not None:
            self.register_buffer("proj", proj)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if self.kind == "performer":
            att = linear_attention(favor_features(q, self.proj, True), favor_features(k, self.proj, False), v, True)
        else:
            att = alibi_attention(q, k, v)
        x = x + self.out(att.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.norm2(x))


def main():
    torch.manual_seed(9)
    g = torch.Generator().manual_seed(9)
    proj = orthogonal_random_matrix(24, 8, g)
    out = [(proj @ proj.T).diagonal().mean().item()]
    q, k, v = (torch.randn(2, 2, 10, 8, generator=g) * 0.5 for _ in range(3))
    exact = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(8), -1) @ v
    approx = linear_attention(favor_features(q, proj, True), favor_features(k, proj, False), v, False)
    rel = torch.linalg.matrix_norm(approx - exact) / torch.linalg.matrix_norm(exact)
    out += [rel.mean().item(), alibi_slopes(4).sum().item()]
    causal_exact = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    causal_approx = linear_attention(favor_features(q, proj, True), favor_features(k, proj, False), v, True)
    out.append((causal_approx - causal_exact).abs().max().item())

    vocab, dim = 10, 16
    for kind in ("performer", "alibi"):
        torch.manual_seed(9)
        embed = nn.Embedding(vocab, dim)
        block = Block(dim, 2, kind, proj if kind == "performer" else None)
        head = nn.Linear(dim, vocab)
        params = [*embed.parameters(), *block.parameters(), *head.parameters()]
        opt = torch.optim.Adam(params, lr=3e-3)
        for _ in range(5):
            opt.zero_grad()
            total = 0.0
            for _ in range(2):
                half = torch.randint(1, vocab, (4, 6), generator=g)
                seq = torch.cat([half, half], 1)
                logits = head(block(embed(seq[:, :-1])))
                loss = F.cross_entropy(logits.reshape(-1, vocab), seq[:, 1:].reshape(-1)) / 2
                loss.backward()
                total += loss.item()
            opt.step()
            out.append(total)
        out.append(sum(p.grad.norm() ** 2 for p in params).sqrt().item())
    return out
