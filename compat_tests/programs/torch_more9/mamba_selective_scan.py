"""A minimal Mamba-style selective state-space language model (as in the mamba-minimal / mamba.py repositories):
a hand-written RMSNorm (torch.rsqrt of the mean square), an input projection split with Tensor.chunk, a causal
depthwise nn.Conv1d (groups=channels, padding=k-1, output trimmed), SiLU gates, input-dependent dt/B/C from one
Linear split with torch.split, dt through F.softplus, A = -exp(A_log) initialised from torch.arange + repeat,
the selective scan as a Python loop over time with torch.einsum and torch.stack, tied input/output embeddings,
AdamW with no-decay parameter groups (chosen by ndim and name) and a OneCycleLR schedule."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class MambaBlock(nn.Module):
    def __init__(self, d_model, d_state=4, expand=2, d_conv=3):
        super().__init__()
        d_inner = expand * d_model
        self.dt_rank = math.ceil(d_model / 4)
        self.d_state = d_state
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        self.conv1d = nn.Conv1d(d_inner, d_inner, d_conv, groups=d_inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(d_inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, d_inner)
        A = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)

    def forward(self, x):
        b, length, _ = x.shape
        x_and_res = self.in_proj(x)
        x, res = x_and_res.chunk(2, dim=-1)
        x = self.conv1d(x.transpose(1, 2))[:, :, :length].transpose(1, 2)
        x = F.silu(x)
        y = self.ssm(x)
        return self.out_proj(y * F.silu(res))

    def ssm(self, x):
        A = -torch.exp(self.A_log.float())
        delta, B, C = torch.split(self.x_proj(x), [self.dt_rank, self.d_state, self.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(delta))
        deltaA = torch.exp(torch.einsum("bld,dn->bldn", delta, A))
        deltaB_u = torch.einsum("bld,bln,bld->bldn", delta, B, x)
        state = torch.zeros(x.size(0), x.size(2), self.d_state)
        ys = []
        for i in range(x.size(1)):
            state = deltaA[:, i] * state + deltaB_u[:, i]
            ys.append(torch.einsum("bdn,bn->bd", state, C[:, i, :]))
        return torch.stack(ys, dim=1) + x * self.D


class MambaLM(nn.Module):
    def __init__(self, vocab, d_model=16, n_layers=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList(nn.ModuleDict({"norm": RMSNorm(d_model), "mixer": MambaBlock(d_model)})
                                    for _ in range(n_layers))
        self.norm_f = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.lm_head.weight = self.embedding.weight

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer["mixer"](layer["norm"](x)) + x
        return self.lm_head(self.norm_f(x))


def main():
    torch.manual_seed(0)
    vocab = 11
    model = MambaLM(vocab)
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or name.endswith("A_log") or "norm" in name else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.95))
    steps = 8
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=steps, pct_start=0.25)
    # Copy task: the second half of each sequence repeats the first.
    g = torch.Generator().manual_seed(1)
    out = [sum(p.numel() for p in model.parameters()), len(decay), len(no_decay)]
    for _ in range(steps):
        half = torch.randint(1, vocab, (4, 5), generator=g)
        ids = torch.cat([half, half], dim=1)
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, vocab), ids[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        out += [loss.item(), gn.item(), sched.get_last_lr()[0]]
    out.append(model.layers[0]["mixer"].A_log.detach().sum().item())
    out.append(model.embedding.weight.data_ptr() == model.lm_head.weight.data_ptr())
    with torch.no_grad():
        ids = torch.tensor([[3, 4, 5]])
        for _ in range(3):
            nxt = model(ids)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, nxt], 1)
    out += ids.flatten().tolist()
    return out
