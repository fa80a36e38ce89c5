"""Inference rewrites of imported graphs (``vfw.onnx_io.load`` at ``opt_level`` 1, between two runs of the
engine's level-1 passes: the first folds the small constants they read, the second prunes what they replace).

* Constant fills and transposes: a ``ConstantOfShape`` of a constant shape is computed once at import,
  whatever its size (the engine's folding keeps large fills as ops, to keep traced graphs small: ONNX models
  that build their weights this way, onnx's "light" test models, would fill them on every run), and so is
  a ``Transpose`` of a constant, stored contiguous (the engine's folding keeps views as ops, so that products
  round as traced: a ``MatMul`` by a transposed weight view is several times slower than by the weight
  stored transposed, as exported Transformers read theirs).
  Likewise a ``Gemm``'s constant ``B`` read with ``transB=1`` (a Linear layer's weight) is stored transposed.
* Per-channel affine maps folded into the op before them: ``BatchNormalization(Conv(X, W, B))`` (inference,
  constant weights and statistics) becomes one ``Conv`` with filters ``W * s`` and bias
  ``(B - mean) * s + bias`` per output channel, ``s = scale / sqrt(var + eps)``; a ``Mul`` or ``Add`` by a
  constant that varies along the channel axis only (Caffe2 exports scale this way) is absorbed by the
  ``Conv`` or ``BatchNormalization`` before it (its filters and bias, or its scale and bias).  The folded
  value must be read by nothing else; parameters are computed in float64 and stored in their dtype.  An
  inference ``BatchNormalization`` that stays (after a Concat, say) becomes a per-channel ``Mul`` and ``Add``
  by constants folded the same way (when X's rank and dtype can be told from the graph).  When such a ``Mul``
  (by positive scales, per channel) is read by ``Add`` -> ``Relu`` -> ``Conv`` alone (densenet's pre-activation
  blocks), the scales move into the filters past the Relu: ``Conv(W, Relu(s * X + t)) = Conv(W * s,
  Relu(X + t / s))`` with ``W`` scaled along its input channels (one pass over X less).
* Max pools whose ``Indices`` output nothing reads: ``MaxPool`` always computes the indices, so the values
  are taken by ``ChannelsLastMaxPool`` instead, over ``X`` with a unit trailing axis (a view):
  ``(N, C, *D, 1)`` is the channels-last layout of a pool over ``(C, *D)`` with a window of 1 along ``C``.
  A ``Relu`` whose values only such a pool reads is applied to the pooled values instead (the same values:
  the maximum of Relus is the Relu of the maximum, when every window reads some of X), fewer of them.

* Batches of images (an input batch not known to be 1): 2-D convolutions and the pools, activations and per-channel
  maps around them run channels-last (``vfw.onnx_io._import_layout``); it runs before the max-pool rewrite above,
  whose pools then are the ones left channels-first.

Graphs with subgraphs (If/Loop/Scan bodies, which may read any outer value) are left as they are.  The
results equal the graph as imported (the folded convolution up to the rounding of the folded weights).
"""

import collections

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.ir import make_opdef, opdef_attrs, proto_to_tensor, tensor_to_proto
from vfw.core.registry import make_op
from vfw.onnx_io._import_layout import channels_last_regions


class _Rewriter:
    """The graph being rewritten, its constants (initializers no feed overrides) and fresh names."""

    def __init__(self, graph):
        self.graph = graph
        overridable = set(graph.input)
        self.constants = {t.name: t for t in graph.initializer if t.name not in overridable}
        self.reads = collections.Counter(name for op in graph.op for name in op.input if name)
        self.reads.update(graph.output)
        self._channel_axis = None
        self.taken = set(graph.input) | {t.name for t in graph.initializer} | {
            name for op in graph.op for name in list(op.input) + list(op.output)}

    def fresh(self, hint):
        name, k = hint, 0
        while name in self.taken:
            k += 1
            name = f"{hint}_{k}"
        self.taken.add(name)
        return name

    def array(self, name):
        """The constant ``name`` as an array, or None when it is not a constant."""
        proto = self.constants.get(name) if name else None
        return None if proto is None else proto_to_tensor(proto)

    def add_constant(self, hint, array):
        name = self.fresh(hint)
        proto = tensor_to_proto(np.ascontiguousarray(array), name)
        self.graph.initializer.append(proto)
        self.constants[name] = proto
        return name

    def channel_axis(self):
        """The constant ``[-1]`` (one initializer however many pools read it)."""
        if self._channel_axis is None:
            self._channel_axis = self.add_constant("pool_channel_axis", np.asarray([-1], np.int64))
        return self._channel_axis

    def replace_ops(self, ops):
        """Make the graph's ops copies of ``ops`` (which may hold messages of the graph's current list)."""
        ops = [_copy(op) for op in ops]
        del self.graph.op[:]
        self.graph.op.extend(ops)


_FOLDED_LAYOUT_OPS = ("ConstantOfShape", "Transpose")  # fills and transposed views of constants

_MAX_FILL_BYTES = 1 << 31  # vgg19's largest weight is 0.4 GB

_FOLDED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # half precision: BN stays (its rounding)


def _copy(op):
    out = type(op)()
    out.CopyFrom(op)
    return out


def _computed(op, source):
    """``op`` (a fill or a transpose) of the constant ``source``, contiguous; None when it fails or the fill would
    be absurdly large (the op then stays, and raises its error when the graph runs)."""
    if op.type == "ConstantOfShape" and (source.ndim != 1 or np.any(source < 0) or
                                         np.prod(source.astype(np.float64)) * 8 > _MAX_FILL_BYTES):
        return None
    try:
        return np.ascontiguousarray(make_op(op.type, opdef_attrs(op))(source))
    except (VfwError, ValueError, TypeError, MemoryError):
        return None


def _fold_constant_layouts(rw):
    kept = []
    for op in rw.graph.op:
        source = rw.array(op.input[0]) if op.type in _FOLDED_LAYOUT_OPS and len(op.input) == 1 else None
        value = _computed(op, source) if source is not None and op.output[0] not in rw.graph.output else None
        if value is not None:
            proto = tensor_to_proto(value, op.output[0])
            rw.graph.initializer.append(proto)
            rw.constants[op.output[0]] = proto
        else:
            kept.append(op)
    rw.replace_ops(kept)


def _gemm_weights_stored_transposed(rw):
    """``Gemm(A, B, C, transB=1)`` with a constant float ``B`` that nothing else reads takes ``B`` stored transposed
    (contiguous) with ``transB=0``: BLAS multiplies by a row-major ``(K, N)`` operand faster than by a transposed
    view of ``(N, K)`` (measured 8% on 128x784 @ 784x512, 40% at N=10; never slower, gemv included)."""
    for op in rw.graph.op:
        if op.type != "Gemm" or len(op.input) < 2 or not opdef_attrs(op).get("transB", 0) or rw.reads[op.input[1]] != 1:
            continue
        weights = rw.array(op.input[1])
        if weights is None or weights.ndim != 2 or weights.dtype.kind != "f":
            continue
        op.input[1] = rw.add_constant(f"{op.input[1]}_transposed", weights.T)
        kept = [arg for arg in op.arg if arg.name != "transB"]
        del op.arg[:]
        op.arg.extend(kept)


def _parameters(rw, op):
    """float64 copies of the constant parameters of a Conv ``[weights, bias]`` or of an inference
    BatchNormalization ``[scale, bias, mean, var]``; None when one is not a constant (or half precision)."""
    if op.type == "Conv":
        w = rw.array(op.input[1]) if len(op.input) > 1 else None
        bias = rw.array(op.input[2]) if len(op.input) > 2 and op.input[2] else None
        if w is None or w.dtype not in _FOLDED_DTYPES or (len(op.input) > 2 and op.input[2] and (
                bias is None or bias.shape != w.shape[:1])):
            return None
        return [w.astype(np.float64), np.zeros(w.shape[0]) if bias is None else bias.astype(np.float64)]
    if opdef_attrs(op).get("training_mode", 0) or any(op.output[1:]) or len(op.input) != 5:
        return None
    arrays = [rw.array(name) for name in op.input[1:]]
    if any(a is None or a.dtype not in _FOLDED_DTYPES or a.ndim != 1 or a.shape != arrays[0].shape for a in arrays):
        return None
    return [a.astype(np.float64) for a in arrays]


def _per_channel(constant, channels, rank):
    """``constant`` as one value per channel when, broadcast against a value of ``rank`` dims (N, C, ...), it varies
    along the channel axis only; else None."""
    if rank is None or constant.ndim > rank:
        return None
    full = constant.reshape((1,) * (rank - constant.ndim) + constant.shape)
    if rank < 2 or any(d != 1 for k, d in enumerate(full.shape) if k != 1) or full.shape[1] not in (1, channels):
        return None
    return np.broadcast_to(full.reshape(-1).astype(np.float64), (channels,))


def _absorbed(rw, op, producer, y, ranks):
    """New parameters of ``producer`` (a Conv or a BatchNormalization computing ``y``) that also compute ``op``,
    or None."""
    params = _parameters(rw, producer)
    if params is None:
        return None
    channels = params[0].shape[0]
    if op.type == "BatchNormalization":
        norm = _parameters(rw, op) if producer.type == "Conv" else None
        if norm is None or norm[0].shape != (channels,):
            return None
        scale, shift, mean, var = norm
        factor = scale / np.sqrt(var + opdef_attrs(op).get("epsilon", 1e-5))
        w, bias = params
        return [w * factor.reshape((channels,) + (1,) * (w.ndim - 1)), (bias - mean) * factor + shift]
    other = rw.array(op.input[1] if op.input[0] == y else op.input[0])
    dtype = rw.array(producer.input[1]).dtype
    v = None if other is None or other.dtype != dtype else _per_channel(other, channels, ranks.get(y))
    if v is None:
        return None
    if op.type == "Add":
        return [params[0], params[1] + v] + params[2:]
    if producer.type == "Conv":
        return [params[0] * v.reshape((channels,) + (1,) * (params[0].ndim - 1)), params[1] * v]
    return [params[0] * v, params[1] * v] + params[2:]


_RANK_KEEPING = frozenset({
    "Add", "Sub", "Mul", "Div", "Sum", "Max", "Min", "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Clip", "Elu",
    "Identity", "Dropout", "BatchNormalization", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool",
    "GlobalMaxPool", "LRN", "Softmax"})
"""Ops whose first output has the largest rank of their inputs (broadcasting elementwise ops, pools...)."""


def _ranks(rw):
    """Ranks and dtypes of the values that can be told without shapes: inputs and constants, Conv outputs (their
    filters' rank, their input's dtype), outputs of :data:`_RANK_KEEPING` ops whose inputs' are known (the dtype
    of the first)."""
    ranks = {vi.name: len(vi.dims) for vi in rw.graph.value_info if len(vi.dims)}
    ranks.update((name, len(proto.dims)) for name, proto in rw.constants.items())
    dtypes = {vi.name: dt.as_dtype(vi.data_type) for vi in rw.graph.value_info if vi.data_type}
    dtypes.update((name, dt.as_dtype(proto.data_type)) for name, proto in rw.constants.items())
    for op in rw.graph.op:
        known = [ranks.get(name) for name in op.input if name]
        if op.type == "Conv" and len(known) > 1 and known[1] is not None:
            ranks[op.output[0]] = known[1]
        elif op.type in _RANK_KEEPING and known and None not in known:
            ranks[op.output[0]] = max(known)
        if (op.type == "Conv" or op.type in _RANK_KEEPING) and op.input and op.input[0] in dtypes:
            dtypes[op.output[0]] = dtypes[op.input[0]]
    return ranks, dtypes


def _fold_channel_affines(rw):
    """Fold BatchNormalization into a preceding Conv, and per-channel constant Mul/Add into a preceding Conv or
    BatchNormalization (its parameters absorb them: the producer takes the folded op's output name)."""
    ops = [_copy(op) for op in rw.graph.op]
    ranks = _ranks(rw)[0]
    producers = {}  # value -> index of the Conv / BatchNormalization computing it from constant parameters
    for k, op in enumerate(ops):
        sources = [name for name in op.input[:1 if op.type == "BatchNormalization" else 2] if name in producers]
        folded = None
        if op.type in ("BatchNormalization", "Mul", "Add") and len(sources) == 1 and rw.reads[sources[0]] == 1:
            producer = ops[producers[sources[0]]]
            folded = _absorbed(rw, op, producer, sources[0], ranks)
        if folded is not None:
            source = producers.pop(sources[0])
            _set_parameters(rw, producer, folded)
            producer.output[0] = op.output[0]
            producers[op.output[0]] = source
            ops[k] = None
        elif op.type in ("Conv", "BatchNormalization"):
            producers[op.output[0]] = k
    rw.replace_ops([op for op in ops if op is not None])


def _batch_norms_as_affine_maps(rw):
    """Inference BatchNormalizations left after the folding (X not a Conv's output), with constant float32/64
    parameters of X's dtype and X's rank known: ``Add(Mul(X, s), t)``, ``s = scale / sqrt(var + epsilon)`` and
    ``t = B - mean * s`` per channel (two passes over X instead of three; the executor's memory plan runs the
    ``Add`` in place)."""
    ranks, dtypes = _ranks(rw)
    ops = []
    for op in rw.graph.op:
        params = _parameters(rw, op) if op.type == "BatchNormalization" else None
        rank, dtype = (ranks.get(op.input[0]), dtypes.get(op.input[0])) if params else (None, None)
        if rank is None or rank < 2 or dtype != rw.array(op.input[1]).dtype:
            ops.append(op)
            continue
        scale, shift, mean, var = params
        factor = scale / np.sqrt(var + opdef_attrs(op).get("epsilon", 1e-5))
        shape = (-1,) + (1,) * (rank - 2)  # per channel, broadcast against (N, C, ...)
        names = [rw.add_constant(f"{op.output[0]}_{role}", a.astype(dtype).reshape(shape))
                 for role, a in (("scale", factor), ("shift", shift - mean * factor))]
        scaled = rw.fresh(f"{op.output[0]}_scaled")
        ops += [make_opdef("Mul", [op.input[0], names[0]], [scaled], name=op.name),
                make_opdef("Add", [scaled, names[1]], [op.output[0]])]
    rw.replace_ops(ops)


def _constant_operand(rw, op):
    """``(other input, constant)`` of a binary ``op`` exactly one of whose inputs is a constant; else None."""
    if len(op.input) != 2:
        return None
    arrays = [rw.array(name) for name in op.input]
    if (arrays[0] is None) == (arrays[1] is None):
        return None
    k = 0 if arrays[0] is not None else 1
    return op.input[1 - k], arrays[k]


def _scaled_relu_chain(rw, producers, reads, conv):
    """``(Mul, Add, X, s, t, s per input channel)`` when ``conv`` (constant float filters) reads
    ``Relu(Add(Mul(X, s), t))`` with finite constants ``s > 0`` and ``t`` of the filters' dtype, both per channel of
    the convolution's input, each value read once; else None."""
    w = rw.array(conv.input[1]) if len(conv.input) > 1 else None
    constants = []  # the Add's and the Mul's
    name = conv.input[0]
    for op_type in ("Relu", "Add", "Mul"):
        op = producers.get(name)
        operand = None
        if op is not None and op.type == op_type and reads[name] == 1:
            operand = (op.input[0], None) if op_type == "Relu" else _constant_operand(rw, op)
        if operand is None:
            return None
        name = operand[0]
        constants.append((op, operand[1]))
    group = opdef_attrs(conv).get("group", 1)
    if w is None or w.dtype not in _FOLDED_DTYPES or w.ndim < 3 or w.shape[0] % group:
        return None
    (add, t), (mul, s) = constants[1:]
    if s.dtype != w.dtype or t.dtype != w.dtype:
        return None
    scale, shift = _per_channel(s, w.shape[1] * group, w.ndim), _per_channel(t, w.shape[1] * group, w.ndim)
    if scale is None or shift is None or not np.all(scale > 0):
        return None
    with np.errstate(all="ignore"):
        finite = np.all(np.isfinite(scale.astype(w.dtype))) and np.all(np.isfinite((shift / scale).astype(w.dtype)))
    return (mul, add, name, s, t, scale) if finite else None


def _positive_scales_into_convolutions(rw):
    """``Conv(Relu(Add(Mul(X, s), t)))`` with positive per-channel constants (densenet's BatchNormalization -> Relu
    -> Conv after each Concat) as ``Conv(Relu(Add(X, t / s)))`` with the filters scaled by ``s`` along their input
    channels: ``Relu(s * v) = s * Relu(v)`` for ``s > 0`` and Conv is linear in X, its zero padding included.  One
    pass over X less (the Add still writes a fresh value when X is read elsewhere, as the Mul did)."""
    reads = collections.Counter(name for op in rw.graph.op for name in op.input if name)
    reads.update(rw.graph.output)
    producers = {op.output[0]: op for op in rw.graph.op if op.type in ("Relu", "Add", "Mul") and len(op.output) == 1}
    dropped = set()
    for conv in rw.graph.op:
        chain = _scaled_relu_chain(rw, producers, reads, conv) if conv.type == "Conv" else None
        if chain is None:
            continue
        mul, add, x, s, t, scale = chain
        w = rw.array(conv.input[1])
        group = opdef_attrs(conv).get("group", 1)
        grouped = (group, w.shape[0] // group, w.shape[1]) + w.shape[2:]
        filters = w.astype(np.float64).reshape(grouped) * scale.reshape((group, 1, w.shape[1]) + (1,) * (w.ndim - 2))
        conv.input[1] = rw.add_constant(f"{conv.output[0]}_w", filters.reshape(w.shape).astype(w.dtype))
        shift = t.astype(np.float64) / s.astype(np.float64)  # the shape Add(Mul(X, s), t) broadcast X to
        add_inputs = [x, rw.add_constant(f"{add.output[0]}_shift", shift.astype(w.dtype))]
        del add.input[:]
        add.input.extend(add_inputs)
        dropped.add(id(mul))
    if dropped:
        rw.replace_ops([op for op in rw.graph.op if id(op) not in dropped])


def _set_parameters(rw, op, params):
    """Give the Conv or BatchNormalization ``op`` new constants for its first two parameters (the weights and
    bias, or the scale and bias; a Conv without bias gets one)."""
    dtype = rw.array(op.input[1]).dtype
    names = [rw.add_constant(f"{op.output[0]}_{role}", a.astype(dtype)) for role, a in zip(("w", "b"), params)]
    inputs = [op.input[0]] + names + list(op.input[3:])
    del op.input[:]
    op.input.extend(inputs)


def _pool_rewrite(rw, op):
    """``[Unsqueeze, ChannelsLastMaxPool, Squeeze]`` computing ``op``'s values, or None."""
    attrs = opdef_attrs(op)
    if any(op.output[1:]) or attrs.get("ceil_mode", 0) or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        return None
    kernel = list(attrs.get("kernel_shape") or ())
    nd = len(kernel)
    pads = list(attrs.get("pads") or [0] * (2 * nd)) if attrs.get("auto_pad", "NOTSET") == "NOTSET" else [0] * (2 * nd)
    strides = list(attrs.get("strides") or [1] * nd)
    dilations = list(attrs.get("dilations") or [1] * nd)
    if not nd or (len(pads), len(strides), len(dilations)) != (2 * nd, nd, nd):
        return None  # MaxPool reports the inconsistency when it runs
    last = rw.channel_axis()
    wide, pooled = rw.fresh(f"{op.output[0]}_wide"), rw.fresh(f"{op.output[0]}_pooled")
    return [make_opdef("Unsqueeze", [op.input[0], last], [wide]),
            make_opdef("ChannelsLastMaxPool", [wide], [pooled], name=op.name, kernel_shape=[1] + kernel,
                       strides=[1] + strides, dilations=[1] + dilations, pads=[0] + pads[:nd] + [0] + pads[nd:]),
            make_opdef("Squeeze", [pooled, last], [op.output[0]])]


def _relu_commutes(rw, pool, relu):
    """Whether ``Relu`` (an op or None) may move from the input of the rewritten max ``pool`` to its output: the
    pool alone reads the Relu's output, and every window reads some of X (dilation 1 and pads shorter than the
    kernel), whose maximum the Relu does not change (the maximum of a Relu is the Relu of the maximum)."""
    if relu is None or relu.type != "Relu" or rw.reads[relu.output[0]] != 1:
        return False
    attrs = opdef_attrs(pool)
    kernel = list(attrs["kernel_shape"])
    pads = list(attrs.get("pads") or [0] * (2 * len(kernel)))
    return all(d == 1 for d in attrs.get("dilations") or ()) and all(
        p < k for p, k in zip(pads, kernel + kernel))


def _values_only_max_pools(rw):
    """Max pools without Indices as ChannelsLastMaxPool; a Relu only such a pool reads moves after it (on the
    pooled values: a fraction of the elements for strided windows)."""
    producer = {op.output[0]: op for op in rw.graph.op if op.type == "Relu"}
    moved = set()  # ids of the Relus a pool now applies
    ops = []
    for op in rw.graph.op:
        rewritten = _pool_rewrite(rw, op) if op.type == "MaxPool" else None
        relu = producer.get(op.input[0]) if rewritten else None
        if rewritten and _relu_commutes(rw, op, relu):
            rewritten[0].input[0] = relu.input[0]
            pooled = rw.fresh(f"{op.output[0]}_before_relu")
            rewritten[-1].output[0] = pooled
            rewritten.append(make_opdef("Relu", [pooled], [op.output[0]], name=relu.name))
            moved.add(id(relu))
        ops.extend(rewritten or [op])
    rw.replace_ops([op for op in ops if id(op) not in moved])


def optimize_for_inference(graph):
    """Return a copy of the imported ``graph`` with the rewrites above applied (see the module docstring)."""
    if any(arg.HasField("g") for op in graph.op for arg in op.arg):
        return graph
    out = type(graph)()
    out.CopyFrom(graph)
    rw = _Rewriter(out)
    _fold_constant_layouts(rw)
    _fold_channel_affines(rw)
    _batch_norms_as_affine_maps(rw)
    _positive_scales_into_convolutions(rw)
    channels_last_regions(rw, _ranks(rw)[1], lambda pool, relu: _relu_commutes(rw, pool, relu))
    _values_only_max_pools(rw)
    _gemm_weights_stored_transposed(rw)
    return out
