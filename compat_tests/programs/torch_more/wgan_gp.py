"""WGAN-GP on 2-D points: the gradient penalty from torch.autograd.grad(create_graph=True) on random
interpolates, double backward through Linear/LeakyReLU, n_critic critic steps per generator step, Adam with
betas=(0.0, 0.9), plus the R1 penalty variant with retain_graph and a grad_outputs tensor."""

import torch
from torch import autograd, nn


def critic():
    return nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1)
    interpolates = (alpha * real_samples + (1 - alpha) * fake_samples).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))
    D = critic()
    opt_G = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    opt_D = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    lambda_gp, n_critic = 10.0, 3
    out = []
    for step in range(12):
        angle = torch.rand(32) * 6.2831853
        real = torch.stack([angle.cos(), angle.sin()], 1) + 0.05 * torch.randn(32, 2)
        z = torch.randn(32, 3)
        fake = G(z)
        opt_D.zero_grad()
        gp = compute_gradient_penalty(D, real.data, fake.data)
        d_loss = -torch.mean(D(real)) + torch.mean(D(fake.detach())) + lambda_gp * gp
        d_loss.backward()
        opt_D.step()
        out += [d_loss.item(), gp.item()]
        if step % n_critic == 0:
            opt_G.zero_grad()
            g_loss = -torch.mean(D(G(z)))
            g_loss.backward()
            opt_G.step()
            out.append(g_loss.item())
    # R1 penalty: gradient of the sum of outputs with respect to real inputs, then its own gradient.
    real = torch.randn(8, 2, requires_grad=True)
    score = D(real)
    (grad_real,) = autograd.grad(score.sum(), real, create_graph=True)
    r1 = grad_real.pow(2).sum(1).mean()
    D.zero_grad()
    r1.backward(retain_graph=True)
    out.append(r1.item())
    out.append(sum(p.grad.abs().sum().item() for p in D.parameters() if p.grad is not None))
    out.append(sum(p.grad is None for p in D.parameters()))  # the last bias does not reach the input gradient
    out.append(real.grad.abs().sum().item())
    return out


if __name__ == "__main__":
    print(main())
