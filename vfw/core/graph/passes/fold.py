"""Constant folding (O1): evaluate once, at optimization time, what no run can change.

An op is folded when it is deterministic (not :func:`~vfw.core.graph.passes.cse.is_random`)
and every input it reads is an initializer (absent optional inputs are
fine; initializers that are also graph inputs are defaults a feed may
override, so they do not count).  ``Shape`` and ``Size`` only look at their
input's shape, which the trace knows: they fold whenever the input's
:class:`ValueInfo` has no unknown dim, which lets the shape arithmetic that
feeds ``Reshape``/``Expand`` fold too.  The op runs through
``make_op(type, attrs)`` with read-only inputs, as in the executor; its outputs
become initializers (their value infos set from the results) and the op is
removed.  Initializers nothing reads any more are left to :func:`prune`.

What is not folded:

* Ops with an output in ``keep`` or among the graph outputs.  A folded value
  is one constant array shared (read-only) by every run, whereas each run
  should return fresh arrays, as eager execution does.
* Results that would grow the graph: an op is folded only when its outputs
  take at most :data:`MAX_FOLDED_BYTES` bytes, or no more than the constants
  it reads.  A ``Neg`` or a narrowing ``Cast`` of a large weight folds (the
  weight usually becomes dead and is pruned); an ``Expand``, ``Tile``,
  ``ConstantOfShape`` or ``Range`` making a large tensor from small inputs
  stays an op and runs each time.  Sizes are checked on the value infos
  before running the op, then on the results.
* Results that are not C-contiguous (a ``Transpose`` view, an elementwise op
  on one): initializers are stored contiguous, and a reader seeing another
  memory layout (a reduction, a matmul) may accumulate in another order and
  round differently from the graph as traced.  Recomputing a view is cheap.
* Ops whose evaluation fails: they stay, so the error is raised when the
  graph runs, where it belongs.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.graph.executor import kernel_attrs
from vfw.core.graph.passes.cse import is_random
from vfw.core.ir import proto_to_tensor, tensor_to_proto
from vfw.core.proto import ValueInfo
from vfw.core.registry import make_op

MAX_FOLDED_BYTES = 1 << 20
"""Outputs larger than this (in bytes) are folded only if they are no larger than the op's constant inputs."""

SHAPE_OPS = frozenset({"Shape", "Size"})
"""Ops whose result depends on their input's shape only."""


def _proto_nbytes(proto):
    return len(proto.raw_data) + sum(len(s) for s in proto.string_data)


def _known_shape(info):
    if info is None or any(d < 0 for d in info.dims):
        return None
    return tuple(info.dims)


def _estimated_nbytes(opdef, infos):
    """Bytes of the op's named outputs from their value infos, or None when not all are known."""
    total = 0
    for name in opdef.output:
        if not name:
            continue
        info = infos.get(name)
        shape = _known_shape(info)
        if shape is None or not info.data_type:
            return None
        dtype = dt.as_dtype(info.data_type)
        if dtype.kind == "O":
            return None  # strings: size unknown until computed
        total += int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return total


class _Folder:
    """State of one folding sweep: the constants known so far and their arrays."""

    def __init__(self, graph, protected):
        self.graph = graph
        self.protected = protected
        overridable = set(graph.input)
        self.constants = {t.name: t for t in graph.initializer if t.name not in overridable}
        self.infos = {vi.name: vi for vi in graph.value_info}
        self._arrays = {}

    def array(self, name):
        value = self._arrays.get(name)
        if value is None:
            value = proto_to_tensor(self.constants[name])
            value.flags.writeable = False  # the executor shares constants between runs the same way
            self._arrays[name] = value
        return value

    def stand_in(self, name):
        """A zero-strided array of ``name``'s known shape and dtype (for Shape/Size), or None."""
        info = self.infos.get(name)
        shape = _known_shape(info)
        if shape is None or not info.data_type:
            return None
        return np.broadcast_to(np.zeros((), dt.as_dtype(info.data_type)), shape)

    def inputs_of(self, opdef):
        """The op's input arrays (None for absent ones), or None when one is not a known constant."""
        arrays = []
        for i, name in enumerate(opdef.input):
            if not name:
                arrays.append(None)
            elif name in self.constants:
                arrays.append(self.array(name))
            elif i == 0 and opdef.type in SHAPE_OPS:
                value = self.stand_in(name)
                if value is None:
                    return None
                arrays.append(value)
            else:
                return None
        return arrays

    def fold(self, opdef):
        """Evaluate ``opdef`` and record its outputs as constants; return whether it was folded."""
        if any(name in self.protected for name in opdef.output) or not any(opdef.output):
            return False
        arrays = self.inputs_of(opdef)
        if arrays is None or is_random(opdef, self.constants):
            return False
        limit = max(MAX_FOLDED_BYTES, sum(_proto_nbytes(self.constants[n]) for n in opdef.input if n in self.constants))
        estimate = _estimated_nbytes(opdef, self.infos)
        if estimate is not None and estimate > limit:
            return False
        try:
            op = make_op(opdef.type, kernel_attrs(opdef))
            results = op(*arrays)
        except (VfwError, ValueError, TypeError, MemoryError):
            return False
        results = results if isinstance(results, tuple) else (results,)
        named = [(name, results[i] if i < len(results) else None) for i, name in enumerate(opdef.output) if name]
        if any(not isinstance(value, np.ndarray) for _, value in named):
            return False  # absent outputs, and sequences or optionals (no initializer holds them)
        if sum(value.nbytes for _, value in named) > limit:
            return False
        if not all(value.flags.c_contiguous for _, value in named):
            return False
        try:
            protos = [tensor_to_proto(value, name) for name, value in named]
        except (VfwError, ValueError, TypeError):
            return False
        for proto, (name, value) in zip(protos, named):
            self.graph.initializer.append(proto)
            self.constants[name] = proto
            self._set_info(name, value)
        return True

    def _set_info(self, name, value):
        info = self.infos.get(name)
        if info is None:
            info = ValueInfo(name=name)
            self.graph.value_info.append(info)
            info = self.graph.value_info[-1]
            self.infos[name] = info
        info.data_type = dt.onnx_code(dt.as_dtype(value.dtype))
        del info.dims[:]
        info.dims.extend(value.shape)


def fold_constants(graph, keep):
    """Return a copy of ``graph`` with the ops that only read constants replaced by their results.

    Parameters
    ----------
    graph : GraphDef
        Ops in execution order (SSA).
    keep : list[str]
        Values that must stay computed by the graph each run (the graph outputs
        are kept too).

    Returns
    -------
    GraphDef
        Folded ops removed, their outputs added as initializers.  A single
        sweep in order folds whole chains of constant ops.
    """
    out = type(graph)()
    out.CopyFrom(graph)
    folder = _Folder(out, set(keep) | set(out.output))
    kept = [opdef for opdef in out.op if not folder.fold(opdef)]
    if len(kept) != len(out.op):
        kept = [_copy(opdef) for opdef in kept]  # they are elements of the field about to be cleared
        del out.op[:]
        out.op.extend(kept)
    return out


def _copy(message):
    out = type(message)()
    out.CopyFrom(message)
    return out
