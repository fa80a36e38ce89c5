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

Values are identified by the :class:`Tensor` object holding them and, as a
fallback, by the identity of its numpy array: autograd's gradient makers and
frontends re-wrap recorded arrays in new tensor objects (``node.output(i)``,
``detach``) or pass them bare, which must read the recorded value, not a
snapshot of it.  A numpy reshape of a recorded array passed to an op is
recorded as a ``Reshape``; any other numpy view of one is an error (it would
silently become a constant): compute it with engine ops.
"""

import threading

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import OpInputError
from vfw.core.ir import make_opdef, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo
from vfw.core.tensor import Tensor


class _ThreadState(threading.local):
    """Per-thread stack of open traces."""

    def __init__(self):
        self.stack = []


_local = _ThreadState()


def current_trace():
    """The innermost active :class:`Trace` of this thread, or ``None``."""
    stack = _local.stack
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
        self._arrays = {}  # id(ndarray) -> name of the value it holds
        self._owners = {}  # id(array owning memory) -> the recorded arrays in that memory
        self._layouts = {}  # (address, nbytes, dtype) of C-contiguous recorded arrays -> name
        self._alive = []  # keeps traced tensors and arrays alive so their ids stay unique
        self._used = set()
        self._count = 0

    def __enter__(self):
        _local.stack.append(self)
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        _active.remove(self)
        return False

    def _new_name(self, prefix):
        # Input names come from the caller (argument names): skip any generated name they took.
        while True:
            self._count += 1
            name = f"{prefix}{self._count}"
            if name not in self._used:
                self._used.add(name)
                return name

    def _bind(self, tensor, name, new=True):
        self._names[id(tensor)] = name
        self._bind_array(tensor.array, name)
        self._alive.append(tensor)
        if new:
            self._value_info(name, tensor.array)

    def _bind_array(self, array, name):
        self._arrays[id(array)] = name
        self._alive.append(array)
        owner = _owner(array)
        if owner is not None:
            self._owners.setdefault(id(owner), []).append(array)
            self._alive.append(owner)
            if array.flags.c_contiguous:
                self._layouts[(array.__array_interface__["data"][0], array.nbytes, array.dtype)] = name

    def _value_info(self, name, array):
        if array.dtype in dt.ALL or array.dtype == dt.string:
            self.graph.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(array.dtype),
                                                   dims=array.shape))

    def add_input(self, tensor, name=None):
        """Declare ``tensor`` (an argument of the traced function) a graph input; return its name.

        Parameters
        ----------
        tensor : Tensor
        name : str, optional
            The input's name (e.g. the argument's); must be new to this trace.
        """
        if name is None:
            name = self._new_name("input")
        elif name in self._used:
            raise OpInputError(f"trace {self.graph.name!r}: input name {name!r} is already used")
        self._used.add(name)
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
                name = self._arrays.get(id(value.array))
                if name is not None:  # a new wrapper around a recorded array
                    self._bind(value, name, new=False)
                    return name
                name = self._new_name("capture")
                self.captures[name] = value
                self._capture_ids[id(value)] = name
                self._bind(value, name)
            return name
        if isinstance(value, np.ndarray):
            name = self._arrays.get(id(value))
            if name is not None:  # the array of a traced value, passed bare (e.g. ``t.array``)
                return name
            if value.base is not None and any(np.may_share_memory(value, a)
                                              for a in self._owners.get(id(_owner(value)), ())):
                return self._view_of_value(value)
        array = np.asarray(value)
        name = self._new_name("const")
        self.graph.initializer.append(tensor_to_proto(array, name))
        self._value_info(name, array)
        return name

    def _view_of_value(self, view):
        """Name for a numpy view of a recorded array: a recorded Reshape of it, when it is one."""
        name = None
        if view.flags.c_contiguous:
            name = self._layouts.get((view.__array_interface__["data"][0], view.nbytes, view.dtype))
        if name is None:
            raise OpInputError(f"trace {self.graph.name!r}: an op input is a numpy view (slice, transpose, ...) "
                               "of a value computed or read in the traced function; it would be frozen into the "
                               "graph as a constant: compute it with engine ops (Slice, Transpose, ...) instead")
        shape = self.name_of(np.asarray(view.shape, np.int64))
        out = self._new_name("v")
        self.graph.op.append(make_opdef("Reshape", [name, shape], [out]))
        self._value_info(out, view)
        self._bind_array(view, out)
        return out

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
        """Record that ``target`` (a captured tensor) now holds ``value`` (Tensor or array).

        Returns
        -------
        str
            The name of the value written.

        Raises
        ------
        OpInputError
            When ``target`` was created inside the traced function (an argument
            or an op result): only captured state can be updated.
        """
        capture = self._capture_ids.get(id(target))
        if capture is None:
            name = self.name_of(target)
            capture = name if name in self.captures else None
        if capture is None:
            raise OpInputError("assign: under tracing, only tensors created outside the traced function "
                               "(variables, parameters, state) can be assigned; the target is an argument "
                               "of the function or a value computed in it")
        value_name = self.name_of(value)
        self.updates[capture] = value_name
        self._names[id(target)] = value_name  # later reads see the new value
        return value_name

    def rebind(self, tensor, name):
        """Note that ``tensor``'s (possibly new) array now holds value ``name`` (after an in-place write)."""
        self._names[id(tensor)] = name
        self._bind_array(tensor.array, name)
        self._alive.append(tensor)

    def set_outputs(self, tensors):
        """Declare the graph outputs; returns their names."""
        names = [self.name_of(t) for t in tensors]
        self.graph.output.extend(names)
        return names


def _owner(array):
    """The array owning ``array``'s memory (``None`` when another kind of object owns it)."""
    while array.base is not None:
        if not isinstance(array.base, np.ndarray):
            return None
        array = array.base
    return array


_active = []
"""Traces recording in any thread (checked by the executor's hot path: empty almost always)."""


def assign(target, value):
    """Write ``value`` into the state tensor ``target`` (a variable, a parameter, a running statistic).

    Eagerly, the array of ``target`` is overwritten in place when shapes agree
    (views of it see the change; the value is cast to ``target``'s dtype), else
    replaced by a copy of the value cast to that dtype.  Under tracing the
    write is also recorded as a state update of the graph, applied the same way
    after each run; reads of ``target`` later in the traced function see the
    new value.

    Parameters
    ----------
    target : Tensor
    value : Tensor or numpy.ndarray

    Returns
    -------
    Tensor
        ``target``.
    """
    array = value.array if isinstance(value, Tensor) else np.asarray(value)
    trace = current_trace()
    name = None
    if trace is not None:
        name = trace.record_update(target, value if isinstance(value, Tensor) else array)
    write(target, array)
    if trace is not None:
        trace.rebind(target, name)
    return target


def write(target, array):
    """Store ``array`` into ``target``: in place when the shape allows, else as a new array of ``target``'s dtype."""
    data = target.array
    if data.shape == array.shape and data.flags.writeable:
        np.copyto(data, array, casting="unsafe")
    else:
        target.array = np.array(array, dtype=data.dtype)
