"""A tiny NeRF (as in the nerf-pytorch / tiny-nerf notebooks): sinusoidal positional encoding of points and view
directions, rays from a pinhole camera (torch.meshgrid with indexing="xy", a camera-to-world matrix), stratified
sampling along each ray with torch.rand from a generator, alpha compositing with an exclusive torch.cumprod of
transmittances, hierarchical (fine) sampling by inverse-transform sampling of the coarse weights (torch.cumsum,
torch.searchsorted with right=True, clamps, gather, torch.sort of the merged depths), trained with MSE and PSNR
(-10 * log10) against a synthetic analytic scene, with an ExponentialLR schedule."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def positional_encoding(x, n_freqs):
    freqs = 2.0 ** torch.arange(n_freqs, dtype=x.dtype) * math.pi
    scaled = x[..., None, :] * freqs[:, None]
    return torch.cat([x, torch.sin(scaled).flatten(-2), torch.cos(scaled).flatten(-2)], dim=-1)


class TinyNeRF(nn.Module):
    def __init__(self, n_freqs=4, n_dir_freqs=2, width=32):
        super().__init__()
        self.n_freqs, self.n_dir_freqs = n_freqs, n_dir_freqs
        in_pts, in_dir = 3 + 6 * n_freqs, 3 + 6 * n_dir_freqs
        self.trunk = nn.Sequential(nn.Linear(in_pts, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.sigma = nn.Linear(width, 1)
        self.rgb = nn.Sequential(nn.Linear(width + in_dir, width // 2), nn.ReLU(), nn.Linear(width // 2, 3))

    def forward(self, points, dirs):
        h = self.trunk(positional_encoding(points, self.n_freqs))
        d = positional_encoding(dirs, self.n_dir_freqs).expand(*points.shape[:-1], -1)
        return F.softplus(self.sigma(h)).squeeze(-1), torch.sigmoid(self.rgb(torch.cat([h, d], -1)))


def camera_rays(height, width, focal, cam_to_world):
    i, j = torch.meshgrid(torch.arange(width, dtype=torch.float32), torch.arange(height, dtype=torch.float32),
                          indexing="xy")
    dirs = torch.stack([(i - width * 0.5) / focal, -(j - height * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = (dirs[..., None, :] * cam_to_world[:3, :3]).sum(-1)
    rays_o = cam_to_world[:3, -1].expand(rays_d.shape)
    return rays_o.reshape(-1, 3), rays_d.reshape(-1, 3)


def stratified_depths(n_rays, n_samples, near, far, generator):
    bins = torch.linspace(near, far, n_samples + 1)
    lower, upper = bins[:-1], bins[1:]
    u = torch.rand(n_rays, n_samples, generator=generator)
    return lower + (upper - lower) * u


def composite(sigma, rgb, depths):
    deltas = torch.cat([depths[..., 1:] - depths[..., :-1], torch.full_like(depths[..., :1], 1e10)], -1)
    alpha = 1.0 - torch.exp(-sigma * deltas)
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1.0 - alpha + 1e-10], -1), -1)[..., :-1]
    weights = alpha * trans
    color = (weights[..., None] * rgb).sum(-2)
    depth = (weights * depths).sum(-1)
    return color, depth, weights


def sample_pdf(bins, weights, n_fine, generator):
    pdf = (weights + 1e-5) / (weights + 1e-5).sum(-1, keepdim=True)
    cdf = torch.cat([torch.zeros_like(pdf[..., :1]), torch.cumsum(pdf, -1)], -1)
    u = torch.rand(*cdf.shape[:-1], n_fine, generator=generator).contiguous()
    idx = torch.searchsorted(cdf, u, right=True)
    below = (idx - 1).clamp(min=0)
    above = idx.clamp(max=cdf.shape[-1] - 1)
    cdf_lo, cdf_hi = cdf.gather(-1, below), cdf.gather(-1, above)
    bin_lo, bin_hi = bins.gather(-1, below), bins.gather(-1, above)
    denom = torch.where(cdf_hi - cdf_lo < 1e-5, torch.ones_like(cdf_hi), cdf_hi - cdf_lo)
    return bin_lo + (u - cdf_lo) / denom * (bin_hi - bin_lo)


def render(model, rays_o, rays_d, depths):
    points = rays_o[:, None, :] + rays_d[:, None, :] * depths[..., None]
    dirs = F.normalize(rays_d, dim=-1)[:, None, :]
    sigma, rgb = model(points, dirs)
    return composite(sigma, rgb, depths)


def scene_color(rays_o, rays_d):
    # A sphere of radius 1 at the origin, coloured by the hit normal; background black.
    d = F.normalize(rays_d, dim=-1)
    b = (rays_o * d).sum(-1)
    c = (rays_o ** 2).sum(-1) - 1.0
    disc = b * b - c
    t = -b - torch.sqrt(disc.clamp_min(0))
    normal = F.normalize(rays_o + t[:, None] * d, dim=-1)
    return torch.where((disc > 0)[:, None], 0.5 * (normal + 1), torch.zeros_like(normal))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    angle = 0.3
    pose = torch.tensor([[math.cos(angle), 0.0, math.sin(angle), 3.0 * math.sin(angle)],
                         [0.0, 1.0, 0.0, 0.0],
                         [-math.sin(angle), 0.0, math.cos(angle), 3.0 * math.cos(angle)],
                         [0.0, 0.0, 0.0, 1.0]])
    rays_o, rays_d = camera_rays(8, 8, 8.0, pose)
    target = scene_color(rays_o, rays_d)
    coarse, fine = TinyNeRF(), TinyNeRF()
    opt = torch.optim.Adam(list(coarse.parameters()) + list(fine.parameters()), lr=5e-3)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.95)
    out = [target.mean().item()]
    for _ in range(6):
        depths = stratified_depths(rays_o.shape[0], 12, 2.0, 4.0, g)
        color_c, _, weights = render(coarse, rays_o, rays_d, depths)
        mids = 0.5 * (depths[..., 1:] + depths[..., :-1])
        fine_depths = sample_pdf(mids, weights[..., 1:-1].detach(), 8, g)
        all_depths, _ = torch.sort(torch.cat([depths, fine_depths], -1), -1)
        color_f, depth_f, _ = render(fine, rays_o, rays_d, all_depths)
        loss = F.mse_loss(color_c, target) + F.mse_loss(color_f, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        psnr = -10.0 * torch.log10(F.mse_loss(color_f.detach(), target))
        out += [loss.item(), psnr.item(), depth_f.mean().item(), fine_depths.mean().item()]
    out.append(sched.get_last_lr()[0])
    return out
