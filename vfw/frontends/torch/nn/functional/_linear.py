"""linear and bilinear: affine maps of the last dimension."""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.torch import _linalg
from vfw.frontends.torch._dispatch import call, op, type_name, wrap
from vfw.frontends.torch._grad_fn_names import linear_name, names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["linear", "bilinear"]

_GEMM_T = op("Gemm", transB=1)
_NATIVE = frozenset(np.dtype(d) for d in (np.float32, np.float64))
_HALVES = frozenset({np.dtype(np.float16), np.dtype(dt.bfloat16)})


def _dims(shape):
    return "x".join(map(str, shape))


def _check(x, w, b):
    """torch's errors for operands ``linear`` cannot combine."""
    if x.ndim == 0 or x.shape[-1] != w.shape[-1]:
        rows = (1,) if x.ndim <= 1 else (int(np.prod(x.shape[:-1])),)
        cols = x.shape[-1:] if x.ndim else (1,)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims(rows + cols)} and "
                           f"{_dims(w.shape[::-1])})")
    if x.dtype != w.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {type_name(x.dtype)} and "
                           f"{type_name(w.dtype)}")
    if b is not None and b.dtype != x.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {type_name(b.dtype)} and "
                           f"{type_name(x.dtype)}")


@names_grad_fn(linear_name)
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, in_features)``.
    weight : Tensor
        Shape ``(out_features, in_features)``.
    bias : Tensor, optional
        Shape ``(out_features,)``.

    Returns
    -------
    Tensor
        Shape ``(*, out_features)``.
    """
    tensor_arg(input, "linear")
    tensor_arg(weight, "linear", "weight", 2)
    x, w = input.array, weight.array
    if x.ndim == 0 or w.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {x.ndim}D and {w.ndim}D")
    b = None if bias is None else tensor_arg(bias, "linear", "bias", 3).array
    if w.ndim != 2 or x.ndim == 0 or x.shape[-1] != w.shape[1] or not (x.dtype == w.dtype in _NATIVE) \
            or (b is not None and b.dtype != x.dtype):
        _check(x, w if w.ndim else w.reshape(1), b)
        if w.ndim != 2:
            y = _linalg.matmul(input, weight)
            return y if bias is None else y + bias
        # Half precision and the like: the engine's ops in the tensor's dtype.
    if x.ndim == 2 and w.ndim == 2:
        # 2-byte floats go through Gemm too: it adds the bias before the one rounding, as torch's addmm.
        records = (input.requires_grad or weight.requires_grad or getattr(bias, "requires_grad", False)) \
            and is_grad_enabled()
        if _tracing or records or x.dtype in _HALVES:
            return call(_GEMM_T, input, weight) if bias is None else call(_GEMM_T, input, weight, bias)
        y = np.dot(x, w.T)
        if b is not None:
            try:
                y += b
            except ValueError:
                raise RuntimeError(f"The expanded size of the tensor ({y.shape[-1]}) must match the existing size "
                                   f"({b.shape[-1]}) at non-singleton dimension {b.ndim - 1}.  Target sizes: "
                                   f"{list(y.shape)}.  Tensor sizes: {list(b.shape)}") from None
        return wrap(y)
    if b is not None and x.dtype in _HALVES and w.ndim == 2 and x.flags.c_contiguous:
        # torch adds the bias inside one addmm over the flattened (contiguous) input: a 2-byte float result is
        # rounded once, not after the product and again after the sum.
        y = call(_GEMM_T, input.reshape(-1, x.shape[-1]), weight, bias)
        return y.reshape(*x.shape[:-1], w.shape[0])
    y = _linalg.matmul(input, weight.t())
    return y if bias is None else y + bias


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    Parameters
    ----------
    input1 : Tensor
        Shape ``(*, in1_features)``.
    input2 : Tensor
        Shape ``(*, in2_features)`` (same leading dims as ``input1``).
    weight : Tensor
        Shape ``(out_features, in1_features, in2_features)``.
    bias : Tensor, optional
        Shape ``(out_features,)``.
    """
    for x, arg, pos in ((input1, "input1", 1), (input2, "input2", 2), (weight, "weight", 3)):
        tensor_arg(x, "bilinear", arg, pos)
    a, c, w = input1.array, input2.array, weight.array
    if w.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got a {w.ndim}-D tensor")
    if a.ndim == 0 or a.shape[:-1] != c.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(a.shape[:-1])} and "
                           f"{list(c.shape[:-1])}")
    if a.shape[-1] != w.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {a.shape[-1]} but expected "
                           f"{w.shape[1]}")
    if c.shape[-1] != w.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {c.shape[-1]} but expected "
                           f"{w.shape[2]}")
    y = _linalg.einsum("...i,oij,...j->...o", input1, weight, input2)
    return y if bias is None else y + bias
