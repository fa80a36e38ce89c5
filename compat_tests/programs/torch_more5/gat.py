"""Graph attention network written by hand (the pyGAT / PyG-free style): multi-head attention coefficients from
a_src and a_dst projections gathered over an edge list, LeakyReLU, a segment softmax over incoming edges (the
per-node max by scatter_reduce("amax"), exp, sums by scatter_add_), attention dropout, aggregation by index_add_,
concatenated heads then averaged heads, ELU, and global add/mean pooling of a batch of graphs with a batch vector."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def segment_softmax(scores, index, n):
    """Softmax of ``scores`` (E, H) over the edges sharing the same ``index`` (destination node)."""
    idx = index.unsqueeze(-1).expand_as(scores)
    maxes = torch.full((n, scores.size(1)), float("-inf")).scatter_reduce(0, idx, scores, reduce="amax",
                                                                           include_self=True)
    e = (scores - maxes.gather(0, idx)).exp()
    sums = torch.zeros(n, scores.size(1)).scatter_add_(0, idx, e)
    return e / (sums[index] + 1e-16)


class GATLayer(nn.Module):
    def __init__(self, cin, cout, heads, concat=True, dropout=0.2):
        super().__init__()
        self.heads, self.cout, self.concat, self.dropout = heads, cout, concat, dropout
        self.lin = nn.Linear(cin, heads * cout, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, cout))
        self.att_dst = nn.Parameter(torch.empty(1, heads, cout))
        self.bias = nn.Parameter(torch.zeros(heads * cout if concat else cout))
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x, edge_index):
        n = x.size(0)
        h = self.lin(x).view(n, self.heads, self.cout)
        src, dst = edge_index
        alpha_src = (h * self.att_src).sum(-1)
        alpha_dst = (h * self.att_dst).sum(-1)
        scores = F.leaky_relu(alpha_src[src] + alpha_dst[dst], 0.2)
        alpha = segment_softmax(scores, dst, n)
        alpha = F.dropout(alpha, p=self.dropout, training=self.training)
        out = torch.zeros_like(h).index_add_(0, dst, h[src] * alpha.unsqueeze(-1))
        out = out.reshape(n, -1) if self.concat else out.mean(dim=1)
        return out + self.bias, alpha


def random_graphs(n_graphs, generator):
    xs, edges, batch, labels, offset = [], [], [], [], 0
    for g in range(n_graphs):
        n = 5 + g % 3
        label = g % 2
        x = torch.randn(n, 4, generator=generator) + label
        ring = torch.arange(n)
        e = torch.stack([torch.cat([ring, (ring + 1) % n, ring]), torch.cat([(ring + 1) % n, ring, ring])])
        if label:
            e = torch.cat([e, torch.stack([ring, (ring + 2) % n])], dim=1)
        xs.append(x)
        edges.append(e + offset)
        batch.append(torch.full((n,), g))
        labels.append(label)
        offset += n
    return torch.cat(xs), torch.cat(edges, 1), torch.cat(batch), torch.tensor(labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gat1 = GATLayer(4, 8, heads=4)
        self.gat2 = GATLayer(32, 8, heads=2, concat=False)
        self.head = nn.Linear(16, 2)

    def forward(self, x, edge_index, batch, n_graphs):
        x = F.dropout(x, 0.1, self.training)
        h, _ = self.gat1(x, edge_index)
        h, alpha = self.gat2(F.elu(h), edge_index)
        h = F.elu(h)
        summed = torch.zeros(n_graphs, h.size(1)).index_add_(0, batch, h)
        counts = torch.bincount(batch, minlength=n_graphs).clamp(min=1).unsqueeze(1)
        pooled = torch.cat([summed, summed / counts], dim=1)
        return self.head(pooled), alpha


def main():
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    x, edge_index, batch, labels = random_graphs(12, g)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=5e-4)
    out = []
    for _ in range(12):
        model.train()
        logits, _ = model(x, edge_index, batch, 12)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits, alpha = model(x, edge_index, batch, 12)
    sums = torch.zeros(x.size(0), alpha.size(1)).index_add_(0, edge_index[1], alpha)
    out += [(logits.argmax(1) == labels).float().mean().item(), sums.min().item(), sums.max().item()]
    out += alpha[:6].flatten().tolist()
    out += model.gat1.att_src.grad.flatten()[:5].tolist()
    return out
