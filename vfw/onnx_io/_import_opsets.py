"""Opset adapters: an ONNX node of an older opset rewritten into the form of the newest opset.

The engine's ops have the names, inputs and attributes of the newest ONNX opset; ONNX changed
many operators over the years (attributes that became inputs, other defaults, other semantics).
Each adapter takes a :class:`~vfw.onnx_io._import_graph.NodeSpec` whose ``since`` is the
``since_version`` of the operator's schema in the node's opset, and rewrites ``spec.inputs`` and
``spec.attrs`` in place (adding constants, or engine ops computing a changed input).  Adapters
for ops that some handler converts further run before that handler; an adapter that emits the
whole node itself returns True.

Attributes that old opsets had and newer ones dropped without a change of meaning
(``consumed_inputs``, ``is_test``, Gemm's ``broadcast``...) are removed.
"""

import numpy as np

from vfw.core.errors import OpAttributeError
from vfw.onnx_io._import_table import known_shape, rank_of

ADAPTERS = {}


def adapter(*op_types):
    """Register the decorated function as the adapter of ``op_types`` (default domain)."""

    def wrap(fn):
        for op_type in op_types:
            ADAPTERS[("", op_type)] = fn
        return fn

    return wrap


def set_input(spec, index, name):
    """Put ``name`` at input ``index``, padding absent inputs with ''."""
    while len(spec.inputs) <= index:
        spec.inputs.append("")
    spec.inputs[index] = name


def attr_to_input(b, spec, attr, index, dtype=np.int64, default=None):
    """Move attribute ``attr`` (or ``default`` when it is not set) to input ``index`` as a constant."""
    value = spec.attrs.pop(attr, default)
    if value is not None:
        set_input(spec, index, b.const(np.asarray(value, dtype)))


def like_input(b, spec, value, ref):
    """A constant ``value`` cast to the dtype of the engine value ``ref`` (known only at run time)."""
    return b.op1("CastLike", [b.const(np.asarray(value, np.float64)), ref], spec.where)


def drop(spec, *names):
    for name in names:
        spec.attrs.pop(name, None)


# Ops whose old versions only carried attributes that no longer exist (meaning unchanged).
_DROPPED = ("consumed_inputs", "is_test")


@adapter("Abs", "Ceil", "Elu", "Exp", "Floor", "HardSigmoid", "LeakyRelu", "Log", "Max", "Mean", "Min", "Neg",
         "Reciprocal", "Relu", "Selu", "Sigmoid", "Sqrt", "Sum", "Tanh", "InstanceNormalization", "MaxPool",
         "AveragePool", "Conv", "ConvTranspose", "Flatten", "Transpose", "Gather", "LRN", "Softplus", "Softsign")
def _drop_legacy(b, spec):
    drop(spec, *_DROPPED)


@adapter("Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less", "PRelu")
def _legacy_broadcast(b, spec):
    """Before opset 7, binary ops broadcast B onto A only with ``broadcast=1``, B's dims aligned with A's from
    ``axis`` on (default: the trailing dims, as numpy)."""
    drop(spec, *_DROPPED)
    if spec.since >= 7:
        return
    if spec.op_type == "PRelu":  # one slope per channel (axis 1) unless a single one
        slope = known_shape(b, spec, 1)
        if slope is not None and len(slope) == 1 and slope[0] != 1:
            axes = np.arange(1, rank_of(b, spec, 0) - 1, dtype=np.int64)
            spec.inputs[1] = b.op1("Unsqueeze", [spec.inputs[1], b.const(axes)], spec.where)
        return
    broadcast = spec.attrs.pop("broadcast", 0)
    axis = spec.attrs.pop("axis", None)
    if not broadcast or axis is None:
        return
    rank_a, rank_b = rank_of(b, spec, 0), rank_of(b, spec, 1)
    trailing = rank_a - axis % max(rank_a, 1) - rank_b
    if trailing > 0:  # numpy aligns trailing dims: give B the dims of A after its own
        axes = b.const(np.arange(rank_b, rank_b + trailing, dtype=np.int64))
        spec.inputs[1] = b.op1("Unsqueeze", [spec.inputs[1], axes], spec.where)


@adapter("BatchNormalization")
def _batch_norm(b, spec):
    drop(spec, *_DROPPED)
    if spec.attrs.pop("spatial", 1) != 1:
        raise spec.error("spatial=0 (per-activation statistics) is not supported", OpAttributeError)
    if spec.since < 14 and len(spec.proto.output) > 1 and any(spec.proto.output[1:]):
        raise spec.error("training outputs of BatchNormalization before opset 14 are not supported",
                         OpAttributeError)


@adapter("Dropout")
def _dropout(b, spec):
    drop(spec, *_DROPPED)
    if spec.since < 12:
        spec.attrs.pop("ratio", None)  # inference: the output is the input, whatever the ratio


@adapter("ReduceSum")
def _reduce_sum(b, spec):
    if spec.since < 13:
        attr_to_input(b, spec, "axes", 1)


@adapter("ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
         "ReduceLogSumExp", "ReduceSumSquare")
def _reduce(b, spec):
    if spec.since < 18:
        attr_to_input(b, spec, "axes", 1)


@adapter("Squeeze", "Unsqueeze")
def _squeeze(b, spec):
    if spec.since < 13:
        attr_to_input(b, spec, "axes", 1)


@adapter("Split")
def _split(b, spec):
    if spec.since < 13:
        attr_to_input(b, spec, "split", 1)
    if spec.since < 18 and not spec.input(1):
        spec.attrs["num_outputs"] = len(spec.proto.output)  # equal parts, one per output


@adapter("Pad")
def _pad(b, spec):
    if spec.since < 11:
        pads = spec.attrs.pop("pads", spec.attrs.pop("paddings", None))
        if pads is None:
            raise spec.error("missing attribute 'pads'", OpAttributeError)
        set_input(spec, 1, b.const(np.asarray(pads, np.int64)))
        value = spec.attrs.pop("value", 0.0)
        set_input(spec, 2, like_input(b, spec, value, spec.inputs[0]))


@adapter("Slice")
def _slice(b, spec):
    if spec.since < 10:
        for index, attr in enumerate(("starts", "ends", "axes"), start=1):
            attr_to_input(b, spec, attr, index)


@adapter("Clip")
def _clip(b, spec):
    drop(spec, *_DROPPED)
    if spec.since < 11:
        for index, attr in ((1, "min"), (2, "max")):
            if attr in spec.attrs:
                set_input(spec, index, like_input(b, spec, spec.attrs.pop(attr), spec.inputs[0]))


@adapter("TopK")
def _topk(b, spec):
    if spec.since < 10:
        attr_to_input(b, spec, "k", 1)


@adapter("Reshape")
def _reshape(b, spec):
    drop(spec, *_DROPPED)
    if spec.since < 5:
        attr_to_input(b, spec, "shape", 1)


@adapter("Gemm")
def _gemm(b, spec):
    drop(spec, "broadcast")


@adapter("Concat")
def _concat(b, spec):
    spec.attrs.setdefault("axis", 1)  # opsets before 4 defaulted to 1


@adapter("Softmax", "LogSoftmax", "Hardmax")
def _softmax(b, spec):
    """Before opset 13 the input was flattened to 2-D at ``axis`` (default 1) and normalized over the second
    dim: the newest op on a Flatten, reshaped back (the whole node is emitted here)."""
    if spec.since >= 13:
        return False
    x = spec.inputs[0]
    shape = b.op1("Shape", [x], spec.where)
    flat = b.op1("Flatten", [x], spec.where, axis=spec.attrs.pop("axis", 1))
    y = b.op1(spec.op_type, [flat], spec.where, axis=1)
    output = b.define(spec.proto.output[0], where=spec.where)
    b.op("Reshape", [y, shape], [output], spec.where)
    return True


@adapter("Cast")
def _cast(b, spec):
    to = spec.attrs.get("to")
    if isinstance(to, str):  # opsets before 6 named the type
        names = {"FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7, "STRING": 8,
                 "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13, "BFLOAT16": 16}
        if to.upper() not in names:
            raise spec.error(f"unknown type name to={to!r}", OpAttributeError)
        spec.attrs["to"] = names[to.upper()]


@adapter("Upsample")
def _upsample(b, spec):
    """Upsample (opsets 7-9) is Resize with asymmetric coordinates (nearest: the floor of the source index)."""
    if spec.since < 9:
        attr_to_input(b, spec, "scales", 1, np.float32)
    spec.op_type = "Resize"
    _resize_10(b, spec)


@adapter("Resize")
def _resize(b, spec):
    if spec.since < 11:
        _resize_10(b, spec)


def _resize_10(b, spec):
    mode = spec.attrs.pop("mode", "nearest")
    spec.attrs["mode"] = "linear" if mode in ("linear", "bilinear") else mode
    spec.attrs["coordinate_transformation_mode"] = "asymmetric"
    if spec.attrs["mode"] == "nearest":
        spec.attrs["nearest_mode"] = "floor"
    spec.inputs = [spec.inputs[0], "", spec.input(1)]


@adapter("GroupNormalization")
def _group_norm(b, spec):
    """Opset 18 gave scale and bias per group; 21 per channel: repeat each group's value C / G times."""
    if spec.since >= 21:
        return
    groups = np.asarray([spec.attrs["num_groups"]], np.int64)
    channels = b.op1("Gather", [b.op1("Shape", [spec.inputs[0]], spec.where), b.const(np.asarray([1], np.int64))],
                     spec.where)
    per_group = b.op1("Div", [channels, b.const(groups)], spec.where)
    shape = b.op1("Concat", [b.const(groups), per_group], spec.where, axis=0)
    for index in (1, 2):
        column = b.op1("Reshape", [spec.inputs[index], b.const(np.asarray([-1, 1], np.int64))], spec.where)
        spread = b.op1("Expand", [column, shape], spec.where)
        spec.inputs[index] = b.op1("Reshape", [spread, b.const(np.asarray([-1], np.int64))], spec.where)


@adapter("Scatter")
def _scatter(b, spec):
    """Scatter (opsets 9-10) was renamed ScatterElements."""
    spec.op_type = "ScatterElements"


@adapter("LpPool")
def _lp_pool(b, spec):
    if isinstance(spec.attrs.get("p"), float):
        spec.attrs["p"] = int(spec.attrs["p"])  # opset 1 declared p a float


@adapter("RNN", "GRU", "LSTM")
def _recurrent(b, spec):
    drop(spec, "output_sequence")  # opset 1: outputs were always available


@adapter("DFT")
def _dft(b, spec):
    if spec.since < 20:
        attr_to_input(b, spec, "axis", 2, default=1)
