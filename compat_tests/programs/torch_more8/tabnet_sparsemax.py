"""TabNet in miniature (as in dreamquark-ai/tabnet): sparsemax written by hand (torch.sort descending, cumsum,
a support size from comparisons, torch.gather of the threshold, clamp) as a custom torch.autograd.Function with its
own backward, ghost batch normalization (torch.chunk into virtual batches, BatchNorm1d with momentum=0.02),
GLU blocks (F.glu), sequential attentive steps with a prior scaled by relaxation gamma, the sparsity
regularizer (entropy of the masks), feature importances aggregated from the masks; categorical columns
through nn.Embedding concatenated with numerical ones, trained with cross-entropy, Adam and StepLR; then
evaluation-mode predictions and the running statistics."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Sparsemax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z):
        z_sorted, _ = torch.sort(z, dim=-1, descending=True)
        k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
        cumsum = z_sorted.cumsum(-1)
        support = (1 + k * z_sorted) > cumsum
        k_z = support.sum(-1, keepdim=True)
        tau = (cumsum.gather(-1, k_z - 1) - 1) / k_z.to(z.dtype)
        p = torch.clamp(z - tau, min=0)
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, grad):
        (p,) = ctx.saved_tensors
        nonzero = (p > 0).to(grad.dtype)
        v = (grad * nonzero).sum(-1, keepdim=True) / nonzero.sum(-1, keepdim=True)
        return nonzero * (grad - v)


class GhostBatchNorm(nn.Module):
    def __init__(self, dim, virtual_batch_size=8, momentum=0.02):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(max(1, x.shape[0] // self.virtual_batch_size), 0)
        return torch.cat([self.bn(c) for c in chunks], 0)


class GLUBlock(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.fc = nn.Linear(in_dim, 2 * out_dim, bias=False)
        self.bn = GhostBatchNorm(2 * out_dim)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)


class FeatureTransformer(nn.Module):
    def __init__(self, in_dim, dim):
        super().__init__()
        self.first = GLUBlock(in_dim, dim)
        self.second = GLUBlock(dim, dim)

    def forward(self, x):
        h = self.first(x)
        return (h + self.second(h)) * torch.sqrt(torch.tensor(0.5))


class TabNet(nn.Module):
    def __init__(self, n_num, cat_sizes, emb_dim=3, n_d=8, n_a=8, n_steps=3, gamma=1.3, n_classes=3):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(n, emb_dim) for n in cat_sizes])
        in_dim = n_num + emb_dim * len(cat_sizes)
        self.initial_bn = nn.BatchNorm1d(in_dim, momentum=0.01)
        self.n_d, self.gamma = n_d, gamma
        self.initial = FeatureTransformer(in_dim, n_d + n_a)
        self.steps = nn.ModuleList([FeatureTransformer(in_dim, n_d + n_a) for _ in range(n_steps)])
        self.attentive = nn.ModuleList([nn.Sequential(nn.Linear(n_a, in_dim, bias=False), GhostBatchNorm(in_dim))
                                        for _ in range(n_steps)])
        self.head = nn.Linear(n_d, n_classes)

    def forward(self, numeric, categorical):
        x = torch.cat([numeric] + [emb(categorical[:, i]) for i, emb in enumerate(self.embeds)], 1)
        x = self.initial_bn(x)
        prior = torch.ones_like(x)
        att = self.initial(x)[:, self.n_d:]
        decision = torch.zeros(x.shape[0], self.n_d)
        sparsity = 0.0
        importance = torch.zeros_like(x)
        for step, attentive in zip(self.steps, self.attentive):
            mask = Sparsemax.apply(attentive(att) * prior)
            prior = prior * (self.gamma - mask)
            sparsity = sparsity + (-mask * torch.log(mask + 1e-10)).sum(1).mean()
            h = step(mask * x)
            d = F.relu(h[:, :self.n_d])
            decision = decision + d
            importance = importance + mask * d.sum(1, keepdim=True)
            att = h[:, self.n_d:]
        return self.head(decision), sparsity / len(self.steps), importance


def main():
    torch.manual_seed(5)
    g = torch.Generator().manual_seed(5)
    n = 48
    numeric = torch.randn(n, 4, generator=g)
    categorical = torch.stack([torch.randint(0, 5, (n,), generator=g), torch.randint(0, 3, (n,), generator=g)], 1)
    labels = ((numeric[:, 0] > 0).long() + (categorical[:, 0] > 2).long())
    model = TabNet(4, [5, 3])
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    out = []
    z = torch.randn(4, 6, generator=g, requires_grad=True)
    p = Sparsemax.apply(z)
    (p * torch.arange(6.0)).sum().backward()
    out += [p.sum().item(), (p == 0).sum().item(), z.grad.abs().sum().item()]
    for _ in range(6):
        logits, sparsity, _ = model(numeric, categorical)
        loss = F.cross_entropy(logits, labels) + 1e-3 * sparsity
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), sparsity.item()]
    model.eval()
    with torch.no_grad():
        logits, _, importance = model(numeric, categorical)
        importance = importance.sum(0) / importance.sum()
    out += [(logits.argmax(1) == labels).float().mean().item(), *importance.tolist(),
            model.initial_bn.running_mean.sum().item(), model.initial_bn.running_var.sum().item(),
            model.steps[0].first.bn.bn.num_batches_tracked.item()]
    return out
