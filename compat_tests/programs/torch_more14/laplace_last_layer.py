"""A last-layer Laplace approximation for a small classifier, as in laplace-torch style research code written with
torch.func: training by grad_and_value(has_aux=True) over functional_call with a dict of parameters and BatchNorm
buffers, the last layer's exact Hessian from torch.func.hessian, per-example logit Jacobians from
vmap(jacrev(...), in_dims=(None, 0), chunk_size=...) cross-checked against jacfwd with out_dims, a probit-corrected
predictive, and a deep ensemble run through stack_module_state + vmap over a meta-device base model."""

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad_and_value, hessian, jacfwd, jacrev, stack_module_state, vmap


class Net(nn.Module):
    def __init__(self, hidden=6, classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, hidden), nn.BatchNorm1d(hidden), nn.Tanh())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    torch.manual_seed(0)
    x = torch.randn(30, 2)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
    model = Net()
    with torch.no_grad():  # a few train-mode passes give the BatchNorm buffers non-trivial statistics
        for _ in range(3):
            model(x + 0.1 * torch.randn_like(x))
    model.eval()
    params = {k: v.detach().clone() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    out = [str(sorted(buffers)), buffers["body.1.num_batches_tracked"].item()]

    def loss_fn(p, xb, yb):
        logits = functional_call(model, {**p, **buffers}, (xb,))
        return F.cross_entropy(logits, yb), (logits.argmax(-1) == yb).float().mean()

    step = grad_and_value(loss_fn, has_aux=True)
    for _ in range(8):
        grads, (loss, acc) = step(params, x, y)
        params = {k: v - 0.8 * grads[k] for k, v in params.items()}
        out += [loss.item(), acc.item(), grads["head.weight"].norm().item()]

    features = functional_call(model.body, {k[5:]: v for k, v in {**params, **buffers}.items()
                                            if k.startswith("body.")}, (x,))
    w_map = torch.cat([params["head.weight"].flatten(), params["head.bias"]])
    hidden, classes = params["head.weight"].shape[1], params["head.weight"].shape[0]

    def logits_of(w, phi):
        return phi @ w[:hidden * classes].view(classes, hidden).T + w[hidden * classes:]

    def head_nll(w):
        return F.cross_entropy(logits_of(w, features), y, reduction="sum")

    h = hessian(head_nll)(w_map)
    precision = h + 1.0 * torch.eye(h.shape[0])
    cov = torch.linalg.inv(precision)
    out += [str(tuple(h.shape)), h.trace().item(), *torch.linalg.eigvalsh(precision)[:3].tolist(),
            torch.logdet(precision).item()]

    x_test = torch.stack([torch.linspace(-2, 2, 7), torch.linspace(1, -1, 7)], dim=1)
    phi_test = functional_call(model.body, {k[5:]: v for k, v in {**params, **buffers}.items()
                                            if k.startswith("body.")}, (x_test,))
    jac_rev = vmap(jacrev(logits_of), in_dims=(None, 0), chunk_size=3)(w_map, phi_test)
    jac_fwd = vmap(jacfwd(logits_of), in_dims=(None, 0), out_dims=1)(w_map, phi_test)
    torch.testing.assert_close(jac_rev, jac_fwd.transpose(0, 1))
    out += [str(tuple(jac_rev.shape)), str(tuple(jac_fwd.shape)), jac_rev.abs().sum().item()]
    f_var = torch.einsum("nkp,pq,nkq->nk", jac_rev, cov, jac_rev)
    mean_logits = logits_of(w_map, phi_test)
    probit = torch.softmax(mean_logits / torch.sqrt(1 + math.pi / 8 * f_var), dim=-1)
    out += f_var.flatten().tolist() + probit.flatten().tolist()
    out += (probit.max(-1).values - torch.softmax(mean_logits, -1).max(-1).values).tolist()

    ensemble = [Net() for _ in range(4)]
    for member in ensemble:
        member.eval()
    stacked_params, stacked_buffers = stack_module_state(ensemble)
    base = copy.deepcopy(ensemble[0]).to("meta")

    def member_forward(p, b, xb):
        return functional_call(base, (p, b), (xb,))

    logits = vmap(member_forward, in_dims=(0, 0, None))(stacked_params, stacked_buffers, x_test)
    loop = torch.stack([m(x_test) for m in ensemble])
    torch.testing.assert_close(logits, loop)
    probs = logits.softmax(-1).mean(0)
    entropy = -(probs * probs.log()).sum(-1)
    out += [str(tuple(logits.shape)), str(stacked_params["head.weight"].shape)] + entropy.tolist()
    return out
