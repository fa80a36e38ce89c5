"""Temporal-Fusion-Transformer style quantile forecasting, as in popular forecasting repositories: sliding windows
cut with Tensor.unfold, gated residual networks (ELU, nn.GLU, LayerNorm), a variable-selection network (softmax
weights over per-variable GRNs stacked with torch.stack), an LSTM encoder with interpretable multi-head attention
under a causal torch.triu mask, and a pinball (quantile) loss over three quantiles; then a Gaussian head trained
with F.gaussian_nll_loss and a count head (torch.poisson counts) with F.poisson_nll_loss, evaluated with
torch.quantile / torch.kthvalue coverage; Adagrad with a MultiStepLR schedule."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

QUANTILES = (0.1, 0.5, 0.9)


class GRN(nn.Module):
    def __init__(self, d_in, d_hidden, d_out, dropout=0.1):
        super().__init__()
        self.skip = nn.Linear(d_in, d_out) if d_in != d_out else nn.Identity()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.gate = nn.Sequential(nn.Dropout(dropout), nn.Linear(d_hidden, 2 * d_out), nn.GLU(dim=-1))
        self.norm = nn.LayerNorm(d_out)

    def forward(self, x):
        h = self.fc2(F.elu(self.fc1(x)))
        return self.norm(self.skip(x) + self.gate(h))


class VariableSelection(nn.Module):
    def __init__(self, n_vars, d_model):
        super().__init__()
        self.embed = nn.ModuleList(nn.Linear(1, d_model) for _ in range(n_vars))
        self.var_grns = nn.ModuleList(GRN(d_model, d_model, d_model) for _ in range(n_vars))
        self.weight_grn = GRN(n_vars * d_model, d_model, n_vars)

    def forward(self, x):  # (batch, time, n_vars)
        embedded = [emb(x[..., i:i + 1]) for i, emb in enumerate(self.embed)]
        weights = F.softmax(self.weight_grn(torch.cat(embedded, dim=-1)), dim=-1)
        processed = torch.stack([grn(e) for grn, e in zip(self.var_grns, embedded)], dim=-1)
        return (processed * weights.unsqueeze(-2)).sum(-1), weights


class InterpretableAttention(nn.Module):
    """Heads share the value projection so their averaged attention is interpretable."""

    def __init__(self, d_model, heads):
        super().__init__()
        self.heads, self.d_head = heads, d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, self.d_head)
        self.out = nn.Linear(self.d_head, d_model)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.d_head).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, self.d_head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        attn = scores.masked_fill(causal, float("-inf")).softmax(-1)
        head_out = attn @ self.v(x).unsqueeze(1)
        return self.out(head_out.mean(1)), attn.mean(1)


class TFT(nn.Module):
    def __init__(self, n_vars=3, d_model=8, heads=2, n_out=3):
        super().__init__()
        self.select = VariableSelection(n_vars, d_model)
        self.lstm = nn.LSTM(d_model, d_model, batch_first=True)
        self.post_lstm = GRN(d_model, d_model, d_model)
        self.attn = InterpretableAttention(d_model, heads)
        self.head = nn.Linear(d_model, n_out)

    def forward(self, x):
        selected, weights = self.select(x)
        h, _ = self.lstm(selected)
        h = self.post_lstm(h + selected)
        a, attn = self.attn(h)
        return self.head(F.layer_norm(a + h, (h.shape[-1],))[:, -1]), weights, attn


def pinball_loss(pred, target):
    q = torch.tensor(QUANTILES)
    err = target.unsqueeze(-1) - pred
    return torch.max(q * err, (q - 1) * err).mean()


def make_windows(g, length=80, window=10):
    t = torch.arange(length, dtype=torch.float32)
    series = torch.sin(t / 4) + 0.1 * t / length + 0.2 * torch.randn(length, generator=g)
    weekday = (t % 7) / 6
    trend = t / length
    feats = torch.stack([series, weekday, trend], dim=-1)  # (length, 3)
    windows = feats.unfold(0, window + 1, 2)  # (n, 3, window + 1)
    x = windows[..., :window].transpose(1, 2)
    y = windows[:, 0, window]
    return x, y


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(5)
    x, y = make_windows(g)
    out = [repr(tuple(x.shape))]
    model = TFT()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05, lr_decay=1e-3, initial_accumulator_value=0.1)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3], gamma=0.5)
    for _epoch in range(4):
        perm = torch.randperm(x.shape[0])
        for idx in perm.split(12):
            pred, weights, attn = model(x[idx])
            loss = pinball_loss(pred, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        sched.step()
    model.eval()
    with torch.no_grad():
        pred, weights, attn = model(x)
    coverage = ((y >= pred[:, 0]) & (y <= pred[:, 2])).float().mean()
    out += [coverage.item(), weights.mean((0, 1)).tolist()[0], attn[0, -1].sum().item(), attn[0, 0, 1].item(),
            sched.get_last_lr()[0]]

    # Gaussian and Poisson heads on the same windows
    model.train()
    gauss = TFT(n_out=2)
    counts = torch.poisson(torch.exp(y.clamp(-1, 1)), generator=g)
    opt2 = torch.optim.Adagrad(gauss.parameters(), lr=0.05)
    for _step in range(3):
        pred, _, _ = gauss(x)
        mean, var = pred[:, 0], F.softplus(pred[:, 1]) + 1e-3
        nll = F.gaussian_nll_loss(mean, y, var, full=True)
        pois = F.poisson_nll_loss(pred[:, 0], counts, log_input=True, full=True)
        loss = nll + 0.5 * pois
        opt2.zero_grad()
        loss.backward()
        opt2.step()
        out += [nll.item(), pois.item()]
    residual = (y - pred[:, 0].detach()).abs()
    out += [torch.quantile(residual, 0.9).item(), torch.quantile(residual, torch.tensor([0.25, 0.75]),
                                                                 interpolation="midpoint").tolist()[1],
            torch.kthvalue(residual, 5).values.item(), int(torch.kthvalue(residual, 5).indices),
            counts.sum().item(), F.poisson_nll_loss(counts, counts + 1, log_input=False).item()]
    return out
