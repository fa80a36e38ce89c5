"""MAML on sine-wave regression tasks (the meta-learning tutorials): a second-order inner loop written with
torch.autograd.grad(create_graph=True) over a list of parameters applied through torch.func.functional_call,
the meta-loss backpropagated through the adaptation into SGD-with-momentum on the meta-parameters; then a
first-order variant batched over tasks with torch.func (grad of the adapted loss, vmap over task tensors)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap


def sine_tasks(n_tasks, n_points, generator):
    amplitude = torch.empty(n_tasks, 1).uniform_(0.1, 5.0, generator=generator)
    phase = torch.empty(n_tasks, 1).uniform_(0.0, math.pi, generator=generator)
    x = torch.empty(n_tasks, 2 * n_points, 1).uniform_(-5.0, 5.0, generator=generator)
    y = amplitude.unsqueeze(-1) * torch.sin(x - phase.unsqueeze(-1))
    return x[:, :n_points], y[:, :n_points], x[:, n_points:], y[:, n_points:]


def main():
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(4)
    model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
    names = [n for n, _ in model.named_parameters()]
    meta_opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    inner_lr, out = 0.01, []
    for _step in range(4):
        xs, ys, xq, yq = sine_tasks(3, 10, g)
        meta_opt.zero_grad()
        meta_loss = 0.0
        for t in range(xs.shape[0]):
            fast = list(model.parameters())
            for _ in range(2):
                loss = F.mse_loss(functional_call(model, dict(zip(names, fast)), (xs[t],)), ys[t])
                grads = torch.autograd.grad(loss, fast, create_graph=True)
                fast = [w - inner_lr * gw for w, gw in zip(fast, grads)]
            query = F.mse_loss(functional_call(model, dict(zip(names, fast)), (xq[t],)), yq[t])
            meta_loss = meta_loss + query
        (meta_loss / xs.shape[0]).backward()
        out += [meta_loss.item(), model[0].weight.grad.norm().item()]
        meta_opt.step()
    # First-order MAML batched over tasks with torch.func.
    params = {k: v.detach().clone() for k, v in model.named_parameters()}

    def task_loss(p, x, y):
        return F.mse_loss(functional_call(model, p, (x,)), y)

    def adapted_query_loss(p, x_s, y_s, x_q, y_q):
        g_inner = grad(task_loss)(p, x_s, y_s)
        fast = {k: p[k] - inner_lr * g_inner[k].detach() for k in p}
        return task_loss(fast, x_q, y_q)

    meta_grad = vmap(grad(adapted_query_loss), in_dims=(None, 0, 0, 0, 0))
    for _step in range(3):
        xs, ys, xq, yq = sine_tasks(4, 8, g)
        grads = meta_grad(params, xs, ys, xq, yq)
        params = {k: v - 1e-3 * grads[k].mean(0) for k, v in params.items()}
        losses = vmap(adapted_query_loss, in_dims=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq)
        out += losses.tolist() + [str(tuple(grads["0.weight"].shape))]
    return out
