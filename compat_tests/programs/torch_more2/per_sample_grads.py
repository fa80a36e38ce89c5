"""Per-sample gradients with torch.func (the model-ensembling / per-sample-grads tutorials): functional_call
over a dict of detached parameters, grad of a per-example loss vmapped over the batch (in_dims=(None, 0, 0)),
checked against a loop of backward calls; per-example gradient clipping and noise as in DP-SGD; jacrev and
jacfwd of the model's outputs with respect to its inputs; an ensemble of models stacked with
torch.func.stack_module_state and run with vmap."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, jacfwd, jacrev, stack_module_state, vmap


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 12)
        self.fc2 = nn.Linear(12, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def main():
    torch.manual_seed(8)
    model = SmallNet()
    x = torch.randn(16, 5)
    y = torch.randint(0, 3, (16,))
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return F.cross_entropy(predictions, target.unsqueeze(0))

    ft_compute_sample_grad = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))
    per_sample = ft_compute_sample_grad(params, buffers, x, y)
    out = [",".join(f"{k}:{tuple(v.shape)}" for k, v in per_sample.items())]
    for i in range(3):
        model.zero_grad()
        F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        out += [(model.fc1.weight.grad - per_sample["fc1.weight"][i]).abs().max().item(),
                per_sample["fc2.bias"][i].sum().item()]
    # DP-SGD: clip each example's gradient to norm C, sum, add noise, step.
    C, sigma, lr = 1.0, 0.5, 0.1
    g = torch.Generator().manual_seed(3)
    for _step in range(4):
        per_sample = ft_compute_sample_grad(params, buffers, x, y)
        norms = torch.sqrt(sum(v.flatten(1).pow(2).sum(1) for v in per_sample.values()))
        factor = (C / (norms + 1e-6)).clamp(max=1.0)
        new = {}
        for k, v in per_sample.items():
            clipped = torch.einsum("b,b...->...", factor, v)
            noise = torch.normal(0.0, sigma * C, size=clipped.shape, generator=g)
            new[k] = params[k] - lr * (clipped + noise) / x.shape[0]
        params = new
        loss = F.cross_entropy(functional_call(model, params, (x,)), y)
        out += [loss.item(), norms.max().item(), norms.min().item()]
    # Jacobians of the outputs with respect to one input, and a batch of them.
    f = lambda inp: functional_call(model, params, (inp,))  # noqa: E731
    j_rev = jacrev(f)(x[0])
    j_fwd = jacfwd(f)(x[0])
    out += j_rev.flatten().tolist() + [(j_rev - j_fwd).abs().max().item()]
    batched = vmap(jacrev(f))(x[:4])
    out += [str(tuple(batched.shape)), batched.sum().item()]
    # An ensemble of 3 models run with vmap over stacked parameters.
    models = [SmallNet() for _ in range(3)]
    stacked_params, stacked_buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def fmodel(p, b, inp):
        return functional_call(base, (p, b), (inp,))

    ensemble = vmap(fmodel, in_dims=(0, 0, None))(stacked_params, stacked_buffers, x[:4])
    out += [str(tuple(ensemble.shape))] + (ensemble[1] - models[1](x[:4])).abs().max(dim=1).values.tolist()
    out += ensemble.mean(0).flatten().tolist()
    return out
