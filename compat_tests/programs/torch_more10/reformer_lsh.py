"""Reformer-style LSH attention, in the style of popular lucidrains-like repositories: shared-QK vectors hashed by
random rotations (torch.einsum with a seeded rotation tensor, argmax over [R, -R]), tokens sorted by bucket with a
stable torch.sort of bucket * seq_len + position, chunked attention to the own and previous chunk (torch.cat of a
rolled chunk axis), self-attention masked unless alone, the outputs unsorted with torch.gather / scatter_ of the
inverse permutation and several hash rounds merged with logsumexp weights; reversible residual blocks
(y1 = x1 + F(x2), y2 = x2 + G(y1)) inverted exactly, trained on a copy task with Adam and a cosine warm-restart
schedule."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def look_back(x):
    """Each chunk sees itself and the previous chunk (the first wraps around to the last)."""
    return torch.cat([x, torch.roll(x, 1, dims=1)], dim=2)


class LSHAttention(nn.Module):
    def __init__(self, dim, n_buckets=4, n_hashes=2, chunk=4):
        super().__init__()
        self.n_buckets, self.n_hashes, self.chunk = n_buckets, n_hashes, chunk
        self.qk = nn.Linear(dim, dim, bias=False)
        self.v = nn.Linear(dim, dim, bias=False)
        self.out = nn.Linear(dim, dim)

    def hash(self, qk, g):
        rotations = torch.randn(qk.shape[-1], self.n_hashes, self.n_buckets // 2, generator=g)
        rotated = torch.einsum("btd,dhr->bhtr", F.normalize(qk, dim=-1), rotations)
        return torch.cat([rotated, -rotated], dim=-1).argmax(-1)  # (b, hashes, t)

    def forward(self, x, g):
        b, t, d = x.shape
        qk, v = self.qk(x), self.v(x)
        buckets = self.hash(qk.detach(), g)
        positions = torch.arange(t).expand(b, self.n_hashes, t)
        keys = buckets * t + positions
        _, order = torch.sort(keys, dim=-1, stable=True)
        undo = torch.empty_like(order).scatter_(-1, order, positions)
        gather_idx = order.reshape(b, -1, 1).expand(-1, -1, d)
        sqk = torch.gather(qk.repeat(1, self.n_hashes, 1), 1, gather_idx)
        sv = torch.gather(v.repeat(1, self.n_hashes, 1), 1, gather_idx)
        spos = order.reshape(b, -1)
        n_chunks = self.n_hashes * t // self.chunk
        cq = sqk.view(b, n_chunks, self.chunk, d)
        ck = look_back(F.normalize(cq, dim=-1))
        cv = look_back(sv.view(b, n_chunks, self.chunk, d))
        cpos = spos.view(b, n_chunks, self.chunk)
        kpos = look_back(cpos)
        scores = torch.einsum("bnid,bnjd->bnij", cq, ck) * d ** -0.5
        scores = scores.masked_fill(cpos.unsqueeze(-1) == kpos.unsqueeze(-2), -1e5)
        lse = torch.logsumexp(scores, dim=-1, keepdim=True)
        attended = torch.einsum("bnij,bnjd->bnid", torch.exp(scores - lse), cv)
        attended = attended.reshape(b, self.n_hashes, t, d)
        lse = lse.reshape(b, self.n_hashes, t)
        attended = torch.gather(attended, 2, undo.unsqueeze(-1).expand(-1, -1, -1, d))
        lse = torch.gather(lse, 2, undo)
        weights = torch.softmax(lse, dim=1).unsqueeze(-1)  # merge hash rounds
        return self.out((attended * weights).sum(1)), buckets


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(2 * dim, dim))

    def forward(self, x):
        return self.net(x)


class ReversibleBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attn = LSHAttention(dim)
        self.ff = FeedForward(dim)

    def f(self, x, g):
        return self.attn(self.norm(x), g)[0]

    def forward(self, x1, x2, g):
        y1 = x1 + self.f(x2, g)
        y2 = x2 + self.ff(y1)
        return y1, y2

    def inverse(self, y1, y2, g):
        x2 = y2 - self.ff(y1)
        x1 = y1 - self.f(x2, g)
        return x1, x2


class Reformer(nn.Module):
    def __init__(self, vocab=8, dim=16, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(1, 16, dim) * 0.02)
        self.blocks = nn.ModuleList(ReversibleBlock(dim) for _ in range(depth))
        self.head = nn.Linear(2 * dim, vocab)

    def forward(self, tokens, seed):
        x = self.embed(tokens) + self.pos[:, :tokens.shape[1]]
        x1, x2 = x, x
        for i, block in enumerate(self.blocks):
            x1, x2 = block(x1, x2, torch.Generator().manual_seed(seed + i))
        return self.head(torch.cat([x1, x2], dim=-1)), (x1, x2)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    model = Reformer()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=1e-4)
    out = []
    for step in range(6):
        half = torch.randint(1, 8, (4, 8), generator=g)
        tokens = torch.cat([half, half], dim=1)
        logits, _ = model(tokens, seed=step)
        loss = F.cross_entropy(logits[:, 8:].reshape(-1, 8), tokens[:, 8:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        tokens = torch.cat([half, half], dim=1)
        x = model.embed(tokens) + model.pos
        block = model.blocks[0]
        y1, y2 = block(x, x, torch.Generator().manual_seed(99))
        x1, x2 = block.inverse(y1, y2, torch.Generator().manual_seed(99))
        _, buckets = block.attn(block.norm(x), torch.Generator().manual_seed(99))
        logits, _ = model(tokens, seed=99)
    out += [(x1 - x).abs().max().item() < 1e-5, (x2 - x).abs().max().item() < 1e-5,
            torch.bincount(buckets.flatten(), minlength=4).tolist()[0], buckets[0, 0].tolist()[3],
            (logits[:, 8:].argmax(-1) == tokens[:, 8:]).float().mean().item(), logits.std().item()]
    return out
