"""Import handlers of the core operators: control flow, constants, sequences and optionals, and operators
whose ONNX form the engine computes with other ops or attributes."""

import numpy as np

from vfw.core.errors import OpAttributeError
from vfw.onnx_io import _import_control
from vfw.onnx_io._import_graph import OPTIONAL, SEQUENCE, TENSOR, define_outputs, emit_default, kind_of
from vfw.onnx_io._import_table import HANDLERS, handler

INT64_MAX = np.iinfo(np.int64).max

HANDLERS[("", "If")] = _import_control.convert_if
HANDLERS[("", "Loop")] = _import_control.convert_loop
HANDLERS[("", "Scan")] = _import_control.convert_scan
HANDLERS[("", "SequenceMap")] = _import_control.convert_sequence_map


# -- constants and values that are not tensors ----------------------------------------------------------------
_CONSTANT_KINDS = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64,
                   "value_ints": np.int64, "value_string": object, "value_strings": object}


@handler("Constant")
def _constant(conv, b, spec):
    given = [name for name in spec.attrs if name in _CONSTANT_KINDS or name in ("value", "sparse_value")]
    if len(given) != 1:
        raise spec.error(f"needs exactly one value attribute, got {sorted(spec.attrs)}", OpAttributeError)
    name = given[0]
    value = np.asarray(spec.attrs[name], dtype=_CONSTANT_KINDS.get(name))
    emit_default(b, spec, "Constant", {"value": value})


@handler("Identity")
def _identity(conv, b, spec):
    kind = b.kind(spec.proto.input[0]) if spec.proto.input else TENSOR
    if kind == TENSOR:
        emit_default(b, spec)
    else:  # sequences and optionals are immutable: the output is the same value
        b.alias(spec.proto.output[0], spec.inputs[0], spec.where)


@handler("SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SplitToSequence")
def _sequence(conv, b, spec):
    define_outputs(b, spec, [SEQUENCE])
    emit_default(b, spec)


@handler("Optional")
def _optional(conv, b, spec):
    define_outputs(b, spec, [OPTIONAL])
    emit_default(b, spec, attrs={})


@handler("OptionalGetElement")
def _optional_get(conv, b, spec):
    declared = conv.type_of(spec.proto.output[0])
    if declared is not None and declared.WhichOneof("value"):
        kind = kind_of(declared)
    else:
        inner = conv.type_of(spec.proto.input[0])
        kind = kind_of(inner.optional_type.elem_type) if inner is not None and inner.HasField("optional_type") \
            else b.kind(spec.proto.input[0])
    define_outputs(b, spec, [SEQUENCE if kind == SEQUENCE else TENSOR])
    emit_default(b, spec)


# -- operators the engine computes with other attributes ------------------------------------------------------
@handler("CumProd")
def _cumprod(conv, b, spec):
    """``exclusive=1``: the inclusive product of the input shifted by one along the axis, 1 first (Slice and Pad
    take the axis as an input, so it need not be a constant)."""
    if not spec.attrs.pop("exclusive", 0):
        emit_default(b, spec)
        return
    x = spec.inputs[0]
    axes = b.op1("Reshape", [b.op1("Cast", [spec.input(1)], spec.where, to=np.int64),
                             b.const([-1], np.int64)], spec.where)
    start, end, pads = ((1, INT64_MAX, [0, 1]) if spec.attrs.get("reverse", 0) else (0, -1, [1, 0]))
    kept = b.op1("Slice", [x, b.const([start], np.int64), b.const([end], np.int64), axes], spec.where)
    one = b.op1("CastLike", [b.const(1.0, np.float64), x], spec.where)
    shifted = b.op1("Pad", [kept, b.const(pads, np.int64), one, axes], spec.where)
    spec.inputs[0] = shifted
    emit_default(b, spec)


@handler("Range")
def _range(conv, b, spec):
    """ONNX asks for scalars; some of its own function bodies (AffineGrid) pass one-element vectors."""
    scalar = b.const(np.zeros(0, np.int64))
    spec.inputs = [b.op1("Reshape", [name, scalar], spec.where) for name in spec.inputs]
    emit_default(b, spec)


@handler("Squeeze", "Unsqueeze")
def _squeeze(conv, b, spec):
    """ONNX asks for 1-D axes; its own tests also pass a scalar."""
    axes = spec.input(1)
    if axes and (b.constant(axes) is None or b.constant(axes).ndim != 1):
        spec.inputs[1] = b.op1("Reshape", [axes, b.const(np.asarray([-1], np.int64))], spec.where)
    emit_default(b, spec)


@handler("Adagrad", "Momentum", "Adam", domain="ai.onnx.preview.training")
def _optimizer_step(conv, b, spec):
    emit_default(b, spec)


@handler("LabelEncoder", "TreeEnsemble", "Binarizer", "ArrayFeatureExtractor", domain="ai.onnx.ml")
def _ml_op(conv, b, spec):
    emit_default(b, spec)
