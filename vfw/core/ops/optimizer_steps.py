"""One optimizer step as an op (ONNX ``ai.onnx.preview.training``): Adagrad, Momentum, Adam.

Each takes the learning rate ``R``, the update count ``T`` (int64 scalar) and, for ``n`` optimized
tensors, their values, then their gradients, then their optimizer states (one group per state), and
returns the new values followed by the new states, as the ONNX operators define.  Tensors are
updated independently (a loop over the ``n`` tensors, each update vectorized); arithmetic runs in
each tensor's dtype.  Not differentiable.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import OpInputError, ShapeError
from vfw.core.ops._common import require
from vfw.core.registry import Attr, defop

_FLOATS = frozenset({dt.float32, dt.float64})


def _groups(op_type, tensors, count):
    """``tensors`` split into ``count`` equal groups (values, gradients, states...)."""
    if not tensors or len(tensors) % count:
        raise OpInputError(f"{op_type}: expects {count} tensors per optimized tensor (values, gradients, states), "
                           f"got {len(tensors)} inputs")
    n = len(tensors) // count
    groups = [tensors[k * n:(k + 1) * n] for k in range(count)]
    for members in zip(*groups):
        if any(m.shape != members[0].shape for m in members):
            raise ShapeError(f"{op_type}: a tensor, its gradient and its states must share a shape, got "
                             f"{[m.shape for m in members]}")
    return groups


def _scalars(op_type, rate, count):
    require(op_type, rate.size == 1 and count.size == 1,
            f"R and T must be scalars, got shapes {rate.shape} and {count.shape}")
    return rate.reshape(()), int(count.reshape(-1)[0])


@defop("Adagrad", inputs="R:T1 T:int64 inputs*:T3", outputs="outputs*:T3", types={"T1": _FLOATS, "T3": _FLOATS},
       attrs={"decay_factor": Attr("float", 0.0), "epsilon": Attr("float", 1e-6),
              "norm_coefficient": Attr("float", 0.0)})
def adagrad(decay_factor, epsilon, norm_coefficient):
    """ADAGRAD: ``H += g^2``; ``X -= R / (1 + T * decay_factor) * g / (sqrt(H) + epsilon)`` with
    ``g = G + norm_coefficient * X``."""

    def kernel(rate, count, *tensors, out=None):
        rate, step = _scalars("Adagrad", rate, count)
        xs, gs, hs = _groups("Adagrad", tensors, 3)
        new_x, new_h = [], []
        for x, g, h in zip(xs, gs, hs):
            r = (rate / (1 + step * decay_factor)).astype(x.dtype)
            g = norm_coefficient * x + g
            h = h + g * g
            new_x.append(x - r * g / (np.sqrt(h) + epsilon))
            new_h.append(h)
        return tuple(new_x + new_h)

    return kernel


@defop("Momentum", inputs="R:T1 T:int64 inputs*:T3", outputs="outputs*:T3", types={"T1": _FLOATS, "T3": _FLOATS},
       attrs={"alpha": Attr("float"), "beta": Attr("float"), "norm_coefficient": Attr("float"),
              "mode": Attr("string", choices=("standard", "nesterov"))})
def momentum(alpha, beta, norm_coefficient, mode):
    """SGD with momentum: ``V = alpha * V + beta' * g`` (``beta' = 1`` at ``T == 0``), ``X -= R * V`` (standard)
    or ``X -= R * (g + alpha * V)`` (Nesterov), with ``g = G + norm_coefficient * X``."""

    def kernel(rate, count, *tensors, out=None):
        rate, step = _scalars("Momentum", rate, count)
        xs, gs, vs = _groups("Momentum", tensors, 3)
        scale = beta if step > 0 else 1.0
        new_x, new_v = [], []
        for x, g, v in zip(xs, gs, vs):
            r = rate.astype(x.dtype)
            g = norm_coefficient * x + g
            v = alpha * v + scale * g
            new_x.append(x - r * (g + alpha * v if mode == "nesterov" else v))
            new_v.append(v)
        return tuple(new_x + new_v)

    return kernel


@defop("Adam", inputs="R:T1 T:int64 inputs*:T3", outputs="outputs*:T3", types={"T1": _FLOATS, "T3": _FLOATS},
       attrs={"alpha": Attr("float", 0.9), "beta": Attr("float", 0.999), "epsilon": Attr("float", 1e-6),
              "norm_coefficient": Attr("float", 0.0), "norm_coefficient_post": Attr("float", 0.0)})
def adam(alpha, beta, epsilon, norm_coefficient, norm_coefficient_post):
    """Adam: moving averages ``V`` of ``g`` and ``H`` of ``g^2``; ``X -= R' * V / (sqrt(H) + epsilon)`` with the
    bias-corrected rate ``R' = R sqrt(1 - beta^T) / (1 - alpha^T)`` (``R`` at ``T == 0``), then
    ``X *= 1 - norm_coefficient_post``."""

    def kernel(rate, count, *tensors, out=None):
        rate, step = _scalars("Adam", rate, count)
        xs, gs, vs, hs = _groups("Adam", tensors, 4)
        adjusted = rate * np.sqrt(1 - beta ** step) / (1 - alpha ** step) if step > 0 else rate
        new_x, new_v, new_h = [], [], []
        for x, g, v, h in zip(xs, gs, vs, hs):
            g = norm_coefficient * x + g
            v = alpha * v + (1 - alpha) * g
            h = beta * h + (1 - beta) * g * g
            updated = x - np.asarray(adjusted).astype(x.dtype) * v / (np.sqrt(h) + epsilon)
            new_x.append((1 - norm_coefficient_post) * updated)
            new_v.append(v)
            new_h.append(h)
        return tuple(new_x + new_v + new_h)

    return kernel


not_differentiable("Adagrad", "Momentum", "Adam")
