"""A character-level language model with nn.MultiheadAttention (batch_first, a causal boolean attn_mask and a
boolean key_padding_mask for padded sequences, need_weights with and without average_attn_weights), learned
positions, weight tying, then generation: greedy decoding, temperature + top-k sampling and nucleus (top-p)
sampling with torch.multinomial driven by a seeded torch.Generator."""

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the quick brown fox jumps over the lazy dog. pack my box with five dozen liquor jugs. "


class CharModel(nn.Module):
    def __init__(self, vocab, d=24, heads=4, block=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, block, d))
        self.attn = nn.MultiheadAttention(d, heads, dropout=0.1, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # weight tying
        nn.init.normal_(self.pos, std=0.02)

    def forward(self, idx, pad_mask=None, need_weights=False, average=True):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos[:, :T]
        causal = torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)  # True: may not attend
        h = self.ln1(x)
        a, w = self.attn(h, h, h, attn_mask=causal, key_padding_mask=pad_mask, need_weights=need_weights,
                         average_attn_weights=average)
        x = x + a
        x = x + self.mlp(self.ln2(x))
        return self.head(x), w


def top_k_top_p(logits, k=None, p=None):
    if k is not None:
        kth = torch.topk(logits, k).values[..., -1, None]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if p is not None:
        sorted_logits, order = torch.sort(logits, descending=True)
        cum = sorted_logits.softmax(-1).cumsum(-1)
        remove = cum - sorted_logits.softmax(-1) > p
        logits = logits.scatter(-1, order, sorted_logits.masked_fill(remove, float("-inf")))
    return logits


def main():
    torch.manual_seed(2)
    chars = ["<pad>"] + sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in TEXT])
    model = CharModel(len(chars))
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, betas=(0.9, 0.95))
    out = [sum(p.numel() for p in model.parameters())]
    g = torch.Generator().manual_seed(9)
    for _step in range(12):
        starts = torch.randint(0, len(data) - 17, (8,), generator=g)
        x = torch.stack([data[s:s + 16] for s in starts])
        y = torch.stack([data[s + 1:s + 17] for s in starts])
        lengths = torch.randint(10, 17, (8,), generator=g)
        pad = torch.arange(16)[None, :] >= lengths[:, None]
        x = x.masked_fill(pad, 0)
        y = y.masked_fill(pad, -100)
        logits, _ = model(x, pad_mask=pad)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        probe = data[:12].unsqueeze(0)
        _, w_avg = model(probe, need_weights=True)
        _, w_heads = model(probe, need_weights=True, average=False)
        out += [str(tuple(w_avg.shape)), str(tuple(w_heads.shape)), (w_heads.mean(1) - w_avg).abs().max().item()]
        out += w_avg[0, 5].tolist() + w_heads[0, :, -1].sum(-1).tolist()
        texts = []
        for mode in ("greedy", "topk", "topp"):
            idx = torch.tensor([[stoi["t"], stoi["h"]]])
            gen = torch.Generator().manual_seed(123)
            for _ in range(14):
                logits, _ = model(idx[:, -16:])
                logits = logits[:, -1]
                if mode == "greedy":
                    nxt = logits.argmax(-1, keepdim=True)
                elif mode == "topk":
                    nxt = torch.multinomial(F.softmax(top_k_top_p(logits / 0.8, k=5), -1), 1, generator=gen)
                else:
                    nxt = torch.multinomial(F.softmax(top_k_top_p(logits, p=0.9), -1), 1, generator=gen)
                idx = torch.cat([idx, nxt], dim=1)
            texts.append("".join(chars[i] for i in idx[0].tolist()))
        out += texts
    return out
