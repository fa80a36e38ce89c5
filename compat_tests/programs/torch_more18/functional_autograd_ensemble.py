"""Second-order tools as optimisation / uncertainty notebooks use them: torch.autograd.functional jacobian (tuple
inputs and outputs, vectorize, and strategy="forward-mode" with its nesting and refusals), hessian (also with a
forward-mode outer Jacobian), vjp / jvp / hvp / vhp on a small network's loss, a Newton step on a logistic
regression from the exact Hessian; then a deep ensemble trained at once with torch.func: stack_module_state,
functional_call over a meta-device base copy, vmap over the stacked parameters, grad of the summed losses, and
the ensemble's predictive mean and spread; functional_call on a model with tied embedding / output weights."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from torch.func import functional_call, grad, stack_module_state, vmap


def caught(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the program prints what the framework raises
        return f"{type(e).__name__}: {e}"
    return "ok"


def shapes(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree).__name__ + "[" + ",".join(shapes(t) for t in tree) + "]"
    return str(tuple(tree.shape))


def main():
    torch.manual_seed(0)
    out = []
    x = torch.tensor([0.3, -0.7, 1.1])
    w = torch.tensor([[0.5, -1.0, 0.25], [1.5, 0.2, -0.4]])

    def f(x):
        return torch.tanh(w @ x) * x.sum()

    def g(x, y):
        return (x.exp() * y.sin()).sum() * x, (x * y).pow(2).sum()

    for kwargs in [dict(), dict(vectorize=True), dict(vectorize=True, strategy="forward-mode")]:
        j = jacobian(f, x, **kwargs)
        jt = jacobian(g, (x, x + 1), **kwargs)
        out += [shapes(j), shapes(jt), j.sum().item(), jt[0][1].sum().item(), jt[1][0].sum().item()]
    out.append(caught(lambda: jacobian(f, x, strategy="forward-mode")))
    out.append(caught(lambda: jacobian(f, x, strategy="forward-mode", vectorize=True, create_graph=True)))
    out.append(caught(lambda: jacobian(f, x, strategy="forward-mode", vectorize=True, strict=True)))
    out.append(caught(lambda: jacobian(f, x, strategy="sideways")))

    def scalar(x, y):
        return (x.pow(3) * y).sum() + (x * y.exp()).prod()

    h = hessian(scalar, (x, x * 2))
    hf = hessian(scalar, (x, x * 2), vectorize=True, outer_jacobian_strategy="forward-mode")
    out += [shapes(h), shapes(hf), h[0][1].sum().item(), hf[1][1].detach().sum().item()]
    value, v1 = vjp(f, x, torch.tensor([1.0, -2.0]))
    _, t1 = jvp(f, x, torch.tensor([0.5, 0.5, -1.0]))
    _, h1 = hvp(lambda x: scalar(x, x), x, torch.ones(3))
    _, h2 = vhp(lambda x: scalar(x, x), x, torch.ones(3))
    out += value.tolist() + v1.tolist() + t1.tolist() + h1.tolist() + h2.tolist()

    # Newton's method for a logistic regression (the Hessian of the mean log-loss, plus a ridge term)
    X = torch.randn(40, 3)
    y = (X @ torch.tensor([1.0, -2.0, 0.5]) + 0.2 * torch.randn(40) > 0).float()

    def loss_fn(beta):
        return F.binary_cross_entropy_with_logits(X @ beta, y) + 0.05 * beta.pow(2).sum()

    beta = torch.zeros(3)
    for _ in range(4):
        gvec = jacobian(loss_fn, beta)
        H = hessian(loss_fn, beta)
        beta = beta - torch.linalg.solve(H, gvec)
        out.append(loss_fn(beta).item())
    out += beta.tolist()

    # deep ensemble with torch.func
    torch.manual_seed(1)
    members = [nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)) for _ in range(4)]
    params, buffers = stack_module_state(members)
    base = copy.deepcopy(members[0]).to("meta")
    out.append(",".join(f"{k}:{tuple(v.shape)}" for k, v in params.items()))

    def predict(p, b, inputs):
        return functional_call(base, (p, b), (inputs,))

    def member_loss(p, b, inputs, targets):
        return F.mse_loss(predict(p, b, inputs), targets)

    xs = torch.linspace(-2, 2, 32).view(-1, 1)
    data = torch.cat([xs, xs.pow(2)], 1)
    target = torch.sin(2 * xs) + 0.1 * torch.randn(32, 1)
    lr = 0.1
    for _ in range(6):
        losses = vmap(member_loss, in_dims=(0, 0, None, None))(params, buffers, data, target)
        grads = vmap(grad(member_loss), in_dims=(0, 0, None, None))(params, buffers, data, target)
        params = {k: v - lr * grads[k] for k, v in params.items()}
        out += losses.tolist()
    preds = vmap(predict, in_dims=(0, 0, None))(params, buffers, data)
    out += [str(tuple(preds.shape)), preds.mean(0).sum().item(), preds.std(0).mean().item()]
    single = functional_call(members[2], {k: v[2] for k, v in params.items()}, (data,))
    out.append((single - preds[2]).abs().max().item())

    # weight tying (an LM whose output layer shares the embedding): one value follows both names
    lm = TiedLM()
    tokens = torch.tensor([[1, 4, 2], [3, 0, 5]])
    new_embed = torch.randn(6, 4)
    tied = functional_call(lm, {"embed.weight": new_embed}, (tokens,))
    out += [tied.sum().item(), (tied - F.embedding(tokens, new_embed) @ new_embed.T).abs().max().item()]
    out.append(caught(lambda: functional_call(lm, {"embed.weight": new_embed, "head.weight": new_embed.clone()},
                                              (tokens,))))
    untied = functional_call(lm, {"embed.weight": new_embed, "head.weight": new_embed * 0.5}, (tokens,),
                             tie_weights=False)
    out.append(untied.sum().item())
    return out


class TiedLM(nn.Module):
    def __init__(self, vocab=6, dim=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.embed(tokens))


if __name__ == "__main__":
    print(main())
