"""A LLaMA-style decoder in miniature (as in the popular minimal-LLaMA repositories): RMSNorm, rotary position
embeddings through precomputed complex frequencies (torch.polar, view_as_complex / view_as_real on reshaped
query and key), grouped-query attention with repeat_interleave of the key/value heads, F.scaled_dot_product_attention
with is_causal, a SwiGLU feed-forward, tied input/output embeddings, AdamW with a warmup LambdaLR; then greedy and
top-p (nucleus) sampling with a key/value cache (sort, cumsum, scatter back, multinomial with a generator)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def rope_frequencies(head_dim, length, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, head_dim, 2)[: head_dim // 2].float() / head_dim))
    angles = torch.outer(torch.arange(length).float(), freqs)
    return torch.polar(torch.ones_like(angles), angles)


def apply_rope(x, freqs):  # x: (batch, length, heads, head_dim)
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    rotated = torch.view_as_real(xc * freqs[None, :, None, :]).flatten(3)
    return rotated.type_as(x)


class Attention(nn.Module):
    def __init__(self, dim, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x, freqs, cache=None):
        b, n, _ = x.shape
        q = self.wq(x).view(b, n, self.heads, self.head_dim)
        k = self.wk(x).view(b, n, self.kv_heads, self.head_dim)
        v = self.wv(x).view(b, n, self.kv_heads, self.head_dim)
        q, k = apply_rope(q, freqs), apply_rope(k, freqs)
        if cache is not None:
            if "k" in cache:
                k, v = torch.cat([cache["k"], k], dim=1), torch.cat([cache["v"], v], dim=1)
            cache["k"], cache["v"] = k, v
        rep = self.heads // self.kv_heads
        k, v = k.repeat_interleave(rep, dim=2), v.repeat_interleave(rep, dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=cache is None)
        return self.wo(y.transpose(1, 2).reshape(b, n, -1))


class Block(nn.Module):
    def __init__(self, dim, heads, kv_heads):
        super().__init__()
        self.attn_norm, self.ffn_norm = nn.RMSNorm(dim, eps=1e-6), nn.RMSNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads, kv_heads)
        hidden = 4 * dim * 2 // 3
        self.w1, self.w3 = nn.Linear(dim, hidden, bias=False), nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x, freqs, cache=None):
        x = x + self.attn(self.attn_norm(x), freqs, cache)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class TinyLlama(nn.Module):
    def __init__(self, vocab=24, dim=32, heads=4, kv_heads=2, layers=2, max_len=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, kv_heads) for _ in range(layers)])
        self.norm = nn.RMSNorm(dim, eps=1e-6)
        self.out = nn.Linear(dim, vocab, bias=False)
        self.out.weight = self.embed.weight
        self.register_buffer("freqs", rope_frequencies(dim // heads, max_len), persistent=False)

    def forward(self, ids, start=0, caches=None):
        x = self.embed(ids)
        freqs = self.freqs[start:start + ids.shape[1]]
        for i, block in enumerate(self.blocks):
            x = block(x, freqs, None if caches is None else caches[i])
        return self.out(self.norm(x))


def top_p_sample(logits, p, generator):
    probs = logits.softmax(-1)
    sorted_probs, sorted_idx = probs.sort(dim=-1, descending=True)
    cumulative = sorted_probs.cumsum(-1)
    sorted_probs[cumulative - sorted_probs > p] = 0.0
    sorted_probs.div_(sorted_probs.sum(-1, keepdim=True))
    choice = torch.multinomial(sorted_probs, 1, generator=generator)
    return sorted_idx.gather(-1, choice)


def main():
    torch.manual_seed(37)
    data = torch.tensor([(i * 7 + 3) % 24 for i in range(200)])
    model = TinyLlama()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 4) * 0.5 * (1 + math.cos(s / 12)))
    out = [sum(p.numel() for p in model.parameters()), str(model.freqs.dtype), len(model.state_dict())]
    for _step in range(10):
        starts = torch.randint(0, 200 - 17, (4,))
        batch = torch.stack([data[s:s + 17] for s in starts.tolist()])
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        out += [loss.item(), norm.item()]
    model.eval()
    with torch.no_grad():
        prompt = data[:5].unsqueeze(0)
        full = model(prompt)
        caches = [{} for _ in model.blocks]
        cached = model(prompt, 0, caches)
        nxt = cached[:, -1].argmax(-1, keepdim=True)
        step_logits = model(nxt, 5, caches)
        out += [(full - cached).abs().max().item() < 1e-5, str(tuple(caches[0]["k"].shape))]
        ref = model(torch.cat([prompt, nxt], 1))[:, -1]
        out += [(ref - step_logits[:, -1]).abs().max().item() < 1e-4]
        g = torch.Generator().manual_seed(2)
        ids, caches = prompt, [{} for _ in model.blocks]
        logits = model(ids, 0, caches)[:, -1]
        for _ in range(6):
            tok = top_p_sample(logits / 0.8, 0.9, g)
            ids = torch.cat([ids, tok], dim=1)
            logits = model(tok, ids.shape[1] - 1, caches)[:, -1]
        out += ids.flatten().tolist() + logits.flatten()[:6].tolist()
    return out
