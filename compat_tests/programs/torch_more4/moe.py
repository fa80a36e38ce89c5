"""A sparse mixture-of-experts feed-forward layer (Switch/GShard style) in a tiny sequence classifier: a linear
router with top-k gating over softmax probabilities (renormalised), tokens dispatched to experts with
nonzero / index_select and combined back with index_add_, a capacity-free load-balancing auxiliary loss from the
fraction of tokens per expert (one_hot, mean) times the mean router probability, a router z-loss with logsumexp,
and training with Adam; also a dense einsum formulation checked against the sparse dispatch."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x), approximate="tanh"))


class MoE(nn.Module):
    def __init__(self, dim, n_experts=4, k=2, hidden=32):
        super().__init__()
        self.router = nn.Linear(dim, n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(n_experts)])
        self.k = k

    def forward(self, x):
        shape = x.shape
        tokens = x.reshape(-1, shape[-1])
        logits = self.router(tokens)
        probs = logits.softmax(dim=-1)
        gate, chosen = probs.topk(self.k, dim=-1)
        gate = gate / gate.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            token_idx, slot = torch.nonzero(chosen == e, as_tuple=True)
            if token_idx.numel() == 0:
                continue
            y = expert(tokens.index_select(0, token_idx)) * gate[token_idx, slot].unsqueeze(1)
            out = out.index_add(0, token_idx, y)
        n = len(self.experts)
        fraction = F.one_hot(chosen[:, 0], n).float().mean(0)
        aux = n * (fraction * probs.mean(0)).sum()
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        self.last_chosen = chosen
        return out.reshape(shape), aux, z_loss

    def dense(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        probs = self.router(tokens).softmax(-1)
        gate, chosen = probs.topk(self.k, dim=-1)
        weights = torch.zeros_like(probs).scatter(1, chosen, gate / gate.sum(-1, keepdim=True))
        all_out = torch.stack([expert(tokens) for expert in self.experts], dim=1)
        return torch.einsum("te,ted->td", weights, all_out).reshape(x.shape)


class Classifier(nn.Module):
    def __init__(self, vocab=30, dim=16, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.RMSNorm(dim)
        self.moe = MoE(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        h = self.embed(ids)
        y, aux, z = self.moe(self.norm(h))
        return self.head((h + y).mean(1)), aux, z


def main():
    torch.manual_seed(41)
    ids = torch.randint(0, 30, (12, 6))
    labels = ids[:, 0] % 3
    model = Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    out = []
    for _ in range(10):
        logits, aux, z = model(ids)
        loss = F.cross_entropy(logits, labels) + 0.01 * aux + 1e-3 * z
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), aux.item(), z.item()]
    counts = torch.bincount(model.moe.last_chosen.flatten(), minlength=4)
    out += counts.tolist()
    with torch.no_grad():
        h = model.norm(model.embed(ids))
        sparse, _, _ = model.moe(h)
        out.append((sparse - model.moe.dense(h)).abs().max().item())
        out += sparse[0, :2].flatten().tolist()
    grads = [p.grad.norm().item() for p in model.moe.experts.parameters()]
    out += grads
    return out
