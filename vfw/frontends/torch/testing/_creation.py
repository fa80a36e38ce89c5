"""torch.testing.make_tensor: random test tensors (values from the engine's generator, seeded by manual_seed)."""

import math

import numpy as np

from vfw.core.ops import random as _engine_random
from vfw.frontends.torch import _dispatch

__all__ = ["make_tensor"]


def _range(np_dtype, low, high):
    """The [low, high) interval to draw from: torch's defaults, clamped to what the dtype can hold."""
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        lo_default, hi_default, lo_min, hi_max = (0 if np_dtype.kind == "u" else -9), 10, info.min, info.max
    else:
        info = np.finfo(np_dtype) if np_dtype.kind == "f" else np.finfo(np.float32)
        lo_default, hi_default, lo_min, hi_max = -9, 9, float(info.min), float(info.max)
    for name, v in (("low", low), ("high", high)):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`{name}` cannot be NaN, but got {name}={v}")
    low = lo_default if low is None else max(low, lo_min)
    high = hi_default if high is None else min(high, hi_max)
    if low > high or (low == high and np_dtype.kind in "iu"):
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A random tensor for tests.

    Parameters
    ----------
    *shape : int or sequence of int
    dtype : torch.dtype
    device : str or torch.device
        Accepted for compatibility (vfw tensors live on the CPU).
    low, high : float, optional
        Value range ``[low, high)``; defaults to [-9, 9] for floats, [-9, 10) for signed
        integers, [0, 10) for unsigned ones (clamped to the dtype's range).
    requires_grad : bool
        Only for floating dtypes.
    exclude_zero : bool
        Replace zeros by the smallest positive value of the dtype (1 for integers).

    Returns
    -------
    Tensor
    """
    np_dtype = dtype.np
    if requires_grad and np_dtype.kind not in "fc" and str(np_dtype) != "bfloat16":
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype}")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    rng = _engine_random.default_generator()
    if np_dtype.kind == "b":
        arr = rng.integers(0, 2, shape).astype(bool)
    elif np_dtype.kind in "iu":
        low, high = _range(np_dtype, low, high)
        arr = rng.integers(math.ceil(low), math.ceil(high), shape, dtype=np.int64, endpoint=False).astype(np_dtype)
    else:
        low, high = _range(np_dtype, low, high)
        arr = rng.uniform(low, high, shape).astype(np_dtype)
    if exclude_zero:
        tiny = 1 if np_dtype.kind in "iub" else np.finfo(np.float32 if str(np_dtype) == "bfloat16" else np_dtype).tiny
        arr[arr == 0] = tiny
    t = _dispatch.wrap(np.array(arr, np_dtype, order="C"))  # a fresh array, 0-dim kept
    return t.requires_grad_(True) if requires_grad else t

