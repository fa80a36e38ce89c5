"""Forward+backward steps: the engine's autograd vs torch eager.

Targets (issue 3): ``(x*y).sum()`` fwd+bwd on 16x16 float32 <= 1.0x torch;
an MLP training step (784-512-512-10, batch 128, SGD) <= 1.2x torch.
"""

import numpy as np

from benchmarks.timing import interleaved_medians
from vfw.core import Tensor, execute, get_op
from vfw.core.autograd import gradient
from vfw.core.ops._common import int64s

try:
    import torch
except ImportError:
    torch = None

_ALL = int64s([])


def _engine_mul_sum(shape, rng):
    x = Tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    y = Tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    mul, total = get_op("Mul"), get_op("ReduceSum", {"keepdims": 0})  # bound once, as frontends do

    def step():
        s = execute(total, execute(mul, x, y), _ALL)
        return gradient(s, [x, y])

    return step


def _torch_mul_sum(shape, rng):
    x = torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    y = torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    def step():
        x.grad = y.grad = None
        (x * y).sum().backward()

    return step


SIZES = [784, 512, 512, 10]


def _init(rng):
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params += [rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                   rng.uniform(-bound, bound, fan_out).astype(np.float32)]
    return params


def _engine_mlp(rng, batch=128, lr=0.01):
    params = [Tensor(p, requires_grad=True) for p in _init(rng)]
    x = Tensor(rng.standard_normal((batch, SIZES[0])).astype(np.float32))
    labels = rng.integers(0, SIZES[-1], batch).astype(np.int64)

    def step():
        h = x
        for i in range(0, len(params), 2):
            h = execute("Gemm", h, params[i], params[i + 1], transB=1)
            if i + 2 < len(params):
                h = execute("Relu", h)
        loss = execute("SoftmaxCrossEntropyLoss", h, labels)[0]
        for p, g in zip(params, gradient(loss, params)):
            p.array -= np.multiply(g.array, lr, out=g.array)  # in place, as torch.optim.SGD does
        return loss

    return step


def _torch_mlp(rng, batch=128, lr=0.01):
    init = _init(rng)
    layers = []
    for i in range(0, len(init), 2):
        layer = torch.nn.Linear(init[i].shape[1], init[i].shape[0])
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(init[i]))
            layer.bias.copy_(torch.from_numpy(init[i + 1]))
        layers += [layer, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    x = torch.tensor(rng.standard_normal((batch, SIZES[0])).astype(np.float32))
    labels = torch.tensor(rng.integers(0, SIZES[-1], batch))

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), labels)
        loss.backward()
        opt.step()
        return loss

    return step


def run_benchmark(rounds=15):
    """Return (header, rows) of the autograd-step table."""
    header = ["case", "engine us", "torch us", "engine/torch"]
    rows = []
    cases = [("(x*y).sum() fwd+bwd 16x16", _engine_mul_sum, _torch_mul_sum, ((16, 16),)),
             ("MLP 784-512-512-10 b128 SGD step", _engine_mlp, _torch_mlp, ())]
    for name, engine_fn, torch_fn, args in cases:
        candidates = {"engine": engine_fn(*args, np.random.default_rng(0))}
        if torch is not None:
            candidates["torch"] = torch_fn(*args, np.random.default_rng(0))
        t = {k: v * 1e6 for k, v in interleaved_medians(candidates, rounds=rounds).items()}
        tt = t.get("torch")
        rows.append([name, f"{t['engine']:.1f}", "n/a" if tt is None else f"{tt:.1f}",
                     "n/a" if tt is None else f"{t['engine'] / tt:.2f}x"])
    return header, rows
