"""A mini GPT from scratch (nanoGPT-style): token and position embeddings, causal self-attention with a lower
triangular mask kept in a buffer (torch.tril), pre-norm blocks with GELU MLPs, weight tying of the head to the
token embedding, AdamW with decay / no-decay parameter groups chosen by module type, a cosine schedule with linear
warmup through LambdaLR, clip_grad_norm_, then generate() with temperature and top-k under torch.no_grad."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, BLOCK, EMBED, HEADS = 12, 8, 16, 2


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(EMBED, 3 * EMBED)
        self.c_proj = nn.Linear(EMBED, EMBED)
        self.attn_dropout = nn.Dropout(0.1)
        self.register_buffer("bias", torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(EMBED, dim=2)
        k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(EMBED)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(EMBED)
        self.mlp = nn.Sequential(nn.Linear(EMBED, 4 * EMBED), nn.GELU(approximate="tanh"), nn.Linear(4 * EMBED, EMBED),
                                 nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, n_layer=2):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(VOCAB, EMBED), wpe=nn.Embedding(BLOCK, EMBED),
                                              drop=nn.Dropout(0.1), h=nn.ModuleList([Block() for _ in range(n_layer)]),
                                              ln_f=nn.LayerNorm(EMBED)))
        self.lm_head = nn.Linear(EMBED, VOCAB, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, _p in m.named_parameters(recurse=False):
                fpn = f"{mn}.{pn}" if mn else pn
                if pn.endswith("bias") or isinstance(m, (nn.LayerNorm, nn.Embedding)):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, nn.Linear):
                    decay.add(fpn)
        param_dict = {pn: p for pn, p in self.named_parameters()}
        decay -= no_decay  # the tied lm_head weight is reached through the embedding first
        groups = [{"params": [param_dict[pn] for pn in sorted(decay) if pn in param_dict],
                   "weight_decay": weight_decay},
                  {"params": [param_dict[pn] for pn in sorted(no_decay) if pn in param_dict], "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas), sorted(decay), sorted(no_decay)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= BLOCK else idx[:, -BLOCK:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def main():
    torch.manual_seed(0)
    text = torch.tensor([(3 * i + i // 5) % VOCAB for i in range(200)])
    model = GPT()
    out = [sum(p.numel() for p in model.parameters())]
    opt, decay, no_decay = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95))
    out += [" ".join(decay), " ".join(no_decay)]
    warmup, total = 3, 12

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    g = torch.Generator().manual_seed(3)
    for _ in range(total):
        ix = torch.randint(len(text) - BLOCK, (8,), generator=g)
        x = torch.stack([text[i:i + BLOCK] for i in ix])
        y = torch.stack([text[i + 1:i + 1 + BLOCK] for i in ix])
        y[0, :2] = -1
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        out += [loss.item(), norm.item(), sched.get_last_lr()[0]]
    model.eval()
    start = torch.zeros((2, 1), dtype=torch.long)
    sample = model.generate(start, 10, temperature=0.8, top_k=4, generator=torch.Generator().manual_seed(5))
    out += sample.flatten().tolist()
    out.append(str(model.lm_head.weight is model.transformer.wte.weight))
    out.append(model.transformer.h[0].attn.bias.sum().item())
    return out
