"""A contractive autoencoder (Rifai et al.), as in popular tutorial repositories: the encoder's Jacobian penalty is
computed exactly, one row per hidden unit, with torch.autograd.grad(is_grads_batched=True) over a batch of one-hot
grad_outputs (torch.eye), cross-checked against the closed form for a sigmoid layer; trained with Adam, then the
Jacobian's singular values (torch.linalg.svdvals) measure how contractive the encoder is."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CAE(nn.Module):
    def __init__(self, d=6, h=3):
        super().__init__()
        self.enc = nn.Linear(d, h)
        self.dec = nn.Linear(h, d)

    def forward(self, x):
        z = torch.sigmoid(self.enc(x))
        return z, self.dec(z)


def jacobian_penalty(model, x):
    x = x.detach().requires_grad_(True)
    z, recon = model(x)
    h = z.shape[1]
    # grad_outputs of shape (h, batch, h): row k asks for d z[:, k] / d x, all rows in one batched call
    basis = torch.eye(h).unsqueeze(1).expand(h, x.shape[0], h)
    (jac,) = torch.autograd.grad(z, x, grad_outputs=basis, create_graph=True, is_grads_batched=True)
    return recon, jac, z


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    latent = torch.rand(32, 2, generator=g)
    data = torch.cat([latent, latent.sin(), latent[:, :1] * latent[:, 1:], latent.sum(1, keepdim=True)], 1)
    model = CAE()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    out = []
    for _step in range(6):
        recon, jac, z = jacobian_penalty(model, data)
        penalty = jac.pow(2).sum() / data.shape[0]
        loss = F.mse_loss(recon, data) + 0.1 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), penalty.item()]
    recon, jac, z = jacobian_penalty(model, data[:4])
    closed = (z * (1 - z)).unsqueeze(-1) * model.enc.weight.unsqueeze(0)  # (batch, h, d)
    out.append((jac.permute(1, 0, 2) - closed).abs().max().item() < 1e-6)
    svals = torch.linalg.svdvals(jac.permute(1, 0, 2).detach())
    out += svals.flatten().tolist()
    # second-order use: gradient of the penalty w.r.t. the input batch
    x = data[:3].clone().requires_grad_(True)
    z, _ = model(x)
    (jz,) = torch.autograd.grad(z, x, torch.eye(3).unsqueeze(1).expand(3, 3, 3), create_graph=True,
                                is_grads_batched=True)
    (gx,) = torch.autograd.grad(jz.pow(2).sum(), x)
    out += gx.flatten().tolist()
    return out
