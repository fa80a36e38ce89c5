"""A tiny DDPM on 2-D points (the annotated-diffusion tutorials): a linear beta schedule with cumprod of the
alphas, timesteps drawn with randint and the schedule gathered per sample, sinusoidal time embeddings concatenated
to the input of an MLP noise predictor trained with MSE, an AdamW + OneCycleLR loop, then ancestral sampling in a
reversed loop under torch.inference_mode with seeded noise."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoidal_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / (half - 1))
    args = t.float()[:, None] * freqs[None, :]
    return torch.cat([args.sin(), args.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, emb=16, hidden=64):
        super().__init__()
        self.emb = emb
        self.time_mlp = nn.Sequential(nn.Linear(emb, hidden), nn.SiLU())
        self.inp = nn.Linear(2, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden),
                                 nn.Linear(hidden, 2))

    def forward(self, x, t):
        return self.net(self.inp(x) + self.time_mlp(sinusoidal_embedding(t, self.emb)))


def extract(values, t, shape):
    return values.gather(0, t).reshape(t.shape[0], *([1] * (len(shape) - 1)))


def main():
    torch.manual_seed(2)
    T = 50
    betas = torch.linspace(1e-4, 0.05, T)
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
    sqrt_ac, sqrt_1m_ac = alphas_cumprod.sqrt(), (1.0 - alphas_cumprod).sqrt()
    posterior_var = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)
    angle = torch.rand(512) * 2 * math.pi
    data = torch.stack([angle.cos(), angle.sin()], 1) * (1.0 + 0.1 * torch.randn(512, 1))
    model = Denoiser()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=24)
    out = [posterior_var[1:].sum().item(), alphas_cumprod[-1].item()]
    for step in range(24):
        x0 = data[(step * 64) % 512:(step * 64) % 512 + 64]
        t = torch.randint(0, T, (x0.shape[0],))
        noise = torch.randn_like(x0)
        xt = extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise
        loss = F.mse_loss(model(xt, t), noise)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        out.append(loss.item())
    out.append(sched.get_last_lr()[0])
    model.eval()
    with torch.inference_mode():
        g = torch.Generator().manual_seed(9)
        x = torch.randn(8, 2, generator=g)
        for i in reversed(range(T)):
            t = torch.full((x.shape[0],), i, dtype=torch.long)
            eps = model(x, t)
            mean = (x - betas[i] / sqrt_1m_ac[i] * eps) / alphas[i].sqrt()
            if i > 0:
                x = mean + posterior_var[i].sqrt() * torch.randn(x.shape, generator=g)
            else:
                x = mean
        out += x.flatten().tolist() + [x.requires_grad]
    return out
