"""The torch.func tutorials ("Jacobians, Hessians, hvp, vhp, and more", "Per-sample gradients", "Model ensembling"):
grad of a scalar function and its argnums, vmap over a batch (in_dims, out_dims), jacrev vs jacfwd of a small
network's prediction, hessian, hvp as jvp of grad, functional_call with a replaced parameter dictionary, and model
ensembling with stack_module_state + vmap (same minibatch and different minibatches)."""

import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, stack_module_state, vmap


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def main():
    out = []
    torch.manual_seed(5)
    x = torch.randn(4)
    out += grad(lambda t: t.sin().sum())(x).tolist()
    out += (grad(grad(lambda t: t.sin()))(torch.tensor(0.7))).reshape(1).tolist()
    ga, gb = grad(lambda a, b: (a * b).pow(2).sum(), argnums=(0, 1))(x, x + 1)
    out += ga.tolist() + gb.tolist()

    batched = vmap(torch.dot)(torch.randn(3, 4), torch.randn(3, 4))
    out += batched.tolist() + [repr(batched.shape)]
    outer = vmap(lambda a, b: a.unsqueeze(1) * b, in_dims=(0, None), out_dims=1)(torch.randn(2, 3), torch.randn(5))
    out += [repr(outer.shape), outer.sum().item()]

    D = 8
    weight = torch.randn(D, D)
    bias = torch.randn(D)
    point = torch.randn(D)
    jr = jacrev(predict, argnums=2)(weight, bias, point)
    jf = jacfwd(predict, argnums=2)(weight, bias, point)
    out += [repr(jr.shape), (jr - jf).abs().max().item(), jr.sum().item()]
    jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, point)
    out += [repr(jw.shape), repr(jb.shape), jw.norm().item(), jb.norm().item()]
    batch_jac = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, torch.randn(5, D))
    out += [repr(batch_jac.shape), batch_jac.abs().sum().item()]

    h = hessian(lambda t: t.sin().sum())(x)
    out += [repr(h.shape), (h - torch.diag(-x.sin())).abs().max().item()]
    f = lambda t: (t ** 3).sum()  # noqa: E731
    tangent = torch.randn(4)
    _, hvp = jvp(grad(f), (x,), (tangent,))
    out += hvp.tolist() + (hvp - 6 * x * tangent).abs().tolist()

    model = SimpleMLP()
    params = {k: v.detach() for k, v in model.named_parameters()}
    inputs = torch.randn(10, 6)
    same = functional_call(model, params, (inputs,))
    out.append((same - model(inputs)).abs().max().item())
    zeroed = dict(params, **{"fc2.bias": torch.ones(3)})
    out += functional_call(model, zeroed, inputs)[0].tolist()

    def loss_fn(p, sample, target):
        prediction = functional_call(model, p, (sample.unsqueeze(0),))
        return F.cross_entropy(prediction, target.unsqueeze(0))

    targets = torch.randint(0, 3, (10,))
    per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, inputs, targets)
    out += [repr(sorted(per_sample)), repr(per_sample["fc1.weight"].shape), per_sample["fc2.bias"].sum().item()]

    models = [SimpleMLP() for _ in range(4)]
    stacked_params, stacked_buffers = stack_module_state(models)
    out += [repr({k: tuple(v.shape) for k, v in stacked_params.items()}), repr(stacked_buffers),
            stacked_params["fc1.weight"].requires_grad, stacked_params["fc1.weight"].is_leaf]
    base = copy.deepcopy(models[0]).to("meta")

    def fmodel(p, b, x):
        return functional_call(base, (p, b), (x,))

    minibatches = torch.randn(4, 5, 6)
    predictions_diff = vmap(fmodel)(stacked_params, stacked_buffers, minibatches)
    loop = torch.stack([m(minibatches[i]) for i, m in enumerate(models)])
    out += [repr(predictions_diff.shape), (predictions_diff - loop).abs().max().item()]
    minibatch = minibatches[0]
    predictions_same = vmap(fmodel, in_dims=(0, 0, None))(stacked_params, stacked_buffers, minibatch)
    out.append((predictions_same - torch.stack([m(minibatch) for m in models])).abs().max().item())
    return out
