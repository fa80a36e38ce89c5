"""LightGCN-style collaborative filtering with sparse tensors (as in the LightGCN-PyTorch and PyG-less GCN
tutorials): a user-item bipartite adjacency built with torch.sparse_coo_tensor and coalesce(), symmetric degree
normalisation from torch.sparse.sum(...).to_dense() and pow(-0.5) with inf masked to zero, layer propagation with
torch.sparse.mm averaged over layers, in-batch sampled-softmax loss with a temperature, recall@k from torch.topk
after masking training interactions with masked_fill, and a Kipf-style GCN node classifier whose propagation uses
index_add_ over an edge list for comparison with the sparse product."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def normalized_adjacency(users, items, n_users, n_items):
    n = n_users + n_items
    rows = torch.cat([users, items + n_users])
    cols = torch.cat([items + n_users, users])
    adj = torch.sparse_coo_tensor(torch.stack([rows, cols]), torch.ones(rows.numel()), (n, n)).coalesce()
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    d_inv_sqrt = deg.pow(-0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
    idx = adj.indices()
    vals = d_inv_sqrt[idx[0]] * adj.values() * d_inv_sqrt[idx[1]]
    return torch.sparse_coo_tensor(idx, vals, adj.shape), adj


class LightGCN(nn.Module):
    def __init__(self, n_users, n_items, dim=8, n_layers=2):
        super().__init__()
        self.n_users, self.n_layers = n_users, n_layers
        self.embedding = nn.Embedding(n_users + n_items, dim)
        nn.init.normal_(self.embedding.weight, std=0.1)

    def forward(self, adj):
        e = self.embedding.weight
        layers = [e]
        for _ in range(self.n_layers):
            e = torch.sparse.mm(adj, e)
            layers.append(e)
        final = torch.stack(layers, dim=1).mean(dim=1)
        return torch.split(final, [self.n_users, final.shape[0] - self.n_users])


def gcn_propagate(x, edge_index, n):
    src, dst = edge_index
    deg = torch.zeros(n).index_add_(0, dst, torch.ones(dst.numel())) + 1.0
    norm = deg[src].rsqrt() * deg[dst].rsqrt()
    out = torch.zeros_like(x).index_add_(0, dst, x[src] * norm.unsqueeze(1))
    return out + x / deg.unsqueeze(1)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    n_users, n_items = 10, 14
    users = torch.randint(0, n_users, (40,), generator=g)
    items = (users + torch.randint(0, 4, (40,), generator=g)) % n_items
    adj, raw = normalized_adjacency(users, items, n_users, n_items)
    out = [raw._nnz(), raw.values().sum().item(), float(raw.is_coalesced()), adj.to_dense().sum().item()]
    model = LightGCN(n_users, n_items)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(6):
        perm = torch.randperm(users.numel(), generator=g)[:16]
        u_emb, i_emb = model(adj)
        bu, bi = users[perm], items[perm]
        logits = F.normalize(u_emb[bu], dim=-1) @ F.normalize(i_emb[bi], dim=-1).T / 0.2
        same = bi.unsqueeze(0) == bi.unsqueeze(1)
        logits = logits.masked_fill(same & ~torch.eye(16, dtype=torch.bool), float("-inf"))
        loss = F.cross_entropy(logits, torch.arange(16))
        reg = 1e-3 * model.embedding.weight.norm(2).pow(2) / 2
        opt.zero_grad()
        (loss + reg).backward()
        opt.step()
        out += [loss.item(), reg.item()]
    with torch.no_grad():
        u_emb, i_emb = model(adj)
        scores = u_emb @ i_emb.T
        train_mask = torch.zeros(n_users, n_items, dtype=torch.bool)
        train_mask[users, items] = True
        held_out = scores.masked_fill(train_mask, -1e9)
        top = torch.topk(held_out, k=3, dim=1).indices
        hits = torch.gather(train_mask.float(), 1, torch.topk(scores, 3, dim=1).indices).sum(1)
    out += [scores.sum().item(), hits.mean().item(), top.float().mean().item()]

    # Dense GCN features from the same graph (items as nodes), sparse product vs index_add_ propagation.
    n = n_users + n_items
    edge_index = raw.indices()
    x = torch.randn(n, 5, generator=g)
    y = torch.cat([torch.zeros(n_users), torch.ones(n_items)]).long()
    lin1, lin2 = nn.Linear(5, 8), nn.Linear(8, 2)
    opt = torch.optim.SGD(list(lin1.parameters()) + list(lin2.parameters()), lr=0.5, momentum=0.9)
    for _ in range(5):
        h = F.relu(gcn_propagate(lin1(x), edge_index, n))
        h = F.dropout(h, 0.3, training=True)
        loss = F.cross_entropy(gcn_propagate(lin2(h), edge_index, n), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    self_loops = torch.sparse_coo_tensor(torch.arange(n).repeat(2, 1), torch.ones(n), (n, n))
    a_hat = (raw + self_loops).coalesce()
    deg = torch.sparse.sum(a_hat, 1).to_dense()
    dense = torch.diag(deg.rsqrt()) @ a_hat.to_dense() @ torch.diag(deg.rsqrt())
    out.append((dense @ x - gcn_propagate(x, edge_index, n)).abs().max().item())
    return out
