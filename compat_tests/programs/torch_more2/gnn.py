"""Graph neural network message passing written by hand (as in PyG-free tutorials): an edge list with self
loops, symmetric degree normalisation from index_add_/bincount, GCN layers aggregating with index_add_, a
max-aggregation layer with scatter_reduce(reduce="amax", include_self=False), mean-pooled graph readout with
scatter_reduce("mean"), node classification with masks and train/val accuracy."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def ring_of_cliques(n_cliques, size):
    edges = []
    for c in range(n_cliques):
        base = c * size
        edges += [(base + i, base + j) for i in range(size) for j in range(size) if i != j]
        edges.append((base, ((c + 1) % n_cliques) * size + 1))
    src, dst = zip(*edges)
    edge_index = torch.tensor([src + dst, dst + src])  # undirected
    return torch.unique(edge_index, dim=1)


class GCNLayer(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout, bias=False)
        self.bias = nn.Parameter(torch.zeros(cout))

    def forward(self, x, edge_index):
        n = x.size(0)
        loops = torch.arange(n).repeat(2, 1)
        ei = torch.cat([edge_index, loops], dim=1)
        src, dst = ei
        deg = torch.zeros(n).index_add_(0, dst, torch.ones(dst.numel()))
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        h = self.lin(x)
        out = torch.zeros_like(h).index_add_(0, dst, h[src] * norm.unsqueeze(-1))
        return out + self.bias


class MaxLayer(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.msg = nn.Linear(2 * cin, cout)

    def forward(self, x, edge_index):
        src, dst = edge_index
        m = F.relu(self.msg(torch.cat([x[dst], x[src] - x[dst]], dim=-1)))
        index = dst.unsqueeze(-1).expand_as(m)
        return torch.zeros(x.size(0), m.size(1)).scatter_reduce(0, index, m, reduce="amax", include_self=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GCNLayer(6, 16)
        self.conv2 = MaxLayer(16, 16)
        self.conv3 = GCNLayer(16, 3)

    def forward(self, x, edge_index):
        x = F.dropout(F.relu(self.conv1(x, edge_index)), p=0.3, training=self.training)
        x = self.conv2(x, edge_index)
        return self.conv3(x, edge_index), x


def main():
    torch.manual_seed(12)
    edge_index = ring_of_cliques(6, 5)
    n = 30
    community = torch.arange(n) // 5
    labels = community % 3
    x = F.one_hot(community, 6).float() * 0.5 + 0.5 * torch.randn(n, 6)
    train_mask = torch.zeros(n, dtype=torch.bool)
    train_mask[::3] = True
    val_mask = ~train_mask
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    out = [edge_index.shape[1], torch.bincount(edge_index[1], minlength=n).float().mean().item()]
    for _epoch in range(25):
        model.train()
        opt.zero_grad()
        logits, _ = model(x, edge_index)
        loss = F.cross_entropy(logits[train_mask], labels[train_mask])
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits, hidden = model(x, edge_index)
        pred = logits.argmax(dim=1)
        out += [(pred[train_mask] == labels[train_mask]).float().mean().item(),
                (pred[val_mask] == labels[val_mask]).float().mean().item()]
        graph_id = community // 2
        pooled = torch.zeros(3, hidden.size(1)).scatter_reduce(
            0, graph_id.unsqueeze(-1).expand_as(hidden), hidden, reduce="mean", include_self=False)
        out += pooled.sum(1).tolist()
        out += torch.zeros(3).scatter_add(0, graph_id, hidden[:, 0]).tolist()
        src, dst = edge_index
        sums = torch.zeros(n, 16).index_reduce_(0, dst, hidden[src], "prod", include_self=False)
        out.append(sums.abs().sum().item())
    # Gradient of a scatter_reduce max and mean with respect to the messages.
    m = torch.randn(8, 2, requires_grad=True)
    idx = torch.tensor([0, 1, 0, 2, 1, 1, 2, 0]).unsqueeze(-1).expand(8, 2)
    for reduce in ("amax", "mean", "sum", "amin"):
        r = torch.ones(3, 2).scatter_reduce(0, idx, m, reduce=reduce, include_self=reduce != "sum")
        (r * torch.arange(6.0).view(3, 2)).sum().backward()
        out += m.grad.flatten().tolist()
        m.grad = None
    return out
