"""What the tf.random family modules share: shape and seed arguments, dtype checks, and draws graphs replay.

Not a family module (it gives no TF names).  A random op computes its values in Python from a
Philox stream (``_philox``) through ``_dispatch.host``: now, or, under a graph trace, as a PyFunc op
so that every run of the graph draws anew (as a TF graph's random op does) instead of replaying the
traced values as a constant.
"""

import enum
import secrets

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    host,
    kernel_type_name,
    op_error,
    wrap,
)
from vfw.frontends.tensorflow._op_support import FLOATS, I32, I64, INDEX_DTYPES, attr_error
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._traced_shapes import pinned, value_shaped, varies


class Algorithm(enum.Enum):
    """tf.random.Algorithm: the counter-based generators TF names (only Philox runs on its CPU)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALGORITHM_NAMES = {"philox": 1, "threefry": 2, "auto_select": 3}


def algorithm_of(alg):
    """``alg`` (None, a name, an enum value or an Algorithm) as TF's integer, ValueError if unknown."""
    if alg is None:
        return Algorithm.AUTO_SELECT.value
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        if alg.lower() in _ALGORITHM_NAMES:
            return _ALGORITHM_NAMES[alg.lower()]
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox for the Philox "
                         "algorithm, threefry for the ThreeFry algorithm, and auto_select for auto-selection.")
    if isinstance(alg, (int, np.integer)) and int(alg) in (1, 2, 3):
        return int(alg)
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are 1 for the Philox algorithm, 2 "
                     "for the ThreeFry algorithm, and 3 for auto-selection.")


class Stream:
    """A Philox key and counter that draws move on: a stateful TF kernel's generator.

    Parameters
    ----------
    key : int
        64-bit key.
    counter : int
        128-bit counter.
    """

    __slots__ = ("key", "counter")

    def __init__(self, key, counter):
        self.key = key
        self.counter = counter

    @classmethod
    def of_seeds(cls, seed, seed2):
        """The generator of a stateful kernel with attributes ``seed``/``seed2`` (both 0: a random one).

        ``seed`` is the key and ``seed2`` the counter's high 64 bits, as in TF's kernels.
        """
        if seed == 0 and seed2 == 0:
            return cls(secrets.randbits(64), secrets.randbits(64) << 64)
        return cls(seed & 0xFFFFFFFFFFFFFFFF, (seed2 & 0xFFFFFFFFFFFFFFFF) << 64)

    def reserve(self, n_blocks):
        """The counter to draw from now; the stream moves ``n_blocks`` blocks on."""
        counter = self.counter
        self.counter = (counter + n_blocks) & ((1 << 128) - 1)
        return counter


def tracing():
    """Whether a graph trace is recording on this thread."""
    return bool(_tracing) and current_trace() is not None


def stretched(unit, minval, maxval):
    """``unit * (maxval - minval) + minval``: draws in [0, 1) moved to ``[minval, maxval)`` with TF's ops."""
    return call("Add", call("Mul", unit, call("Sub", maxval, minval, tf_op="Sub"), tf_op="Mul"), minval, tf_op="AddV2")


def scaled(z, stddev, mean):
    """``z * stddev + mean``: standard draws scaled with TF's ops."""
    return call("Add", call("Mul", z, stddev, tf_op="Mul"), mean, tf_op="AddV2")


def shape_tensor(shape):
    """A ``shape`` argument as the array TF's op receives (ValueError for a partially known TensorShape)."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
        shape = shape.as_list()
    if type(shape) is list or type(shape) is tuple:
        if not shape:
            return np.zeros(0, I32)
        if all(type(d) is int for d in shape):  # the common case, without the general conversion
            return np.array(shape, I32 if all(-2 ** 31 <= d < 2 ** 31 for d in shape) else I64)
    return convert_to_tensor(shape, dtype_hint=_dtypes.int32).array


def shape_dims(array, tf_op):
    """The dims of a shape array from ``shape_tensor``, with the errors of TF's kernel ``tf_op``
    (InvalidArgumentError for a non-integer, non-vector or negative shape); inside a tf.function,
    a shape computed from the arguments is checked at each call to hold these dims (see ``DrawShape``
    for draws that follow it)."""
    dims = _checked_dims(array, tf_op)
    pinned(wrap(array), dims, "shape", tf_op)
    return dims


class DrawShape:
    """The ``shape`` argument of a draw: its dims in this call, and the dims of each run of the graph being traced
    when the shape is computed from the function's arguments (the draw then follows each call's shape, as TF's).

    Parameters
    ----------
    shape : sequence of int, TensorShape or 1-D integer tensor
    tf_op : str
        TF's kernel, for errors.
    """

    __slots__ = ("array", "dims", "_tensor", "tf_op")

    def __init__(self, shape, tf_op):
        self._tensor = None
        if _tracing and varies(shape):
            self._tensor = convert_to_tensor(shape, dtype_hint=_dtypes.int32)
            self.array = self._tensor.array
        else:
            self.array = shape_tensor(shape)
        self.tf_op = tf_op

    def checked(self):
        """This shape, with its dims (TF's errors for a bad shape)."""
        self.dims = _checked_dims(self.array, self.tf_op)
        return self

    def host(self, draw, *inputs):
        """``draw(dims, *arrays)`` on the tensors ``inputs`` (see ``_dispatch.host``) for the dims of each run; its
        first result (the draw) is value-shaped when the shape varies."""
        if self._tensor is None:
            dims = self.dims
            return host(lambda *arrays: draw(dims, *arrays), *inputs)
        tf_op = self.tf_op
        result = host(lambda shape, *arrays: draw(_checked_dims(shape, tf_op), *arrays), self._tensor, *inputs)
        value_shaped(result[0] if result.__class__ is tuple else result)
        return result


def _checked_dims(array, tf_op):
    if array.dtype not in INDEX_DTYPES:
        raise attr_error(tf_op, "T", kernel_type_name(_dtypes.of_array(array)), "int32, int64")
    if array.ndim != 1:
        raise op_error(f"shape must be a vector of {{int32,int64}}, got shape [{','.join(map(str, array.shape))}]",
                       tf_op)
    dims = tuple(int(d) for d in array)
    for d in dims:
        if d < 0:
            raise op_error(f"Dimension {d} must be >= 0", tf_op)
    return dims


def broadcast_shape(a, b, tf_op):
    """The broadcast shape of tensors ``a`` and ``b``, else TF's InvalidArgumentError naming ``tf_op``."""
    try:
        return np.broadcast_shapes(a.array.shape, b.array.shape)
    except ValueError:
        raise op_error(f"Incompatible shapes: {list(a.array.shape)} vs. {list(b.array.shape)}", tf_op) from None


def size_of(dims):
    """The number of elements of a shape (an int, exact for any size)."""
    n = 1
    for d in dims:
        n *= d
    return n


def accepted_dtype(dtype, accepted):
    """``dtype`` as a DType, TF's ValueError unless it is one of the DTypes ``accepted`` (a uniform draw's)."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         f"({', '.join('tf.' + d.name for d in accepted)}).")
    return dtype


def float_dtype(dtype, tf_op):
    """``dtype`` as a DType, InvalidArgumentError (TF's kernel message) unless it is a float type."""
    dtype = _dtypes.as_dtype(dtype)
    if dtype.np not in FLOATS:
        raise attr_error(tf_op, "dtype", kernel_type_name(dtype), "half, bfloat16, float, double")
    return dtype
