"""Tracing: record the engine ops a Python function executes into a GraphDef.

Tracing is concrete: the function runs eagerly on real inputs while every op
that :func:`vfw.core.execute` runs is also written down as an
:class:`~vfw.core.proto.OpDef` (so shapes and dtypes are known, and backward
ops run by :func:`vfw.core.autograd.gradient` inside the function are
recorded like any other op).  Values are named in SSA form:

* graph inputs are the function's tensor arguments;
* tensors the function reads but did not create (weights, variables, state)
  are *captures*, read by reference each time the graph runs;
* numpy arrays passed to ops (axes, shapes, constants) become initializers;
* :func:`assign` writes a new value into a tensor; under tracing it becomes a
  *state update*, applied by the executor after each run.
"""

import threading

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import OpInputError
from vfw.core.ir import make_opdef, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo
from vfw.core.tensor import Tensor

_local = threading.local()


def current_trace():
    """The innermost active :class:`Trace` of this thread, or ``None``."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


class Trace:
    """A recording in progress: the GraphDef being built and how its names map to tensors.

    Parameters
    ----------
    name : str
        Name of the graph.

    Attributes
    ----------
    graph : GraphDef
        Ops, inputs, outputs, initializers and value infos recorded so far.
    captures : dict[str, Tensor]
        Tensors read by reference when the graph runs.
    updates : dict[str, str]
        Capture name -> name of the value :func:`assign` last wrote into it.
    """

    def __init__(self, name="traced"):
        self.graph = GraphDef(name=name)
        self.captures = {}
        self.updates = {}
        self._capture_ids = {}  # id(tensor) -> capture name
        self._names = {}  # id(tensor) -> current value name
        self._alive = []  # keeps traced tensors alive so their ids stay unique
        self._count = 0

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        _active.remove(self)
        return False

    def _new_name(self, prefix):
        self._count += 1
        return f"{prefix}{self._count}"

    def _bind(self, tensor, name):
        self._names[id(tensor)] = name
        self._alive.append(tensor)
        self._value_info(name, tensor.data)

    def _value_info(self, name, array):
        if array.dtype in dt.ALL or array.dtype == dt.string:
            self.graph.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(array.dtype),
                                                   dims=array.shape))

    def add_input(self, tensor, name=None):
        """Declare ``tensor`` (an argument of the traced function) a graph input; return its name."""
        name = name or self._new_name("input")
        self.graph.input.append(name)
        self._bind(tensor, name)
        return name

    def name_of(self, value):
        """The graph name standing for an op input (capturing or embedding it if new)."""
        if value is None:
            return ""
        if isinstance(value, Tensor):
            name = self._names.get(id(value))
            if name is None:
                name = self._new_name("capture")
                self.captures[name] = value
                self._capture_ids[id(value)] = name
                self._bind(value, name)
            return name
        array = np.asarray(value)
        name = self._new_name("const")
        self.graph.initializer.append(tensor_to_proto(array, name))
        self._value_info(name, array)
        return name

    def record(self, op, inputs, outputs):
        """Write down one executed op (called by the eager executor while tracing)."""
        in_names = [self.name_of(x) for x in inputs]
        outs = outputs if type(outputs) is tuple else (outputs,)
        out_names = []
        for out in outs:
            if out is None:
                out_names.append("")
                continue
            name = self._new_name("v")
            self._bind(out, name)
            out_names.append(name)
        while out_names and not out_names[-1]:
            out_names.pop()
        self.graph.op.append(make_opdef(op.schema.op_type, in_names, out_names,
                                        **{k: v for k, v in op.attrs.items() if v is not None}))

    def record_update(self, target, value):
        """Record that ``target`` (a captured tensor) now holds ``value``."""
        capture = self._capture_ids.get(id(target))
        if capture is None and id(target) not in self._names:
            capture = self.name_of(target)
        if capture is None:
            raise OpInputError("assign: under tracing, only tensors created outside the traced function "
                               "(variables, parameters, state) can be assigned")
        value_name = self.name_of(value)
        self.updates[capture] = value_name
        self._names[id(target)] = value_name  # later reads see the new value

    def set_outputs(self, tensors):
        """Declare the graph outputs; returns their names."""
        names = [self.name_of(t) for t in tensors]
        self.graph.output.extend(names)
        return names


_active = []
"""Traces recording in any thread (checked by the executor's hot path: empty almost always)."""


def assign(target, value):
    """Write ``value`` into the state tensor ``target`` (a variable, a parameter, a running statistic).

    Eagerly, the array of ``target`` is overwritten in place when shapes and
    dtypes agree (views of it see the change), else replaced.  Under tracing
    the write is also recorded as a state update of the graph.

    Parameters
    ----------
    target : Tensor
    value : Tensor or numpy.ndarray

    Returns
    -------
    Tensor
        ``target``.
    """
    array = value.data if isinstance(value, Tensor) else np.asarray(value)
    trace = current_trace()
    if trace is not None:
        trace.record_update(target, value if isinstance(value, Tensor) else Tensor(array))
    data = target.data
    if data.shape == array.shape and data.dtype == array.dtype and data.flags.writeable:
        np.copyto(data, array)
    else:
        target.data = np.array(array, dtype=data.dtype if data.dtype != array.dtype else None)
    return target
