"""Graph mode: functions traced by ``vfw.core.graph.function`` vs the same Python run eagerly.

Targets (issue 4): a chain of 50 small elementwise ops on 16x16 float32
runs >= 3x faster traced than eager (reported per optimization level); an MLP
training step (784-512-512-10, batch 128, SGD through ``assign``) traced is
no slower than eager and within 1.1x of torch eager.
"""

import numpy as np

from benchmarks.autograd_step import SIZES, _init, _torch_mlp
from benchmarks.timing import interleaved_medians
from vfw.core import Tensor, execute, get_op
from vfw.core.autograd import gradient
from vfw.core.graph import assign, function

try:
    import torch
except ImportError:
    torch = None

LEVELS = (0, 1, 2, 3)
CHAIN_LENGTH = 50


def chain_function(rng, shape=(16, 16), length=CHAIN_LENGTH):
    """A Python function of one tensor running ``length`` alternating Mul/Add/Tanh/Relu ops.

    The Mul/Add operands are tensors created outside the function (captures
    when traced), as weights would be.

    Returns
    -------
    (callable, Tensor)
        The function and an input for it.
    """
    mul, add, tanh, relu = (get_op(t) for t in ("Mul", "Add", "Tanh", "Relu"))  # bound once, as frontends do
    scale = Tensor(rng.uniform(0.5, 1.5, shape).astype(np.float32))
    shift = Tensor(rng.uniform(-0.1, 0.1, shape).astype(np.float32))
    steps = [(mul, scale), (add, shift), (tanh, None), (relu, None)]

    def chain(x):
        for i in range(length):
            op, operand = steps[i % len(steps)]
            x = execute(op, x) if operand is None else execute(op, x, operand)
        return x

    return chain, Tensor(rng.standard_normal(shape).astype(np.float32))


def _torch_chain(rng, shape=(16, 16), length=CHAIN_LENGTH):
    """The chain of :func:`chain_function` in torch eager (same operands, same order)."""
    scale = torch.from_numpy(rng.uniform(0.5, 1.5, shape).astype(np.float32))
    shift = torch.from_numpy(rng.uniform(-0.1, 0.1, shape).astype(np.float32))
    steps = [lambda x: x * scale, lambda x: x + shift, torch.tanh, torch.relu]
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))

    def chain():
        y = x
        for i in range(length):
            y = steps[i % len(steps)](y)
        return y

    return chain


def mlp_step_function(rng, batch=128, lr=0.01):
    """An SGD step of the MLP of ``benchmarks.autograd_step`` as a Python function of (x, labels).

    Parameters are tensors created outside the function (captures when
    traced) and updated with :func:`vfw.core.graph.assign`, which writes in
    place eagerly and becomes a state update under tracing.

    Returns
    -------
    (callable, tuple[Tensor, Tensor], list[Tensor])
        The step, its arguments, and the parameters it updates.
    """
    params = [Tensor(p, requires_grad=True) for p in _init(rng)]
    x = Tensor(rng.standard_normal((batch, SIZES[0])).astype(np.float32))
    labels = Tensor(rng.integers(0, SIZES[-1], batch).astype(np.int64))
    gemm, relu, loss_op = get_op("Gemm", {"transB": 1}), get_op("Relu"), get_op("SoftmaxCrossEntropyLoss")
    mul, sub = get_op("Mul"), get_op("Sub")
    rate = np.asarray(lr, np.float32)

    def step(x, labels):
        h = x
        for i in range(0, len(params), 2):
            h = execute(gemm, h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = execute(relu, h)
        loss = execute(loss_op, h, labels)[0]
        for p, g in zip(params, gradient(loss, params)):
            assign(p, execute(sub, p, execute(mul, g, rate)))
        return loss

    return step, (x, labels), params


def traced(fn, args, opt_level):
    """``fn`` compiled at ``opt_level`` and already traced for ``args`` (so timing excludes tracing)."""
    compiled = function(fn, opt_level=opt_level)
    compiled(*args)
    compiled(*args)  # the first call returns the tracing run's result; this one runs the graph
    return compiled


def _chain_rows(rounds):
    chain, x = chain_function(np.random.default_rng(0))
    candidates = {"eager": lambda: chain(x)}
    for level in LEVELS:
        graph_fn = traced(chain, (x,), level)
        candidates[f"O{level}"] = lambda f=graph_fn: f(x)
    if torch is not None:
        candidates["torch"] = _torch_chain(np.random.default_rng(0))
    return _rows(f"{CHAIN_LENGTH}-op elementwise chain 16x16", candidates, rounds)


def _mlp_rows(rounds):
    # Every candidate gets its own parameters from the same seed: they train independently.
    candidates = {}
    step, args, _ = mlp_step_function(np.random.default_rng(0))
    candidates["eager"] = lambda: step(*args)
    for level in LEVELS:
        step, args, _ = mlp_step_function(np.random.default_rng(0))
        graph_fn = traced(step, args, level)
        candidates[f"O{level}"] = lambda f=graph_fn, a=args: f(*a)
    if torch is not None:
        candidates["torch"] = _torch_mlp(np.random.default_rng(0))
    return _rows("MLP 784-512-512-10 b128 SGD step", candidates, rounds)


def _rows(name, candidates, rounds):
    """One table row per level, from candidates ``eager``, ``O0``..``O3`` and optionally ``torch``."""
    us = {k: v * 1e6 for k, v in interleaved_medians(candidates, rounds=rounds).items()}
    tt = us.get("torch")
    return [[f"{name} O{level}", f"{us['eager']:.1f}", f"{us[f'O{level}']:.1f}", "n/a" if tt is None else f"{tt:.1f}",
             f"{us['eager'] / us[f'O{level}']:.2f}x", "n/a" if tt is None else f"{us[f'O{level}'] / tt:.2f}x"]
            for level in LEVELS]


def run_benchmark(rounds=15):
    """Return (header, rows) of the graph-mode table."""
    header = ["case", "eager us", "traced us", "torch us", "eager/traced", "traced/torch"]
    return header, _chain_rows(rounds) + _mlp_rows(rounds)
