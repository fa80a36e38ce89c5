"""Static shapes of traced values: what a graph knows of a value's shape whatever the run.

A :class:`~vfw.core.graph.trace.Trace` records concrete runs, so every traced array has the
shape of the tracing run.  Most shapes are the same on every run (the arguments' shapes are part
of the signature), but a value whose shape follows run-time values (``Trace.shape_varies``: a
``NonZero``, a ``Reshape`` to a computed shape, a result marked with ``relax_shape``) may have
another shape on a later run.  Its *static* shape, as TensorFlow shows inside ``tf.function``,
keeps the dims that are known whatever the run and has ``None`` for the others.

The dims are inferred forward over the recorded ops with each op's shape inference
(:meth:`~vfw.core.registry.OpSchema.infer`), fed with the static shapes of its inputs and the
values of the small integer vectors (shapes, sizes) the graph computes from constants and
static dims: ``Concat([Reshape(n), [3]])`` is ``[None, 3]``, so ``Expand`` to it gives
``(None, 3)``.  Where inference knows nothing the dim is ``None`` (the rank is that of the
tracing run).  A frontend may refine a static shape (``Tensor.set_shape``).

A frontend may also *declare* the static shape of a graph input (:func:`declare`: ``None`` dims from a
``tf.function`` input signature, or an unknown rank).  Declared shapes change nothing the graph computes
(the input still has the traced shape in every run of this graph): :func:`declared_shape` infers the
same way over the ops, from the declared dims, what a frontend shows as the static shape (TF's
``x.shape`` inside the function); :func:`static_shape`, which the engine's own decisions read, ignores them.

Frontends read static shapes only while tracing; eager code never comes here.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.ir import opdef_attrs, proto_to_tensor
from vfw.core.registry import TensorInfo, get_schema
from vfw.core.tensor import Tensor

_MAX_VECTOR = 64
"""Longest integer vector whose entries are followed (shape-like values are short)."""

_SAME_VALUES = frozenset({"Identity", "Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten"})
"""Op types whose first output holds the (flattened) values of their first input."""


def static_shape(trace, tensor):
    """The shape of ``tensor`` known whatever the run of the graph ``trace`` records: a tuple of ints, ``None``
    where a dim may change (the traced shape for a value whose shape does not vary)."""
    name = trace._arrays.get(id(tensor.array))
    if name is None or not trace.shape_varies(tensor):
        return tuple(tensor.array.shape)
    dims = _state(trace).shape(name)
    return tuple(dims) if dims is not None and len(dims) == tensor.array.ndim else (None,) * tensor.array.ndim


def declare(trace, tensor, dims):
    """Declare the static shape of ``tensor``, an input of the graph ``trace`` records: ``dims`` (ints, None for
    a dim any call may change), or None for an unknown rank.  Only :func:`declared_shape` reads it."""
    name = trace._arrays.get(id(tensor.array))
    if name is None:
        return
    state = getattr(trace, "_declared_shapes", None)
    if state is None:
        state = trace._declared_shapes = _StaticShapes(trace, declared={})
    state.declared[name] = None if dims is None else tuple(dims)
    state._reset()


def declared_shape(trace, tensor):
    """:func:`static_shape` of ``tensor`` following also the shapes :func:`declare` gave the graph's inputs: a
    tuple (None for unknown dims), or None for an unknown rank."""
    name = trace._arrays.get(id(tensor.array))
    state = getattr(trace, "_declared_shapes", None)
    if name is None or state is None:
        return static_shape(trace, tensor)
    state = state.current()
    if name not in state.loose:
        return static_shape(trace, tensor)
    info = state._info(name)
    if info is None:
        return static_shape(trace, tensor)
    return None if info.shape is None else tuple(info.shape)


def refine(trace, tensor, dims):
    """Note that the dims of ``tensor`` that ``dims`` knows (ints; None elsewhere) are those (``set_shape``)."""
    name = trace._arrays.get(id(tensor.array))
    if name is None:
        return
    states = [_state(trace)] if trace.shape_varies(tensor) else []
    declared = getattr(trace, "_declared_shapes", None)
    if declared is not None and name in declared.current().loose:
        states.append(declared)
    for state in states:
        now = state.shape(name) or (None,) * len(dims)
        state.refined[name] = tuple(d if d is not None else k for d, k in zip(now, dims))
        state.infos.pop(name, None)


def _state(trace):
    state = getattr(trace, "_static_shapes", None)
    if state is None:
        state = trace._static_shapes = _StaticShapes(trace)
    return state.current()


class _StaticShapes:
    """Static shapes and short integer values inferred over a trace's ops so far (one per trace, and one more
    following the inputs' declared shapes: ``declared``, name -> dims or None for an unknown rank)."""

    def __init__(self, trace, declared=None):
        self.trace = trace
        self.declared = declared
        self.refined = {}  # name -> dims a frontend asserted (set_shape)
        self._reset()

    def _reset(self):
        self.loose = set(self.declared or ())  # names whose static shape follows a declared one
        self.infos = {}  # name of a value whose shape varies -> TensorInfo with its static shape
        self.vectors = {}  # name -> flat tuple of its values (ints, None where unknown)
        self._value_infos = {}
        self._initializers = {}
        self._indexed = (0, 0)  # value infos and initializers indexed
        self._done = 0  # ops inferred
        self._relaxed = len(self.trace._relaxed)

    def current(self):
        if len(self.trace._relaxed) != self._relaxed:  # a value was marked since: what follows it may change
            self._reset()
        graph = self.trace.graph
        count_vi, count_init = self._indexed
        for vi in graph.value_info[count_vi:]:
            self._value_infos.setdefault(vi.name, vi)
        for proto in graph.initializer[count_init:]:
            self._initializers[proto.name] = proto
        self._indexed = (len(graph.value_info), len(graph.initializer))
        self.trace._scan()
        ops = graph.op
        for opdef in ops[self._done:]:
            self._infer(opdef)
        self._done = len(ops)
        return self

    def shape(self, name):
        info = self._info(name)
        return None if info is None else info.shape

    # -- what is known of one value ------------------------------------------------------------------
    def _info(self, name):
        info = self.infos.get(name)
        if info is not None:
            return info
        vi = self._value_infos.get(name)
        if vi is None:
            return None
        dtype = dt.as_dtype(vi.data_type)
        if self.declared and name in self.declared:
            dims = self.declared[name]
            if dims is None:  # an unknown rank, unless set_shape gave one
                dims = self.refined.get(name)
            return TensorInfo(None if dims is None else self._asserted(name, list(dims)), dtype)
        if name not in self.trace._shape_varying and name not in self.loose:
            return TensorInfo(tuple(vi.dims), dtype, self._known_value(name, dtype))
        return TensorInfo(self._asserted(name, [None if d < 0 else d for d in vi.dims]), dtype)

    def _asserted(self, name, dims):
        """``dims`` with the dims marked when the value was relaxed, or asserted with ``set_shape``, filled in."""
        relaxed = self._value_infos.get(name)
        if name in self.trace._relaxed and relaxed is not None:
            dims = [m if m is not None else (None if r < 0 else r) for m, r in zip(dims, relaxed.dims)]
        refined = self.refined.get(name)
        if refined is not None and len(refined) == len(dims):
            dims = [m if m is not None else r for m, r in zip(dims, refined)]
        return tuple(dims)

    def _known_value(self, name, dtype):
        """The value of ``name`` as an array when every entry is known (short integer vectors only)."""
        vector = self._vector(name)
        if vector is None or None in vector or dtype.kind not in "iu":
            return None
        return np.array(vector, dtype)

    def _vector(self, name):
        """The flat values of ``name`` (ints, None where unknown) when it is a short integer value, else None."""
        vector = self.vectors.get(name)
        if vector is not None:
            return vector
        proto = self._initializers.get(name)
        if proto is not None and dt.as_dtype(proto.data_type).kind in "iu" and int(np.prod(proto.dims)) <= _MAX_VECTOR:
            vector = self.vectors[name] = tuple(int(v) for v in proto_to_tensor(proto).reshape(-1))
            return vector
        vi = self._value_infos.get(name)
        if vi is None or name in self.trace._shape_varying or name in self.loose or len(vi.dims) > 1:
            return None
        size = int(np.prod(vi.dims))
        return (None,) * size if size <= _MAX_VECTOR and dt.as_dtype(vi.data_type).kind in "iu" else None

    # -- inference over one op -----------------------------------------------------------------------
    def _infer(self, opdef):
        varying = self.trace._shape_varying
        if self.loose and any(n in self.loose for n in opdef.input):
            self.loose.update(n for n in opdef.output if n)
        outputs = [n for n in opdef.output if n in varying or n in self.loose]
        if outputs:
            inferred = self._inferred(opdef)
            for k, name in enumerate(opdef.output):
                if name in outputs:
                    vi = self._value_infos.get(name)
                    if vi is None:
                        continue
                    got = inferred[k] if inferred is not None and k < len(inferred) else None
                    if got is not None and got.shape is not None and len(got.shape) == len(vi.dims):
                        dims = list(got.shape)
                    elif name in varying:
                        dims = [None] * len(vi.dims)
                    else:
                        dims = self._uninferred(opdef, vi)
                        if dims is None:  # an input of unknown rank: so is the result
                            self.infos[name] = TensorInfo(None, dt.as_dtype(vi.data_type))
                            continue
                    self.infos[name] = TensorInfo(self._asserted(name, dims), dt.as_dtype(vi.data_type))
        if opdef.output and opdef.output[0]:
            vector = self._vector_of(opdef)
            if vector is not None:
                self.vectors[opdef.output[0]] = vector

    def _uninferred(self, opdef, vi):
        """Dims of an output (value info ``vi``) of ``opdef`` whose shape inference knows nothing from the declared
        shapes: the traced dims, None where the size is that of an input's declared-unknown dim (the dims the inputs
        fix keep their size); None when an input has an unknown rank."""
        free = set()
        for n in opdef.input:
            info = self._info(n) if n else None
            if info is None:
                continue
            if info.shape is None:
                return None
            traced = self._value_infos.get(n)
            if traced is not None and len(traced.dims) == len(info.shape):
                free.update(t for s, t in zip(info.shape, traced.dims) if s is None)
        return [None if d in free or d < 0 else d for d in vi.dims]

    def _inferred(self, opdef):
        """The output infos that ``opdef``'s shape inference gives from its inputs' static infos (None if none)."""
        infos = [self._info(n) if n else None for n in opdef.input]
        if any(n and i is None for n, i in zip(opdef.input, infos)):
            return None
        if opdef.type == "ConstantOfShape":  # its input is the shape
            dims = self._vector(opdef.input[0])
            return None if dims is None else [TensorInfo(dims, None)]
        special = _SHAPE_VECTOR_RULES.get(opdef.type)
        if special is not None and len(infos) > 1:
            dims = special(infos[0].shape, self._vector(opdef.input[1]), opdef_attrs(opdef))
            if dims is not None:
                return [TensorInfo(dims, None)]
        try:
            schema = get_schema(opdef.type)
            if schema.infer_fn is None:  # (inference would run the kernel: a PyFunc's callback, a random draw)
                return None
            return schema.infer(schema.bind_attrs(opdef_attrs(opdef)), infos)
        except Exception:  # noqa: BLE001  (an op whose inference needs more than static shapes: nothing known)
            return None

    def _vector_of(self, opdef):
        """The flat values of ``opdef``'s first output when it is a short integer vector the rules follow."""
        kind = opdef.type
        inputs = opdef.input
        if kind in _SAME_VALUES and inputs:
            return self._vector(inputs[0])
        if kind == "Shape" and inputs:
            info = self._info(inputs[0])
            if info is None or info.shape is None:
                return None
            attrs = opdef_attrs(opdef)
            return tuple(info.shape[attrs.get("start", 0):attrs.get("end", None)])
        if kind == "Concat" and opdef_attrs(opdef).get("axis") in (0, -1):
            parts = [self._vector(n) for n in inputs]
            return None if any(p is None for p in parts) else tuple(v for p in parts for v in p)
        if kind == "Gather" and len(inputs) == 2 and not opdef_attrs(opdef).get("axis", 0):
            data, indices = self._vector(inputs[0]), self._vector(inputs[1])
            if data is None or indices is None or None in indices or not all(-len(data) <= i < len(data)
                                                                              for i in indices):
                return None
            return tuple(data[i] for i in indices)
        return None


def _expanded(source, target, attrs):
    """Static dims of ``Expand(x of dims source, target)``."""
    if source is None or target is None:
        return None
    rank = max(len(source), len(target))
    source = (1,) * (rank - len(source)) + tuple(source)
    target = (1,) * (rank - len(target)) + tuple(target)
    dims = []
    for s, t in zip(source, target):
        if t is None:
            dims.append(s if s is not None and s != 1 else None)
        else:
            dims.append(s if t == 1 else t)
    return tuple(dims)


def _reshaped(source, target, attrs):
    """Static dims of ``Reshape(x of dims source, target)``."""
    if target is None:
        return None
    dims = [source[k] if v == 0 and not attrs.get("allowzero") and source is not None and k < len(source) else v
            for k, v in enumerate(target)]
    if -1 in dims:
        known = [d for d in dims if d != -1]
        total = None if source is None or None in source else int(np.prod(source))
        rest = None if total is None or None in known else total // max(int(np.prod(known)), 1)
        dims = [rest if d == -1 else d for d in dims]
    return tuple(dims)


def _tiled(source, target, attrs):
    """Static dims of ``Tile(x of dims source, repeats target)``."""
    if source is None or target is None or len(source) != len(target):
        return None
    return tuple(None if s is None or r is None else s * r for s, r in zip(source, target))


_SHAPE_VECTOR_RULES = {"Expand": _expanded, "Reshape": _reshaped, "Tile": _tiled}
"""Op types whose second input is a shape-like vector: static dims from its partly known values."""


# -- gradients of values whose shapes vary -----------------------------------------------------------
def gradient_made(trace, node, make):
    """``make()`` (the gradient maker of ``node``, called while ``trace`` records), guarded when shapes vary.

    Gradient makers build the backward ops from the traced shapes (a ``Split`` into the traced sizes,
    a ``ScatterND`` into zeros of the traced shape...), which a graph run with other shapes would keep.
    When an input or output of ``node`` has a shape that varies, the maker is trusted only where it is
    known to follow each run's shapes (:data:`SHAPES_FOLLOWED`, elementwise ops, broadcasting ops whose
    varying operands are not broadcast); otherwise every run checks that those shapes are the traced
    ones: an error when they are not, never a gradient silently computed for the traced shapes.
    """
    arrays = [x.array for x in node.inputs if isinstance(x, Tensor)] + [a for a in node._outputs if a is not None]
    varying = [a for a in arrays if _shape_varies(trace, a)]
    result = make()
    if varying and not _follows_shapes(trace, node, varying):
        _pin_shapes(trace, varying, node.op.schema.op_type)
    return result


SHAPES_FOLLOWED = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                   "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "Reshape", "Squeeze", "Unsqueeze", "Flatten",
                   "Concat", "Split", "Transpose", "Identity", "Cast", "Expand", "Slice", "Pad", "Gather", "Tile",
                   "Softmax", "LogSoftmax"}
"""Op types whose gradient makers compute the shapes they need with the graph when they vary."""

_CLASS_AXIS_LOSSES = frozenset({"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"})
"""Op types whose gradient makers read only the class dim (axis 1) of their scores and the ranks."""


def _shape_varies(trace, array):
    name = trace._arrays.get(id(array))
    if name is None:
        return False
    trace._scan()
    return name in trace._shape_varying


def _follows_shapes(trace, node, varying):
    """Whether the gradient maker of ``node`` gives each run's gradients whatever the varying shapes."""
    from vfw.core.ops._common import broadcast_infer, same_as_first  # the ops import the executor, which imports this

    schema = node.op.schema
    if schema.op_type in SHAPES_FOLLOWED:
        return True
    others = {id(x.array) for x in node.inputs[1:] if isinstance(x, Tensor)}
    if schema.infer_fn is same_as_first and not any(id(a) in others for a in varying):  # elementwise in the first
        return True
    if schema.op_type == "MatMul":  # matrices: the maker's reshapes are no-ops, its Gemms follow any size
        return all(isinstance(x, Tensor) and x.array.ndim == 2 for x in node.inputs)
    if schema.op_type in _CLASS_AXIS_LOSSES:  # the class count is the one size their makers keep
        return static_shape(trace, node.inputs[0])[1:2] == node.inputs[0].array.shape[1:2]
    if schema.infer_fn is broadcast_infer or schema.op_type == "Where":
        # The gradient of an operand sums over the dims broadcasting stretched: known where its static dim is 1
        # (or missing); a dim that varies must be the result's dim, and not 1 (which would be broadcast or not).
        shape = node._outputs[0].shape
        ids = {id(a) for a in varying}
        for x in node.inputs:
            if isinstance(x, Tensor) and id(x.array) in ids:
                static = static_shape(trace, x)
                traced = x.array.shape
                lead = len(shape) - len(traced)
                if any(s is None and (d == 1 or d != shape[lead + k]) for k, (s, d) in enumerate(zip(static, traced))):
                    return False
        return True
    return False


def _pin_shapes(trace, arrays, op_type):
    """Make every run of ``trace``'s graph check that ``arrays`` (recorded values) have their traced shapes."""
    from vfw.core.eager import execute  # the executor imports the trace
    from vfw.core.errors import ShapeError
    from vfw.core.registry import make_op

    pinned = trace.__dict__.setdefault("_gradient_pinned", set())
    arrays = [a for a in arrays if trace._arrays[id(a)] not in pinned]
    if not arrays:
        return
    pinned.update(trace._arrays[id(a)] for a in arrays)
    traced = [a.shape for a in arrays]

    def same_shapes(*values):
        for value, shape in zip(values, traced):
            if value.shape != shape:
                raise ShapeError(f"the gradient of {op_type} was traced for shape {list(shape)} and this run has "
                                 f"shape {list(value.shape)}: vfw computes this gradient for the traced shapes of "
                                 "values whose shapes follow the arguments' values; trace the function again for "
                                 "these shapes (e.g. pass them as Python values)")
        return np.zeros(0, np.bool_)  # (a PyFunc gives an output; nothing reads it)

    execute(make_op("PyFunc", {"token": trace.callback(same_shapes)}), *arrays)
