"""A custom autograd Function whose backward is itself differentiable, trained with a gradient penalty (double
backward) and checked with a Hessian-vector product."""

import numpy as np
import torch


class SoftSquash(torch.autograd.Function):
    """y = x / (1 + x^2); dy/dx = (1 - x^2) / (1 + x^2)^2, written with differentiable ops."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        square = x * x
        return grad_output * (1 - square) / (1 + square) ** 2


def main():
    torch.manual_seed(5)
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.uniform(-2, 2, (64, 3)), dtype=torch.float32, requires_grad=True)
    target = torch.sin(x.detach()).sum(1, keepdim=True)
    model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        prediction = SoftSquash.apply(model(x)) * 3
        fit = torch.nn.functional.mse_loss(prediction, target)
        (input_grad,) = torch.autograd.grad(prediction.sum(), x, create_graph=True)
        penalty = input_grad.pow(2).sum(1).mean()
        loss = fit + 0.01 * penalty
        loss.backward()
        optimizer.step()
        losses += [fit.item(), penalty.item()]
    # Hessian-vector product of the fit through the custom Function, by double backward.
    params = list(model.parameters())
    fit = torch.nn.functional.mse_loss(SoftSquash.apply(model(x)) * 3, target)
    grads = torch.autograd.grad(fit, params, create_graph=True)
    vector = [torch.ones_like(p) for p in params]
    hvp = torch.autograd.grad(sum((g * v).sum() for g, v in zip(grads, vector)), params)
    losses.append(sum(h.sum() for h in hvp).item())
    return losses


if __name__ == "__main__":
    print(main())
