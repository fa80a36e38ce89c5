"""LoRA fine-tuning written by hand (as in microsoft/LoRA's loralib and minimal PEFT re-implementations): a frozen
pretrained nn.Linear wrapped with low-rank A/B factors (kaiming_uniform_ with a=sqrt(5), B zero-initialised,
scaling alpha/r, dropout on the adapter path), injected by walking named_modules and replacing children with
setattr, requires_grad_(False) on everything but the adapters, a lora-only state_dict saved with torch.save to
io.BytesIO and loaded with torch.load(weights_only=True) and load_state_dict(strict=False) (its missing/unexpected
keys), weights merged into the base layer for inference, and parameters_to_vector / vector_to_parameters."""

import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, dropout=0.1):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r
        self.lora_dropout = nn.Dropout(dropout)
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + (self.lora_dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling
        return out

    @torch.no_grad()
    def merge(self):
        self.base.weight += (self.lora_B @ self.lora_A) * self.scaling
        self.merged = True


def inject_lora(model, target_names, **kwargs):
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and child_name in target_names:
                setattr(module, child_name, LoRALinear(child, **kwargs))
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    return model


class Attention(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.q_proj, self.v_proj, self.o_proj = (nn.Linear(d, d) for _ in range(3))
        # No key bias: it shifts all of a query's scores equally, so its gradient is pure round-off (Adam would
        # turn that into full-size steps).
        self.k_proj = nn.Linear(d, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (proj(x).view(b, t, self.heads, -1).transpose(1, 2) for proj in (self.q_proj, self.k_proj,
                                                                                   self.v_proj))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, d))


class TinyModel(nn.Module):
    def __init__(self, vocab=13, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.attn = Attention(d)
        self.norm = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 32), nn.GELU(approximate="tanh"), nn.Linear(32, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        h = self.embed(ids)
        h = h + self.attn(self.norm(h))
        return self.head(h + self.mlp(h))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = TinyModel()
    # "Pretraining": a few full steps on one task.
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    out = []
    for _ in range(3):
        ids = torch.randint(0, 13, (4, 8), generator=g)
        loss = F.cross_entropy(model(ids[:, :-1]).flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    frozen_before = parameters_to_vector(model.parameters()).detach().clone()

    inject_lora(model, {"q_proj", "v_proj"}, r=4, alpha=8)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    out += [repr(trainable), sum(p.numel() for p in model.parameters() if p.requires_grad)]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-2, weight_decay=0.0)
    for _ in range(5):
        ids = torch.randint(0, 13, (4, 8), generator=g)
        target = (ids + 1) % 13  # the fine-tuning task: predict the next token id
        loss = F.cross_entropy(model(ids).transpose(1, 2), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    base_now = parameters_to_vector([p for n, p in model.named_parameters() if "lora_" not in n]).detach()
    out.append((base_now - frozen_before).abs().max().item())

    buffer = io.BytesIO()
    torch.save({k: v for k, v in model.state_dict().items() if "lora_" in k}, buffer)
    buffer.seek(0)
    lora_state = torch.load(buffer, weights_only=True)
    out.append(repr(sorted(lora_state)))
    fresh = inject_lora(TinyModel(), {"q_proj", "v_proj"})
    fresh.load_state_dict({k: v for k, v in model.state_dict().items() if "lora_" not in k}, strict=False)
    result = fresh.load_state_dict(lora_state, strict=False)
    out += [repr(result.unexpected_keys), len(result.missing_keys), result.missing_keys[0]]

    model.eval()
    fresh.eval()
    ids = torch.randint(0, 13, (2, 8), generator=g)
    with torch.no_grad():
        before = model(ids)
        for m in model.modules():
            if isinstance(m, LoRALinear):
                m.merge()
        after = model(ids)
    out += [before.sum().item(), (before - after).abs().max().item(), (fresh(ids) - before).abs().max().item()]
    vec = parameters_to_vector(fresh.parameters())
    vector_to_parameters(vec * 0.5, fresh.parameters())
    out += [vec.numel(), parameters_to_vector(fresh.parameters()).sum().item(), vec.sum().item()]
    return out
