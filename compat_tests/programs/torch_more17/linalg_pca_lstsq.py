"""A linear-algebra notebook: PCA of correlated data with torch.linalg.svd (explained variance ratio, projection,
reconstruction error) checked against eigh of the covariance (torch.cov), ZCA whitening, least squares with
linalg.lstsq / solve of the normal equations / QR, a ridge-regression closed form, pinv, det / slogdet /
matrix_rank / cond, Cholesky sampling of a Gaussian and a tiny PCA-initialised linear autoencoder fine-tuned."""

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    out = []
    n, d = 200, 5
    mix = torch.tensor([[2.0, 0.5, 0.0, 0.0, 0.1],
                        [0.0, 1.0, 0.3, 0.0, 0.0],
                        [0.0, 0.0, 0.5, 0.2, 0.0],
                        [0.0, 0.0, 0.0, 0.2, 0.05],
                        [0.0, 0.0, 0.0, 0.0, 0.1]])
    X = torch.randn(n, d) @ mix + torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0])
    mean = X.mean(dim=0, keepdim=True)
    Xc = X - mean

    U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
    out += [str(tuple(U.shape)), str(tuple(Vh.shape))]
    var = S ** 2 / (n - 1)
    ratio = var / var.sum()
    out += ratio.tolist()
    out.append(int((torch.cumsum(ratio, 0) < 0.95).sum().item()) + 1)
    k = 2
    Z = Xc @ Vh[:k].T
    recon = Z @ Vh[:k] + mean
    out.append((recon - X).pow(2).mean().item())

    C = torch.cov(Xc.T)
    evals, evecs = torch.linalg.eigh(C)
    out += evals.flip(0).tolist()
    # the eigenvectors agree with the right singular vectors up to sign
    out.append((evecs[:, -1] @ Vh[0]).abs().item())

    W = evecs @ torch.diag(1.0 / torch.sqrt(evals + 1e-5)) @ evecs.T  # ZCA
    Xw = Xc @ W
    out.append((torch.cov(Xw.T) - torch.eye(d)).abs().max().item() < 1e-2)  # round-off sized: compared as a bool

    true_w = torch.tensor([[1.5], [-2.0], [0.5], [0.0], [3.0]])
    y = X @ true_w + 0.1 * torch.randn(n, 1)
    A = torch.cat([X, torch.ones(n, 1)], dim=1)
    sol = torch.linalg.lstsq(A, y).solution
    out += sol.squeeze(1).tolist()
    normal = torch.linalg.solve(A.T @ A, A.T @ y)
    out.append((normal - sol).abs().max().item() < 1e-2)
    Q, R = torch.linalg.qr(A)
    qr_sol = torch.linalg.solve_triangular(R, Q.T @ y, upper=True)
    out.append((qr_sol - sol).abs().max().item() < 1e-3)
    lam = 10.0
    ridge = torch.linalg.solve(A.T @ A + lam * torch.eye(d + 1), A.T @ y)
    out.append(ridge.norm().item())
    out.append((torch.linalg.pinv(A) @ y - sol).abs().max().item() < 1e-3)

    out += [torch.linalg.det(C).item(), torch.linalg.slogdet(C).logabsdet.item(),
            int(torch.linalg.matrix_rank(A).item()), torch.linalg.cond(C).item(),
            torch.linalg.matrix_norm(C).item(), torch.linalg.vector_norm(S, ord=1).item()]

    L = torch.linalg.cholesky(C)
    samples = mean + torch.randn(5000, d) @ L.T
    out.append((torch.cov(samples.T) - C).abs().max().item() < 0.2)

    # a linear autoencoder started at the PCA solution and fine-tuned
    enc, dec = nn.Linear(d, k, bias=False), nn.Linear(k, d, bias=False)
    with torch.no_grad():
        enc.weight.copy_(Vh[:k])
        dec.weight.copy_(Vh[:k].T)
    opt = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    for _ in range(10):
        loss = (dec(enc(Xc)) - Xc).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out
