"""Unsupervised utilities on synthetic blobs (the scikit-style recipes people write in torch): k-means++
seeding with torch.multinomial, Lloyd iterations with cdist / argmin, centroid updates by index_add_ and
scatter_add_ with bincount counts; PCA by linalg.svd of the centred data, by linalg.eigh of the covariance and
by torch.pca_lowrank; t-SNE-like affinities (a binary search for per-point bandwidths, symmetrised P, Student-t
Q) with a few gradient steps on the embedding; k-nearest neighbours by topk and a stable sort of labels."""

import torch


def blobs(n_per, centers, generator):
    pts = [c + 0.4 * torch.randn(n_per, c.shape[0], generator=generator) for c in centers]
    return torch.cat(pts), torch.arange(len(centers)).repeat_interleave(n_per)


def kmeans_pp(x, k, generator):
    centroids = [x[torch.randint(0, x.shape[0], (1,), generator=generator)]]
    for _ in range(1, k):
        d2 = torch.cdist(x, torch.cat(centroids)).min(dim=1).values.pow(2)
        centroids.append(x[torch.multinomial(d2 / d2.sum(), 1, generator=generator)])
    return torch.cat(centroids)


def main():
    g = torch.Generator().manual_seed(17)
    centers = torch.tensor([[0.0, 0.0, 0.0], [3.0, 3.0, 0.0], [0.0, 3.0, 3.0], [3.0, 0.0, 3.0]])
    x, labels = blobs(30, centers, g)
    k = 4
    c = kmeans_pp(x, k, g)
    out = c.flatten().tolist()
    for _ in range(5):
        assign = torch.cdist(x, c).argmin(dim=1)
        counts = torch.bincount(assign, minlength=k).float()
        sums = torch.zeros(k, 3).index_add_(0, assign, x)
        sums2 = torch.zeros(k, 3).scatter_add_(0, assign.unsqueeze(1).expand(-1, 3), x)
        c = sums / counts.clamp(min=1).unsqueeze(1)
        inertia = (x - c[assign]).pow(2).sum()
        out += [inertia.item(), (sums - sums2).abs().max().item()]
    out += counts.tolist()
    # PCA three ways.
    xc = x - x.mean(0, keepdim=True)
    U, S, Vh = torch.linalg.svd(xc, full_matrices=False)
    evals, evecs = torch.linalg.eigh(xc.T @ xc / (x.shape[0] - 1))
    explained = S.pow(2) / (x.shape[0] - 1)
    out += S.tolist() + evals.flip(0).tolist() + [((explained - evals.flip(0)).abs() < 1e-4).all().item()]
    proj = xc @ Vh[:2].T
    out += [(proj.abs() - (xc @ evecs[:, [2, 1]]).abs()).abs().max().item() < 1e-4, proj.pow(2).sum(0).sum().item()]
    torch.manual_seed(0)
    _u, s_low, v_low = torch.pca_lowrank(x, q=2, center=True)
    out += s_low.tolist() + [str(tuple(v_low.shape))]
    # t-SNE-like affinities and a few embedding steps.
    d2 = torch.cdist(x, x).pow(2)
    n = x.shape[0]
    beta_lo, beta_hi = torch.full((n,), 1e-3), torch.full((n,), 1e3)
    eye = torch.eye(n, dtype=torch.bool)
    for _ in range(25):
        beta = (beta_lo * beta_hi).sqrt()
        p = torch.softmax(-d2 * beta[:, None] - eye * 1e9, dim=1)
        entropy = -(p * torch.log(p + 1e-12)).sum(1)
        too_flat = entropy > torch.log(torch.tensor(10.0))
        beta_lo = torch.where(too_flat, beta, beta_lo)
        beta_hi = torch.where(too_flat, beta_hi, beta)
    P = (p + p.T) / (2 * n)
    y = (proj[:, :2] * 1e-2).clone().requires_grad_(True)
    opt = torch.optim.SGD([y], lr=50.0, momentum=0.5)
    for _ in range(5):
        num = 1.0 / (1.0 + torch.cdist(y, y).pow(2))
        num = num.masked_fill(eye, 0.0)
        Q = num / num.sum()
        kl = (P * (torch.log(P + 1e-12) - torch.log(Q + 1e-12))).sum()
        opt.zero_grad()
        kl.backward()
        opt.step()
        out.append(kl.item())
    # kNN classification with topk and a stable sort.
    dist, idx = torch.cdist(x[:10], x).topk(5, dim=1, largest=False)
    votes = labels[idx[:, 1:]]
    pred = torch.mode(votes, dim=1).values
    out += dist[:, 1].tolist() + pred.tolist()
    vals, order = torch.sort(labels.flip(0), stable=True)
    out += order[:12].tolist() + torch.unique_consecutive(vals, return_counts=True)[1].tolist()
    return out
