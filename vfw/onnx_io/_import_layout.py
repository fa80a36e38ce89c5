"""Channels-last regions of imported CNNs: 2-D convolutions and the ops between them run on ``(N, H, W, C)``.

ONNX convolutions are ``(N, C, H, W)``.  In that layout a convolution's im2col columns are copied in runs of one
output row (a few floats) and its GEMM writes channels apart; channels-last, a column row is ``kw * C``
contiguous floats and the GEMM writes the output in place (the exported small CNN's second convolution: 4.5 ->
2.7 ms), and pools and per-channel maps run over contiguous channel vectors.  So the rewrite moves every 2-D
``Conv`` with constant filters to ``ChannelsLastConv`` (filters stored HWIO once, at import) and carries the
layout through the ops that only need their channel axis renamed:

* elementwise activations (:data:`_UNARY`), and :data:`_BROADCASTING` ops whose operands are each channels-last
  or a constant scalar or per-channel ``(C, 1, 1)`` vector (stored as ``(C,)``);
* ``MaxPool`` (values only, no ``ceil_mode``), ``AveragePool`` (padding excluded from the means, no
  ``ceil_mode``), ``GlobalAveragePool``/``GlobalMaxPool`` (a mean or max over ``H, W``), and channel
  ``Concat``.  A max pool that alone reads a convolution runs with it, batch slice by slice
  (``ChannelsLastConvMaxPool``: the convolution's output is pooled while in cache).

A value is transposed to channels-last where a converted op first reads it, and back to ``(N, C, H, W)`` (under its
own name) where any other op or the graph's outputs read it, so results are those of the graph as imported (the
convolutions' sums in another order).  A Relu read only by a max pool moves after it (fewer elements, the same
values: see ``_relu_commutes`` in :mod:`vfw.onnx_io._import_optimize`).
"""

import numpy as np

from vfw.core.ir import make_opdef, opdef_attrs

_UNARY = frozenset({"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish",
                    "Softplus", "Softsign", "Gelu", "Mish", "Identity", "Neg", "Abs", "Exp", "Sqrt", "Erf", "Clip"})
"""Elementwise ops of one channels-last operand (Clip's bounds are scalars)."""

_BROADCASTING = frozenset({"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"})
"""Elementwise ops of several broadcast operands."""

_TO_LAST, _TO_FIRST = [0, 2, 3, 1], [0, 3, 1, 2]


class _Layout:
    """The rewritten op list and which values exist channels-last (``last``) and as imported (``first``)."""

    def __init__(self, rw):
        self.rw = rw
        self.ops = []
        self.last = {}  # imported name -> its channels-last value
        self.first = set(rw.graph.input) | set(rw.constants)  # values present as imported
        self.producer_of_last = {}  # channels-last value -> the op emitting it
        self.origin = {}  # channels-last value -> the imported op it computes

    def emit(self, op_type, inputs, outputs, **attrs):
        op = make_opdef(op_type, inputs, outputs, **attrs)
        self.ops.append(op)
        return op

    def to_last(self, name):
        """The channels-last value of the 4-D ``name`` (a Transpose emitted the first time)."""
        if name not in self.last:
            self.last[name] = self.rw.fresh(f"{name}_nhwc")
            self.emit("Transpose", [name], [self.last[name]], perm=_TO_LAST)
        return self.last[name]

    def to_first(self, name):
        """Make ``name`` present as imported (a Transpose back from its channels-last value when needed)."""
        if name and name not in self.first and name in self.last:
            self.emit("Transpose", [self.last[name]], [name], perm=_TO_FIRST)
        self.first.add(name)

    def produce_last(self, op_type, inputs, output, **attrs):
        """Emit ``op_type`` writing the channels-last value of the imported ``output``."""
        self.last[output] = self.rw.fresh(f"{output}_nhwc")
        op = self.emit(op_type, inputs, [self.last[output]], **attrs)
        self.producer_of_last[self.last[output]] = op
        return op


def _conv(lay, op, attrs, dtypes):
    """``ChannelsLastConv`` for a 2-D Conv with constant filters (and bias), or None."""
    rw = lay.rw
    w = rw.array(op.input[1])
    b = rw.array(op.input[2]) if len(op.input) > 2 and op.input[2] else None
    if (w is None or w.ndim != 4 or w.dtype != np.float32 or dtypes.get(op.input[0], w.dtype) != w.dtype
            or (len(op.input) > 2 and op.input[2] and b is None)
            or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID")):
        return None
    pads = list(attrs.get("pads") or [0] * 4) if attrs.get("auto_pad", "NOTSET") == "NOTSET" else [0] * 4
    kernel = list(attrs.get("kernel_shape") or w.shape[2:])
    if kernel != list(w.shape[2:]) or len(pads) != 4:
        return None  # Conv reports the inconsistency when it runs
    x = lay.to_last(op.input[0])
    filters = rw.add_constant(f"{op.input[1]}_hwio", w.transpose(2, 3, 1, 0))
    window = dict(strides=list(attrs.get("strides") or [1, 1]), dilations=list(attrs.get("dilations") or [1, 1]),
                  pads=pads, group=int(attrs.get("group", 1)))
    bias = [] if b is None else [op.input[2]]
    emitted = lay.produce_last("ChannelsLastConv", [x, filters] + bias, op.output[0], **window)
    lay.origin[emitted.output[0]] = op
    return emitted


def _channel_vector(rw, name):
    """The constant ``name`` as a channels-last broadcast operand (a scalar, or ``(C,)`` from ``(C, 1, 1)`` /
    ``(1, C, 1, 1)``), or None."""
    value = rw.array(name)
    if value is None:
        return None
    if value.size == 1 and value.ndim <= 4:
        return name
    shape = value.shape[-3:] if value.ndim >= 3 else ()
    if value.ndim in (3, 4) and shape[1:] == (1, 1) and (value.ndim == 3 or value.shape[0] == 1):
        return rw.add_constant(f"{name}_channels_last", value.reshape(-1))
    return None


def _broadcast(lay, op):
    """An elementwise op of several operands, each channels-last or a constant scalar or per-channel vector (at
    least one channels-last), or None."""
    operands = [lay.last.get(name) or _channel_vector(lay.rw, name) for name in op.input]
    if None in operands or not any(name in lay.last for name in op.input):
        return None
    return lay.produce_last(op.type, operands, op.output[0])


def _window(attrs):
    """``(kernel, strides, dilations, pads)`` of a 2-D pool that maps to a channels-last one, or None."""
    kernel = list(attrs.get("kernel_shape") or ())
    if len(kernel) != 2 or attrs.get("ceil_mode", 0) or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        return None
    pads = list(attrs.get("pads") or [0] * 4) if attrs.get("auto_pad", "NOTSET") == "NOTSET" else [0] * 4
    strides, dilations = list(attrs.get("strides") or [1, 1]), list(attrs.get("dilations") or [1, 1])
    if (len(pads), len(strides), len(dilations)) != (4, 2, 2):
        return None
    return kernel, strides, dilations, pads


def _pool(lay, op, attrs, relu_commutes):
    window = _window(attrs)
    if window is None or any(op.output[1:]) or attrs.get("storage_order", 0):
        return None
    kernel, strides, dilations, pads = window
    x = lay.last[op.input[0]]
    geometry = dict(kernel_shape=kernel, strides=strides, dilations=dilations, pads=pads)
    if op.type == "AveragePool":
        if attrs.get("count_include_pad", 0) and any(pads):
            return None
        return lay.produce_last("ChannelsLastAveragePool", [x], op.output[0], **geometry)
    relu = lay.origin.get(x)
    relu_after = relu is not None and relu.type == "Relu" and relu_commutes(op, relu)
    if relu_after:  # pool the Relu's input, then apply it to the pooled values
        emitted = lay.producer_of_last[x]
        lay.ops.remove(emitted)
        x = emitted.input[0]
    conv = lay.origin.get(x)
    if conv is not None and conv.type == "Conv" and lay.rw.reads[conv.output[0]] == 1:
        # the pool alone reads the convolution: both run slice by slice
        emitted = lay.producer_of_last[x]
        lay.ops.remove(emitted)
        pool = ("ChannelsLastConvMaxPool", list(emitted.input),
                dict(opdef_attrs(emitted), **{"pool_" + k: v for k, v in geometry.items()}))
    else:
        pool = ("ChannelsLastMaxPool", [x], geometry)
    if not relu_after:
        return lay.produce_last(pool[0], pool[1], op.output[0], **pool[2])
    pooled = lay.rw.fresh(f"{op.output[0]}_nhwc_before_relu")
    lay.emit(pool[0], pool[1], [pooled], **pool[2])
    return lay.produce_last("Relu", [pooled], op.output[0])


def _global_pool(lay, op):
    axes = lay.rw.add_constant(f"{op.output[0]}_spatial_axes", np.asarray([1, 2], np.int64))
    reduce = "ReduceMean" if op.type == "GlobalAveragePool" else "ReduceMax"
    return lay.produce_last(reduce, [lay.last[op.input[0]], axes], op.output[0], keepdims=1)


def _concat(lay, op, attrs):
    if attrs.get("axis") not in (1, -3) or not all(name in lay.last for name in op.input):
        return None
    return lay.produce_last("Concat", [lay.last[name] for name in op.input], op.output[0], axis=3)


def _converted(lay, op, dtypes, relu_commutes):
    """Emit ``op`` channels-last when it maps (see the module docstring); whether it did."""
    attrs = opdef_attrs(op)
    if op.type == "Conv":
        return _conv(lay, op, attrs, dtypes) is not None
    if op.type in _BROADCASTING:
        return _broadcast(lay, op) is not None
    if not op.input or op.input[0] not in lay.last:
        return False
    if op.type in _UNARY:
        extra = list(op.input[1:])
        if any(name and lay.rw.array(name) is None for name in extra):
            return False
        lay.produce_last(op.type, [lay.last[op.input[0]]] + extra, op.output[0], **attrs)
        lay.origin[lay.last[op.output[0]]] = op
        return True
    if op.type in ("MaxPool", "AveragePool"):
        return _pool(lay, op, attrs, relu_commutes) is not None
    if op.type in ("GlobalAveragePool", "GlobalMaxPool"):
        return _global_pool(lay, op) is not None
    if op.type == "Concat":
        return _concat(lay, op, attrs) is not None
    return False


def channels_last_regions(rw, dtypes, relu_commutes):
    """Rewrite ``rw``'s graph with channels-last regions around its 2-D convolutions (see the module docstring).

    Parameters
    ----------
    rw : vfw.onnx_io._import_optimize._Rewriter
        The graph being rewritten (no subgraphs).
    dtypes : dict
        The dtypes of the values that ``_ranks`` can tell.
    relu_commutes : callable
        ``relu_commutes(pool_op, relu_op)``: whether the Relu may move after the max pool.
    """
    if not any(op.type == "Conv" and rw.array(op.input[1]) is not None for op in rw.graph.op):
        return
    batches = {vi.dims[0] for vi in rw.graph.value_info if vi.name in rw.graph.input and len(vi.dims) == 4}
    if batches == {1}:
        return  # one image: both layouts convolve as fast, and the transposes would cost
    lay = _Layout(rw)
    for op in rw.graph.op:
        if _converted(lay, op, dtypes, relu_commutes):
            continue
        for name in op.input:
            lay.to_first(name)
        lay.ops.append(op)
        lay.first.update(op.output)
    for name in rw.graph.output:
        lay.to_first(name)
    rw.replace_ops(lay.ops)
