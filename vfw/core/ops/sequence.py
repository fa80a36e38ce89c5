"""Sequence and optional ops (ONNX): values that are lists of tensors, or a tensor that may be absent.

A sequence is a :class:`~vfw.core.values.TensorSequence` (a list of arrays of one dtype), an
optional an :class:`~vfw.core.values.OptionalValue` (see :mod:`vfw.core.values`).  The ops
never change a container they read: each returns a new one.  Arrays going into a sequence and
coming out of one are copied, so that the engine's rule holds that an op returns fresh memory
(an in-place graph pass may overwrite an op's input, or result, that is read last).

None of these ops is differentiable.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import DTypeError, IndexOutOfRangeError, OpInputError, ShapeError
from vfw.core.ops._common import normalize_axis, require
from vfw.core.registry import Attr, OpSchema, TensorInfo, register
from vfw.core.values import OptionalValue, TensorSequence, describe_value

_ANY = dt.ALL | {dt.string}

# What each input position accepts: a sequence, a tensor (of any engine dtype), an index tensor
# (int32/int64), or anything an optional may hold (tensor, sequence or optional).
SEQ, TENSOR, INDEX, OPTIONAL = "sequence", "tensor", "index", "optional"


class _ContainerSchema(OpSchema):
    """An op whose inputs and outputs may be sequences or optionals: ``kinds`` gives what each input
    accepts (the last kind repeats for a variadic input); ``min_inputs`` how many are required."""

    def __init__(self, op_type, inputs, outputs, kinds, attrs, kernel, infer, doc):
        super().__init__(op_type, inputs=inputs, outputs=outputs, types={"T": _ANY}, attrs=attrs,
                         kernel=kernel, infer=infer, doc=doc)
        self.kinds = kinds

    def check_inputs(self, inputs):
        n = len(inputs)
        variadic = bool(self.inputs) and self.inputs[-1].variadic
        if n < self.min_inputs or (n > len(self.inputs) and not variadic):
            most = "or more" if variadic else f"to {len(self.inputs)}"
            raise OpInputError(f"{self.op_type}: expected {self.min_inputs} {most} inputs, got {n}")
        names = self.input_names(n)
        for i, x in enumerate(inputs):
            kind = self.kinds[min(i, len(self.kinds) - 1)]
            if x is None:
                if not self.input_slot(i).optional:
                    raise OpInputError(f"{self.op_type}: input '{names[i]}' is required, got None")
                continue
            if getattr(x, "dtype", False) is None:
                continue  # a shape-inference probe of a container
            if not _accepts(kind, x):
                raise DTypeError(f"{self.op_type}: input '{names[i]}' must be {_KIND_TEXT[kind]}, got "
                                 f"{describe_value(x)}")
        return {}


_KIND_TEXT = {SEQ: "a sequence", TENSOR: "a tensor", INDEX: "an int32 or int64 tensor",
              OPTIONAL: "an optional, a tensor or a sequence"}


def _is_tensor(x):
    return isinstance(x, np.ndarray) and x.dtype in _ANY


def _accepts(kind, x):
    if kind == SEQ:
        return isinstance(x, TensorSequence)
    if kind == TENSOR:
        return _is_tensor(x)
    if kind == INDEX:
        return _is_tensor(x) and x.dtype in dt.INDEX
    return isinstance(x, (TensorSequence, OptionalValue)) or _is_tensor(x)


def _unknown(attrs, infos):
    return [TensorInfo(None, None)]


def _defcontainer(op_type, inputs, outputs, kinds, attrs=None, infer=_unknown):
    def wrap(factory):
        doc = (factory.__doc__ or "").strip().splitlines()
        register(_ContainerSchema(op_type, inputs, outputs, kinds, attrs or {}, factory, infer,
                                  doc[0] if doc else ""))
        return factory

    return wrap


def _position(op_type, position, length, allow_end):
    """The index ``position`` (a scalar int tensor) names in a sequence of ``length``, normalized."""
    require(op_type, position.size == 1 and position.ndim <= 1,
            f"position must be a scalar, got shape {position.shape}")
    k = int(position.reshape(-1)[0])
    high = length if allow_end else length - 1
    if not -length <= k <= high:
        raise IndexOutOfRangeError(f"{op_type}: position {k} is out of range for a sequence of length {length}")
    return k + length if k < 0 else k


def _check_elem(op_type, seq_dtype, x):
    if x.dtype != seq_dtype:
        raise DTypeError(f"{op_type}: a sequence of {dt.type_name(seq_dtype)} cannot hold a tensor of "
                         f"{dt.type_name(x.dtype)}")


@_defcontainer("SequenceEmpty", "", "output:T", [], {"dtype": Attr("dtype", dt.float32)})
def sequence_empty(dtype):
    """An empty sequence of tensors of ``dtype``."""

    def kernel(out=None):
        return TensorSequence((), dtype)

    return kernel


@_defcontainer("SequenceConstruct", "inputs*:T", "output_sequence:T", [TENSOR])
def sequence_construct():
    """The sequence of the inputs (tensors of one dtype), in order."""

    def kernel(*tensors, out=None):
        for x in tensors[1:]:
            _check_elem("SequenceConstruct", tensors[0].dtype, x)
        return TensorSequence([x.copy() for x in tensors], tensors[0].dtype)

    return kernel


@_defcontainer("SequenceInsert", "input_sequence:T tensor:T position?:T", "output_sequence:T", [SEQ, TENSOR, INDEX])
def sequence_insert():
    """The sequence with ``tensor`` inserted before ``position`` (default: appended)."""

    def kernel(seq, x, position=None, out=None):
        _check_elem("SequenceInsert", seq.elem_dtype, x)
        k = len(seq) if position is None else _position("SequenceInsert", position, len(seq), True)
        items = list(seq)
        items.insert(k, x.copy())
        return TensorSequence(items, seq.elem_dtype)

    return kernel


@_defcontainer("SequenceAt", "input_sequence:T position:T", "tensor:T", [SEQ, INDEX])
def sequence_at():
    """The tensor at ``position`` (negative counts from the end)."""

    def kernel(seq, position, out=None):
        return seq[_position("SequenceAt", position, len(seq), False)].copy()

    return kernel


@_defcontainer("SequenceErase", "input_sequence:T position?:T", "output_sequence:T", [SEQ, INDEX])
def sequence_erase():
    """The sequence without the tensor at ``position`` (default: the last one)."""

    def kernel(seq, position=None, out=None):
        if position is None:
            require("SequenceErase", len(seq) > 0, "cannot erase from an empty sequence", IndexOutOfRangeError)
            k = len(seq) - 1
        else:
            k = _position("SequenceErase", position, len(seq), False)
        return TensorSequence(seq[:k] + seq[k + 1:], seq.elem_dtype)

    return kernel


@_defcontainer("SequenceLength", "input_sequence:T", "length:int64", [SEQ],
               infer=lambda attrs, infos: [TensorInfo((), dt.int64)])
def sequence_length():
    """The number of tensors in the sequence (an int64 scalar)."""

    def kernel(seq, out=None):
        return np.array(len(seq), np.int64)

    return kernel


@_defcontainer("ConcatFromSequence", "input_sequence:T", "concat_result:T", [SEQ],
               {"axis": Attr("int"), "new_axis": Attr("int", 0, choices=(0, 1))})
def concat_from_sequence(axis, new_axis):
    """The tensors concatenated along ``axis`` (``new_axis=1``: stacked along a new axis ``axis``)."""

    def kernel(seq, out=None):
        require("ConcatFromSequence", len(seq) > 0, "the sequence is empty", OpInputError)
        rank = seq[0].ndim + new_axis
        ax = normalize_axis("ConcatFromSequence", axis, rank)
        shapes = {x.shape[:ax] + x.shape[ax + 1 - new_axis:] for x in seq} if rank else {()}
        if len(shapes) > 1 or any(x.ndim != seq[0].ndim for x in seq):
            raise ShapeError(f"ConcatFromSequence: shapes {[x.shape for x in seq]} do not match except along axis "
                             f"{axis}")
        return np.stack(seq, axis=ax) if new_axis else np.concatenate(seq, axis=ax)

    return kernel


@_defcontainer("SplitToSequence", "input:T split?:T", "output_sequence:T", [TENSOR, INDEX],
               {"axis": Attr("int", 0), "keepdims": Attr("int", 1, choices=(0, 1))})
def split_to_sequence(axis, keepdims):
    """Split along ``axis`` into a sequence: by the sizes in ``split`` (1-D), into chunks of ``split``
    (scalar; the last may be shorter), or (absent) into slices of one, squeezed unless ``keepdims``."""

    def kernel(x, split=None, out=None):
        ax = normalize_axis("SplitToSequence", axis, x.ndim)
        n = x.shape[ax]
        if split is None:
            parts = np.split(x, n, axis=ax) if n else []
            if not keepdims:
                parts = [np.squeeze(p, axis=ax) for p in parts]
        else:
            if split.ndim == 0:
                size = int(split)
                require("SplitToSequence", size > 0, f"split must be positive, got {size}")
                sizes = [size] * (n // size) + ([n % size] if n % size else [])
            else:
                require("SplitToSequence", split.ndim == 1, f"split must be a scalar or 1-D, got shape {split.shape}")
                sizes = [int(s) for s in split]
                if any(s < 0 for s in sizes) or sum(sizes) != n:
                    raise ShapeError(f"SplitToSequence: split sizes {sizes} must be non-negative and sum to the "
                                     f"dim {n} of axis {axis}")
            parts = np.split(x, np.cumsum(sizes)[:-1], axis=ax) if sizes else []
        return TensorSequence([p.copy() for p in parts], x.dtype)

    return kernel


@_defcontainer("Optional", "input?:T", "output:T", [OPTIONAL])
def optional():
    """An optional holding ``input`` (a tensor or a sequence), or an empty one when it is absent."""

    def kernel(x=None, out=None):
        if isinstance(x, OptionalValue):
            raise DTypeError("Optional: input must be a tensor or a sequence, got an optional")
        return OptionalValue(x.copy() if isinstance(x, np.ndarray) else x)

    return kernel


@_defcontainer("OptionalHasElement", "input?:T", "output:bool", [OPTIONAL],
               infer=lambda attrs, infos: [TensorInfo((), dt.bool_)])
def optional_has_element():
    """Whether ``input`` holds a value: false for an empty optional or an absent input, true for a tensor or a
    sequence."""

    def kernel(x=None, out=None):
        has = x is not None and not (isinstance(x, OptionalValue) and x.value is None)
        return np.array(has)

    return kernel


@_defcontainer("OptionalGetElement", "input:T", "output:T", [OPTIONAL])
def optional_get_element():
    """The value an optional holds (an error if it is empty); a tensor or a sequence is returned as it is."""

    def kernel(x, out=None):
        if isinstance(x, OptionalValue):
            require("OptionalGetElement", x.value is not None, "the optional is empty", OpInputError)
            x = x.value
        return x.copy() if isinstance(x, np.ndarray) else x

    return kernel


not_differentiable("SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
                   "SequenceLength", "ConcatFromSequence", "SplitToSequence", "Optional", "OptionalHasElement",
                   "OptionalGetElement")
