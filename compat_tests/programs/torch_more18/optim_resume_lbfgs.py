"""Optimizer bookkeeping as a "resume training exactly" tutorial checks it: NAdam (momentum_decay,
decoupled_weight_decay), RAdam (decoupled), Adamax, ASGD, Rprop, AdamW(amsgrad=True) and SGD(nesterov) each trained
a few steps, their state_dict() saved mid-training (deep-copied, and through torch.save / torch.load), loaded into a
fresh optimizer over a fresh copy of the model, and training continued: the resumed run must follow the
uninterrupted one.  Then LBFGS with a closure, with and without strong-Wolfe line search, on a small logistic
regression, and its state (func_evals, n_iter) after the run."""

import copy
import io

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    torch.manual_seed(3)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))


def train(model, opt, x, y, steps):
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def fit_lbfgs(xb, yb, line_search):
    lin = nn.Linear(3, 1)
    opt = torch.optim.LBFGS(lin.parameters(), lr=1 if line_search else 0.5, max_iter=4, history_size=4,
                            line_search_fn=line_search)
    calls = []

    def closure():
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(lin(xb).squeeze(1), yb) + 1e-2 * lin.weight.pow(2).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    out = []
    # two steps: converged further, the exact loss-change stopping test turns on float32 round-off
    for _ in range(2):
        out.append(opt.step(closure).item())
    out += calls[:12]
    st = opt.state[opt._params[0]]
    out += [len(calls), st["func_evals"], st["n_iter"], len(st["old_dirs"])]
    out.append(lin.weight.norm().item())
    out.append(",".join(sorted(opt.state_dict()["state"][0])))
    return out


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 5)
    y = (x[:, :1] * 2 - x[:, 1:2]).tanh() + 0.1 * torch.randn(64, 1)
    out = []
    recipes = [
        (torch.optim.NAdam, dict(lr=0.01, momentum_decay=0.004, weight_decay=0.01, decoupled_weight_decay=True)),
        (torch.optim.RAdam, dict(lr=0.01, weight_decay=0.01, decoupled_weight_decay=True)),
        (torch.optim.Adamax, dict(lr=0.02, betas=(0.8, 0.99))),
        (torch.optim.ASGD, dict(lr=0.05, lambd=1e-3, t0=3)),
        (torch.optim.Rprop, dict(lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-5, 1.0))),
        (torch.optim.AdamW, dict(lr=0.01, amsgrad=True, weight_decay=0.05)),
        (torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ]
    for cls, kwargs in recipes:
        model = make_model()
        opt = cls(model.parameters(), **kwargs)
        out += train(model, opt, x, y, 4)
        saved_model = copy.deepcopy(model.state_dict())
        saved_opt = copy.deepcopy(opt.state_dict())
        buffer = io.BytesIO()
        torch.save({"model": model.state_dict(), "optim": opt.state_dict()}, buffer)
        straight = train(model, opt, x, y, 4)

        resumed_model = make_model()
        resumed_model.load_state_dict(saved_model)
        resumed_opt = cls(resumed_model.parameters(), **kwargs)
        resumed_opt.load_state_dict(saved_opt)
        resumed = train(resumed_model, resumed_opt, x, y, 4)
        buffer.seek(0)
        checkpoint = torch.load(buffer)
        loaded_model = make_model()
        loaded_model.load_state_dict(checkpoint["model"])
        loaded_opt = cls(loaded_model.parameters(), **kwargs)
        loaded_opt.load_state_dict(checkpoint["optim"])
        loaded = train(loaded_model, loaded_opt, x, y, 4)
        out += straight
        out += [max(abs(a - b) for a, b in zip(straight, resumed)), max(abs(a - b) for a, b in zip(straight, loaded))]
        state = saved_opt["state"][0]
        out.append(cls.__name__ + ":" + ",".join(f"{k}={type(v).__name__}" for k, v in sorted(state.items())))
        out.append(",".join(f"{k}" for k in sorted(saved_opt["param_groups"][0])))
        out.append(str(saved_opt["param_groups"][0]["params"]))
        step = state.get("step")
        if isinstance(step, torch.Tensor):
            out.append(f"{step.dtype} {tuple(step.shape)} {step.item()}")

    # LBFGS: logistic regression on separable-ish data
    torch.manual_seed(1)
    xb = torch.randn(80, 3)
    yb = (xb @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 > 0).float()
    for line_search in (None, "strong_wolfe"):
        out += fit_lbfgs(xb, yb, line_search)
    return out


if __name__ == "__main__":
    print(main())
