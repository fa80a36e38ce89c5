"""A T5-style encoder trained with a Hugging Face-style loop written without transformers: relative position buckets
(torch.abs, torch.log of a float ratio, .to(torch.long), torch.min with torch.full_like, torch.where between exact and
logarithmic buckets), a bias nn.Embedding(num_buckets, n_heads) permuted to (1, H, Q, K) and shared by the layers, an
extended attention mask ((1.0 - mask) * torch.finfo(dtype).min), T5's RMS LayerNorm computed in float32 (pow(2).mean,
torch.rsqrt), a gated-GELU feed-forward (gelu approximate="tanh"), span-like masking drawn with torch.bernoulli from
a seeded generator, AdamW with no-decay groups, a hand-written linear warmup/decay LambdaLR stepped per optimizer step,
gradient accumulation over micro-batches with the loss divided by the accumulation count, and clip_grad_norm_'s
returned total norm."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=16, max_distance=32):
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return relative_buckets + torch.where(is_small, relative_position, large)


class T5LayerNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.variance_epsilon = eps

    def forward(self, x):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * x


class Attention(nn.Module):
    def __init__(self, d, n_heads, has_bias=False, num_buckets=16):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d // n_heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.num_buckets = num_buckets
        if has_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    def compute_bias(self, q_len, k_len):
        context = torch.arange(q_len, dtype=torch.long)[:, None]
        memory = torch.arange(k_len, dtype=torch.long)[None, :]
        buckets = relative_position_bucket(memory - context, num_buckets=self.num_buckets)
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, x, mask, position_bias=None):
        b, n, _ = x.shape

        def shape(t):
            return t.view(b, -1, self.n_heads, self.d_head).transpose(1, 2)

        q, k, v = shape(self.q(x)), shape(self.k(x)), shape(self.v(x))
        scores = torch.matmul(q, k.transpose(3, 2))  # T5 does not scale by sqrt(d_head)
        if position_bias is None:
            position_bias = self.compute_bias(n, n) + mask
        scores = scores + position_bias
        attn = F.softmax(scores.float(), dim=-1).type_as(scores)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, -1, self.n_heads * self.d_head)
        return self.o(out), position_bias


class GatedGelu(nn.Module):
    def __init__(self, d, d_ff):
        super().__init__()
        self.wi_0 = nn.Linear(d, d_ff, bias=False)
        self.wi_1 = nn.Linear(d, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d, bias=False)

    def forward(self, x):
        return self.wo(F.gelu(self.wi_0(x), approximate="tanh") * self.wi_1(x))


class Block(nn.Module):
    def __init__(self, d, n_heads, has_bias):
        super().__init__()
        self.ln1, self.ln2 = T5LayerNorm(d), T5LayerNorm(d)
        self.attn = Attention(d, n_heads, has_bias)
        self.ff = GatedGelu(d, 2 * d)

    def forward(self, x, mask, position_bias):
        a, position_bias = self.attn(self.ln1(x), mask, position_bias)
        x = x + a
        return x + self.ff(self.ln2(x)), position_bias


class Encoder(nn.Module):
    def __init__(self, vocab=24, d=16, n_heads=2, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, n_heads, i == 0) for i in range(n_layers))
        self.final_norm = T5LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.dropout = nn.Dropout(0.1)
        self.embed.weight.data.normal_(mean=0.0, std=1.0)

    def forward(self, ids, attention_mask):
        ext = attention_mask[:, None, None, :].to(torch.float32)
        ext = (1.0 - ext) * torch.finfo(torch.float32).min
        x = self.dropout(self.embed(ids))
        bias = None
        for blk in self.blocks:
            x, bias = blk(x, ext, bias)
        return self.lm_head(self.final_norm(x) * (x.shape[-1] ** -0.5))


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(5)
    vocab, mask_id = 24, 1
    lengths = torch.randint(6, 11, (16,), generator=g)
    ids = torch.randint(3, vocab, (16, 10), generator=g)
    attention_mask = (torch.arange(10)[None, :] < lengths[:, None]).long()
    ids = ids.masked_fill(attention_mask == 0, 0)
    buckets = relative_position_bucket(torch.arange(-40, 41, 7))
    out = [str(buckets.tolist()), str(relative_position_bucket(torch.arange(-12, 13, 3), bidirectional=False).tolist())]

    model = Encoder()
    def is_norm(name):
        return "ln" in name or "norm" in name

    groups = [{"params": [p for n, p in model.named_parameters() if not is_norm(n)], "weight_decay": 0.01},
              {"params": [p for n, p in model.named_parameters() if is_norm(n)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=3e-3, eps=1e-8)
    accumulation, updates = 2, 6
    sched = get_linear_schedule_with_warmup(opt, 2, updates)
    for step in range(updates * accumulation):
        micro = slice((step % accumulation) * 8, (step % accumulation + 1) * 8)
        x, m = ids[micro], attention_mask[micro]
        probs = torch.full(x.shape, 0.25) * m
        chosen = torch.bernoulli(probs, generator=g).bool()
        labels = torch.where(chosen, x, torch.full_like(x, -100))
        inputs = x.masked_fill(chosen, mask_id)
        model.train()
        logits = model(inputs, m)
        loss = F.cross_entropy(logits.view(-1, vocab), labels.view(-1), ignore_index=-100)
        (loss / accumulation).backward()
        out.append(loss.item())
        if (step + 1) % accumulation == 0:
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            out.append(total.item())
            opt.step()
            sched.step()
            opt.zero_grad()
            out.append(sched.get_last_lr()[0])
    model.eval()
    with torch.no_grad():
        logits = model(ids, attention_mask)
        bias = model.blocks[0].attn.compute_bias(5, 5)
    out += [logits.sum().item(), logits.std().item(), bias.sum().item(), str(tuple(bias.shape))]
    return out
