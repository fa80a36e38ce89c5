"""Arguments of TensorFlow's convolution and pooling functions, and the layout moves around the engine ops.

TF's Python layer normalizes ``strides``/``ksize``/``dilations`` into full per-axis lists (batch and
channel entries included) and ``padding`` into a string or explicit pairs; its kernels then check
them.  This module does both, with TF's messages and exception types, and computes the pads the
channels-last engine ops take (SAME puts the odd pad at the end).  Inputs in a channels-first
``data_format`` are transposed to channels-last around the op.
"""

import collections.abc
import math

import numpy as np

from vfw.frontends.tensorflow import errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error
from vfw.frontends.tensorflow._op_support import BF16, F16, F32, F64, I32, cast, reshape

CONV_TYPES = frozenset({F16, BF16, F32, F64, I32})
"""Conv2D's and Conv2DBackpropInput's dtypes (int32 computes in float64: exact below 2**53)."""
FLOAT_TYPES = frozenset({F16, BF16, F32, F64})


def channels_first(data_format):
    """Whether a TF ``data_format`` string puts channels right after the batch (``NC...``)."""
    return data_format is not None and data_format.startswith("NC")


def check_format(data_format, allowed, tf_op):
    """TF's attr error unless ``data_format`` is one of the op's ``allowed`` formats."""
    if data_format not in allowed:
        quoted = ", ".join(f'"{a}"' for a in allowed)
        raise op_error(f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed values: "
                       f"{quoted}", tf_op)


def sequence(value, nd, first, name):
    """TF's normalization of ``strides``/``ksize``/``dilations``: a list of ``nd + 2`` ints.

    One value applies to every spatial axis, ``nd`` values give the spatial axes, ``nd + 2`` values
    are taken as they are (batch and channel entries included); ``None`` is all ones.
    """
    if value is None:
        return [1] * (nd + 2)
    if isinstance(value, (list, tuple)):
        value = list(value)
    elif isinstance(value, int) or not isinstance(value, collections.abc.Sized):
        value = [value]
    else:
        value = list(value)
    if len(value) == nd + 2:
        return [as_int(v, name) for v in value]
    if len(value) == 1:
        value = value * nd
    elif len(value) != nd:
        raise ValueError(f"{name} should be of length 1, {nd} or {nd + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    value = [as_int(v, name) for v in value]
    return [1, 1] + value if first else [1] + value + [1]


def attr_list(value, name, fn, length):
    """A list attribute given straight to a raw TF op (``conv3d``'s ``strides``...): TF's TypeError for a
    non-list, its InvalidArgumentError for a list shorter than ``length``."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to '{fn}' Op, not {value!r}.")
    if len(value) < length:
        raise op_error(f"Length for attr '{name}' of {len(value)} must be at least minimum {length}")
    return [as_int(v, name) for v in value]


def as_int(v, name):
    """An int attribute entry (integral floats pass, as in TF), TF's TypeError otherwise."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) \
            or float(v) != int(v):
        raise TypeError(f"Expected int for argument '{name}' not {v!r}.")
    return int(v)


def spatial(values, first):
    """The spatial entries of a full per-axis list."""
    return values[2:] if first else values[1:-1]


def outer(values, first):
    """The batch and channel entries of a full per-axis list."""
    return (values[0], values[1]) if first else (values[0], values[-1])


def padding_arg(padding, rank, explicit_ok=True):
    """``padding`` as ``("SAME" | "VALID", None)`` or ``("EXPLICIT", pairs)`` (``rank`` pairs), TF's errors.

    Functions that hand ``padding`` to their op untouched (``explicit_ok=False``) raise TF's TypeError
    for a list.
    """
    if isinstance(padding, (list, tuple)):
        if not explicit_ok:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError("When `padding` is a list, each element of `padding` must be a list/tuple of size "
                                 f"2. Received: padding={padding} with element at index {i} of type {type(pair)}")
            if len(pair) != 2:
                raise ValueError("When `padding` is a list, each element of `padding` must be a list/tuple of size "
                                 f"2. Received: padding={padding} with element at index {i} of size {len(pair)}")
        if len(padding) != rank:
            raise ValueError(f"When padding is a list, it must be of size {rank}. Received: padding={padding} of "
                             f"size {len(padding)}")
        return "EXPLICIT", [(as_int(b, "padding"), as_int(e, "padding")) for b, e in padding]
    if padding == "EXPLICIT" and explicit_ok:
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must "
                         "be a list.")
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    return padding, None


def check_strides_dilations(nd, strides, dilations):
    """What TF's dilated (space-to-batch) convolution and pooling paths check of spatial ``strides`` and
    ``dilations`` (ValueError)."""
    if len(dilations) != nd:
        raise ValueError(f"`len(dilation_rate)` should be {nd}. Received: dilation_rate={dilations} of length "
                         f"{len(dilations)}")
    if any(d < 1 for d in dilations):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate="
                         f"{np.array(dilations)}")
    if len(strides) != nd:
        raise ValueError(f"`len(strides)` should be {nd}. Received: strides={strides} of length {len(strides)}")
    if any(s < 1 for s in strides):
        raise ValueError(f"all values of `strides` must be positive. Received: strides={np.array(strides)}")
    if any(s > 1 for s in strides) and any(d > 1 for d in dilations):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides="
                         f"{np.array(strides)} and dilation_rate={np.array(dilations)}")


def check_padding(padding, tf_op, explicit=True):
    """TF's attr error for a padding string its op does not know (case matters: 'same' is refused)."""
    allowed = ("SAME", "VALID", "EXPLICIT") if explicit else ("SAME", "VALID")
    if padding not in allowed:
        quoted = ", ".join(f'"{a}"' for a in allowed)
        raise op_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: {quoted}",
                       tf_op)


def explicit_pads(pairs, first, tf_op):
    """Spatial ``(begins, ends)`` from ``rank`` explicit pairs (batch and channel pairs must be zero)."""
    edge = (pairs[0], pairs[1]) if first else (pairs[0], pairs[-1])
    if any(v != 0 for pair in edge for v in pair):
        raise op_error("Nonzero explicit padding in the batch or depth dimensions is not supported", tf_op)
    inner = pairs[2:] if first else pairs[1:-1]
    if any(v < 0 for pair in inner for v in pair):
        raise op_error("All elements of explicit_paddings must be nonnegative", tf_op)
    return [b for b, _ in inner], [e for _, e in inner]


def same_pads(sizes, kernel, strides, dilations):
    """TF's SAME padding per spatial axis: ``ceil(n / s)`` windows, the odd pad at the end."""
    begins, ends = [], []
    for n, k, s, d in zip(sizes, kernel, strides, dilations):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins, ends


def pads_for(padding, pairs, sizes, kernel, strides, dilations, first, tf_op):
    """The engine's ``pads`` attribute (begins then ends) for a checked padding."""
    if padding == "SAME":
        begins, ends = same_pads(sizes, kernel, strides, dilations)
    elif padding == "VALID":
        begins = ends = [0] * len(sizes)
    else:
        begins, ends = explicit_pads(pairs, first, tf_op)
    return list(begins) + list(ends)


def to_channels_last(x, first):
    """``x`` (N, C, *spatial) as (N, *spatial, C) when ``first``, else itself."""
    if not first:
        return x
    nd = x.array.ndim
    return call("Transpose", x, perm=[0] + list(range(2, nd)) + [1], tf_op="Transpose")


def from_channels_last(y, first):
    """The inverse of ``to_channels_last``."""
    if not first:
        return y
    nd = y.array.ndim
    return call("Transpose", y, perm=[0, nd - 1] + list(range(1, nd - 1)), tf_op="Transpose")


def fold_batch(x, inner):
    """``x`` with its leading dims (all but the last ``inner``) folded into one batch dim, and the leading
    shape to restore (None when ``x`` already has one batch dim or fewer)."""
    shape = x.array.shape
    if len(shape) <= inner + 1:
        return x, None
    return reshape(x, (math.prod(shape[:-inner]),) + shape[-inner:]), shape[:-inner]


def unfold_batch(y, lead):
    """The inverse of ``fold_batch``."""
    if lead is None:
        return y
    return reshape(y, tuple(lead) + y.array.shape[1:])


def in_compute_dtype(x):
    """int32 tensors as float64 (the engine's convolutions are float-only; exact below 2**53)."""
    return cast(x, F64) if x.array.dtype == I32 else x


def expand(x, axis):
    """``x`` with a new size-1 axis at ``axis``."""
    shape = list(x.array.shape)
    shape.insert(axis % (len(shape) + 1), 1)
    return reshape(x, shape)


def squeeze(y, axis):
    """``y`` without its size-1 axis ``axis``."""
    shape = list(y.array.shape)
    del shape[axis]
    return reshape(y, shape)


def shape_list(value, what, tf_op):
    """``output_shape`` / ``input_sizes`` (list, tuple, array or tensor) as a list of ints."""
    array = value.array if hasattr(value, "array") else np.asarray(convert_to_tensor(value).array)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise op_error(f"{what} must be a 1-D integer tensor, got shape {list(array.shape)}", tf_op)
    return [int(v) for v in array]


def unimplemented(message, tf_op):
    """TF's UnimplementedError for ``tf_op``."""
    return op_error(message, tf_op, errors.UnimplementedError)
