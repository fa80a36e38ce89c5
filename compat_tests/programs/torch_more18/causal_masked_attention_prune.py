"""A tiny decoder-only LM as "attention from scratch" posts build it on F.scaled_dot_product_attention: 4-d
multi-head inputs with a key-padding bool mask combined with is_causal=True (torch's CPU flash kernel applies both),
a float ALiBi-style bias with is_causal, explicit scale, fully masked (padding) queries giving zeros, the node names
autograd records, and the math-path refusal of a mask with is_causal for 3-d inputs.  Then magnitude pruning as
the PyTorch pruning tutorial does it: global L1 unstructured pruning of the projections, the masks and
weight_orig in the state_dict, sparsity per layer, fine-tuning with the masks kept, and prune.remove."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune


class CausalSelfAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        slopes = torch.tensor([0.5 ** (i + 1) for i in range(heads)])
        self.register_buffer("slopes", slopes.view(1, heads, 1, 1), persistent=False)

    def forward(self, x, pad, alibi=False):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        if alibi:
            pos = torch.arange(t)
            mask = -(pos.view(1, -1) - pos.view(-1, 1)).abs().float() * self.slopes  # (1, H, T, T)
            mask = mask.masked_fill(~pad.view(b, 1, 1, t), float("-inf"))
        else:
            mask = pad.view(b, 1, 1, t)  # keys that are real tokens
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c)), y


class TinyLM(nn.Module):
    def __init__(self, vocab=11, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = CausalSelfAttention(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 16), nn.GELU(), nn.Linear(16, dim))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens, pad, alibi=False):
        h = self.embed(tokens)
        a, _ = self.attn(h, pad, alibi)
        h = h + a
        h = h + self.ff(self.norm(h))
        return self.head(h)


def caught(fn):
    try:
        return f"ok {tuple(fn().shape)}"
    except Exception as e:  # noqa: BLE001 - the program prints what the framework raises
        return f"{type(e).__name__}: {e}"


def main():
    torch.manual_seed(0)
    out = []
    q = torch.randn(2, 2, 5, 4, requires_grad=True)
    k, v = torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 4)
    keep = torch.tensor([[True, True, True, False, False], [True, True, True, True, True]])
    both = F.scaled_dot_product_attention(q, k, v, attn_mask=keep.view(2, 1, 1, 5), is_causal=True)
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    plain = F.scaled_dot_product_attention(q, k, v, attn_mask=keep.view(2, 1, 1, 5), scale=0.3)
    out += [both.grad_fn.name(), causal.grad_fn.name(), plain.grad_fn.name(), both.sum().item(),
            causal.sum().item(), plain.sum().item(), (both[1] - causal[1]).abs().max().item()]
    rows = torch.tensor([[True, True, True, True, True], [False] * 5]).view(2, 1, 5, 1).expand(2, 2, 5, 5)
    dead = F.scaled_dot_product_attention(q, k, v, attn_mask=rows & keep.view(2, 1, 1, 5))
    out += [dead[1].abs().sum().item(), dead[0].sum().item()]
    (both.sum() + dead.sum()).backward()
    out.append(q.grad.abs().sum().item())
    out.append(F.scaled_dot_product_attention(q[0], k[0], v[0]).grad_fn.name())
    out.append(caught(lambda: F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=keep[0], is_causal=True)))
    out.append(caught(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:1].expand(2, 5).view(2, 1, 5),
                                                             is_causal=True)))

    torch.manual_seed(1)
    model = TinyLM()
    tokens = torch.randint(1, 11, (4, 7))
    lengths = torch.tensor([7, 5, 6, 3])
    pad = torch.arange(7).view(1, -1) < lengths.view(-1, 1)
    tokens = tokens.masked_fill(~pad, 0)
    opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)

    def step(alibi):
        logits = model(tokens[:, :-1], pad[:, :-1], alibi)
        target = tokens[:, 1:].masked_fill(~pad[:, 1:], -100)
        loss = F.cross_entropy(logits.reshape(-1, 11), target.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    for i in range(6):
        out.append(step(alibi=i % 2 == 1))

    to_prune = [(model.attn.qkv, "weight"), (model.attn.proj, "weight"), (model.ff[0], "weight"),
                (model.ff[2], "weight")]
    prune.global_unstructured(to_prune, pruning_method=prune.L1Unstructured, amount=0.4)
    out.append(",".join(k for k in model.state_dict() if "attn" in k or "ff" in k))
    for module, name in to_prune:
        out.append(float(torch.sum(getattr(module, name) == 0)) / getattr(module, name).nelement())
    out.append(prune.is_pruned(model))
    for _ in range(4):
        out.append(step(alibi=False))
    out.append(float(torch.sum(model.attn.qkv.weight == 0)))
    for module, name in to_prune:
        prune.remove(module, name)
    out.append(prune.is_pruned(model))
    out.append(",".join(n for n, _ in model.attn.named_parameters()))
    out.append(float(torch.sum(model.attn.qkv.weight == 0)))
    return out


if __name__ == "__main__":
    print(main())
