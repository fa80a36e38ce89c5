"""Image registration with a spatial-transformer head, as in VoxelMorph/STN tutorials, built with the new-style
nn.utils.parametrizations: a weight_norm'd conv encoder, a spectral_norm'd localisation layer and an orthogonal
(Cayley and matrix_exp) mixing matrix.  The predicted affine matrices go through F.affine_grid/F.grid_sample
(bilinear with border padding, nearest with reflection), and a coarse-to-fine pyramid uses F.interpolate in
bilinear/bicubic/area/nearest-exact modes with and without align_corners and with scale_factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations as P
from torch.nn.utils import parametrize


class Registrar(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = P.weight_norm(nn.Conv2d(2, 4, 3, padding=1), dim=0)
        self.loc = P.spectral_norm(nn.Linear(4 * 4 * 4, 6), n_power_iterations=2)
        self.mix = P.orthogonal(nn.Linear(4, 4, bias=False), orthogonal_map="cayley")
        self.rot = P.orthogonal(nn.Linear(3, 3, bias=False), orthogonal_map="matrix_exp")
        self.register_buffer("identity", torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]))

    def forward(self, moving, fixed):
        h = torch.relu(self.conv(torch.cat([moving, fixed], 1)))
        h = torch.einsum("bchw,dc->bdhw", h, self.mix.weight)
        h = F.adaptive_avg_pool2d(h, 4).flatten(1)
        theta = (self.identity + 0.05 * self.loc(h)).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(moving.shape), align_corners=False)
        return F.grid_sample(moving, grid, mode="bilinear", padding_mode="border", align_corners=False), theta


def main():
    torch.manual_seed(0)
    base = torch.rand(3, 1, 8, 8)
    fixed = F.interpolate(base, scale_factor=2, mode="bicubic", align_corners=True)
    shift = torch.tensor([[1.0, 0.0, 0.15], [0.0, 1.0, -0.1]]).expand(3, 2, 3)
    grid = F.affine_grid(shift, [3, 1, 16, 16], align_corners=False)
    moving = F.grid_sample(fixed, grid, mode="nearest", padding_mode="reflection", align_corners=False)
    model = Registrar()
    out = [str(parametrize.is_parametrized(model.conv, "weight")), str(sorted(model.conv.parametrizations.weight
                                                                               .original0.shape))]
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(6):
        warped, theta = model(moving, fixed)
        coarse = F.interpolate(warped, size=(5, 5), mode="bilinear", align_corners=False, antialias=False)
        coarse_fixed = F.interpolate(fixed, size=(5, 5), mode="area")
        loss = F.mse_loss(warped, fixed) + 0.5 * F.l1_loss(coarse, coarse_fixed)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), theta[0, 0, 2].item(), model.loc.weight.norm().item()]
    w = model.mix.weight
    r = model.rot.weight
    out += [(w @ w.T - torch.eye(4)).abs().max().item() < 1e-5, (r @ r.T - torch.eye(3)).abs().max().item() < 1e-5]
    out += F.interpolate(base[:1], scale_factor=1.5, mode="nearest-exact")[0, 0, 3, :6].tolist()
    out += F.interpolate(base[:1], size=(11, 11), mode="bilinear", align_corners=True)[0, 0, 5, :6].tolist()
    out += model.conv.parametrizations.weight.original0.grad.flatten()[:4].tolist()
    out += [torch.linalg.vector_norm(model.conv.weight, dim=(1, 2, 3))[0].item(), str(type(model.loc).__name__)]
    return out
