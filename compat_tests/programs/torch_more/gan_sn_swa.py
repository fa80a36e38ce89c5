"""A GAN with a discriminator normalized by nn.utils.spectral_norm and weight_norm (hinge loss), a generator with a
spectral-normalized ConvTranspose2d and an exponential moving average of it (swa_utils.AveragedModel with
get_ema_multi_avg_fn; made before the first forward: as in torch, a module holding a computed weight cannot be
deep-copied), then stochastic weight averaging of a classifier (a parametrizations.weight_norm layer, which can
be copied) with SWALR and update_bn."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations, spectral_norm, weight_norm
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset


def main():
    warnings.simplefilter("ignore", FutureWarning)  # weight_norm's deprecation
    torch.manual_seed(11)
    D = nn.Sequential(spectral_norm(nn.Conv2d(1, 8, 3, 2, 1)), nn.LeakyReLU(0.1), nn.Flatten(),
                      weight_norm(nn.Linear(8 * 4 * 4, 1)))
    G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Unflatten(1, (2, 4, 4)),
                      spectral_norm(nn.ConvTranspose2d(2, 1, 4, 2, 1)), nn.Tanh())
    ema_G = AveragedModel(G, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    opt_D = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.9))
    opt_G = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    real = torch.tanh(torch.randn(64, 1, 8, 8) + torch.linspace(-1, 1, 8).view(1, 1, 1, 8))
    out = [",".join(n for n, _ in D.named_parameters()), ",".join(D.state_dict().keys()),
           ",".join(G.state_dict().keys())]
    for batch in real.split(16):
        z = torch.randn(16, 4)
        d_loss = F.relu(1 - D(batch)).mean() + F.relu(1 + D(G(z).detach())).mean()
        opt_D.zero_grad()
        d_loss.backward()
        opt_D.step()
        g_loss = -D(G(z)).mean()
        opt_G.zero_grad()
        g_loss.backward()
        opt_G.step()
        ema_G.update_parameters(G)
        out += [d_loss.item(), g_loss.item(), D[0].weight_u.norm().item(), D[3].weight_g.sum().item(),
                G[3].weight_u.sum().item()]
    with torch.no_grad():
        z = torch.randn(4, 4)
        out += [G(z).mean().item(), ema_G(z).mean().item(), ema_G.n_averaged.item()]
    D.eval()
    out.append(D(real[:4]).sum().item())

    # SWA of a small classifier with BatchNorm.
    x = torch.randn(96, 5)
    y = (x[:, 0] + x[:, 1] > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = nn.Sequential(parametrizations.weight_norm(nn.Linear(5, 16)), nn.BatchNorm1d(16), nn.ReLU(),
                          nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2)
    for epoch in range(5):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            out.append(loss.item())
        if epoch >= 1:
            swa_model.update_parameters(model)
            swa_scheduler.step()
            out.append(swa_scheduler.get_last_lr()[0])
    update_bn(loader, swa_model)
    swa_model.eval()
    with torch.no_grad():
        out.append(F.cross_entropy(swa_model(x), y).item())
    out.append(swa_model.module[1].running_mean.sum().item())
    out.append(swa_model.n_averaged.item())
    out.append(",".join(swa_model.state_dict()))
    return out


if __name__ == "__main__":
    print(main())
