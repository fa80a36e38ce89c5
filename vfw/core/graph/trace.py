"""Tracing: record the engine ops a Python function executes into a GraphDef.

Tracing is concrete: the function runs eagerly on real inputs while every op
that :func:`vfw.core.execute` runs is also written down as an
:class:`~vfw.core.proto.OpDef` (so shapes and dtypes are known, and backward
ops run by :func:`vfw.core.autograd.gradient` inside the function are
recorded like any other op).  Values are named in SSA form:

* graph inputs are the function's tensor arguments;
* tensors the function reads but did not create (weights, variables, state)
  are *captures*, read by reference each time the graph runs;
* numpy arrays passed to ops (axes, shapes, constants), and tensors a
  frontend made from new memory inside the function (:meth:`Trace.mark_fresh`:
  ``torch.zeros``...), become initializers;
* a write into a tensor's memory (:func:`assign`, or a frontend's in-place op
  announced with :meth:`Trace.record_write`) gives that memory a new value:
  later reads of the tensor, of views of it and of its base see it, and when
  the memory is an argument's or a capture's, the graph writes the final
  value back after each run (:attr:`Trace.input_updates`, :attr:`Trace.updates`).

A value is identified by the numpy array holding it: autograd's gradient
makers and frontends re-wrap recorded arrays in new tensor objects
(``node.output(i)``, ``detach``) or pass them bare, which must read the
recorded value, not a snapshot of it, and a tensor rebound to another array
(an in-place op that replaces its array) holds that array's value.  A numpy
view of a recorded array passed to an op is recorded as a ``Reshape`` or a
``Gather`` of a recorded value containing it; a view of memory no recorded
value contains is an error (it would silently become a constant).

What a graph cannot replay (a write into memory that was not announced, a
write through memory shared by an argument and another argument or capture)
is noted with :meth:`Trace.refuse`: the tracing run goes on eagerly, and
:class:`~vfw.core.graph.function.ConcreteFunction` then raises
:class:`~vfw.core.errors.TraceError`.
"""

import threading

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import InaccessibleValueError, OpInputError
from vfw.core.graph.aliasing import common_elements, owner, same_elements
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
    """A recording in progress: the GraphDef being built and how its names map to arrays.

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
    callbacks : list[callable]
        The Python functions of the recorded PyFunc ops (kept alive with the trace).
    unreplayable : str or None
        Why the graph would not replay the traced run (the first reason met), if so.
    updates : dict[str, str]
        Capture name -> name of the value written into it (to write after each run); set when the
        trace ends.
    input_updates : dict[str, str]
        Input name -> name of the value written into that argument (to write back after each run);
        set when the trace ends.
    max_opt_level : int
        The highest optimization level the graph may get (see :meth:`relax_shape`).
    defers_errors, deferred_errors : bool, list[tuple[str, Exception]]
        Whether the tracer checks :meth:`defer_error`'s errors (``(value name, error)``) once the graph is complete.
    """

    def __init__(self, name="traced"):
        self.graph = GraphDef(name=name)
        self.captures = {}
        self.callbacks = []
        self.unreplayable = None
        self.updates = {}
        self.input_updates = {}
        self.max_opt_level = 3
        self.defers_errors = False
        self.deferred_errors = []
        self._inputs = []  # (name, tensor, its array when it became an input)
        self._capture_arrays = {}  # capture name -> its array when captured
        self._arrays = {}  # id(ndarray) -> name of the value it holds
        self._owners = {}  # id(array owning memory) -> {id(array): recorded array in that memory}
        self._layouts = {}  # (address, nbytes, dtype) of C-contiguous recorded arrays -> name
        self._external = {}  # id(array of an argument or a capture) -> its input name
        self._written = set()  # ids of recorded arrays whose memory a write changed
        self._announced = set()  # ids of arrays whose write was recorded and not yet confirmed
        self._fresh = set()  # ids of arrays made inside the function: constants when first read
        self._alive = []  # keeps traced tensors and arrays alive so their ids stay unique
        self.inaccessible = {}  # id(array) -> (array, body name): values of control-flow bodies traced inside
        self._used = set()
        self._count = 0
        self._relaxed = set()  # names of values marked with relax_shape
        self._varying = set()  # names of values that may differ between runs (ops scanned so far)
        self._shape_varying = set()  # names of values whose shape may differ between runs (ops scanned so far)
        self._scanned = 0  # how many ops of the graph _scan has seen

    def __enter__(self):
        _local.stack.append(self)
        _active.append(self)
        return self

    def __exit__(self, exc_type, *exc):
        _local.stack.pop()
        _active.remove(self)
        if exc_type is None:
            self.updates = self._changed_values((name, t, self._capture_arrays[name])
                                                for name, t in self.captures.items())
            self.input_updates = self._changed_values(self._inputs)
        return False

    def _new_name(self, prefix):
        # Input names come from the caller (argument names): skip any generated name they took.
        while True:
            self._count += 1
            name = f"{prefix}{self._count}"
            if name not in self._used:
                self._used.add(name)
                return name

    def _bind_array(self, array, name):
        self._arrays[id(array)] = name
        self._alive.append(array)
        base = owner(array)
        if base is not None:
            self._owners.setdefault(id(base), {})[id(array)] = array
            self._alive.append(base)
            if array.flags.c_contiguous:
                self._layouts[(array.__array_interface__["data"][0], array.nbytes, array.dtype)] = name

    def _value_info(self, name, shape, dtype):
        if dtype in dt.FIXED_SIZE or dtype == dt.string:
            self.graph.value_info.append(ValueInfo(name=name, data_type=dt.onnx_code(dtype), dims=shape))

    def _new_value(self, array, prefix):
        name = self._new_name(prefix)
        self._bind_array(array, name)
        self._value_info(name, array.shape, array.dtype)
        return name

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
        self._bind_array(tensor.array, name)
        self._value_info(name, tensor.array.shape, tensor.array.dtype)
        self._external[id(tensor.array)] = name
        self._inputs.append((name, tensor, tensor.array))
        self._alive.append(tensor)
        return name

    def captured_from(self, array):
        """The outside tensor whose ``array`` the trace captured, or None."""
        return self.captures.get(self._arrays.get(id(array)))

    def name_of(self, value):
        """The graph name standing for an op input (capturing or embedding it if new)."""
        if value is None:
            return ""
        if isinstance(value, Tensor):
            array = value.array
            name = self._arrays.get(id(array))
            if name is not None:
                return name
            if id(array) in self._fresh:
                return self._fresh_constant(array)
            # A view of recorded memory is read from the value holding it (a tensor made by numpy code
            # from a traced value must not be frozen); other tensors are state from outside.
            name = self._view_of_value(array) if self._is_view_of_value(array) else None
            if name is not None:
                return name
            self._check_accessible(array)
            name = self._new_value(array, "capture")
            self.captures[name] = value
            self._capture_arrays[name] = array
            self._external[id(array)] = name
            self._alive.append(value)
            return name
        if isinstance(value, np.ndarray):
            name = self._arrays.get(id(value))
            if name is not None:  # the array of a traced value, passed bare (e.g. ``t.array``)
                return name
            if id(value) in self._fresh:
                return self._fresh_constant(value)
            if self._is_view_of_value(value):
                name = self._view_of_value(value)
                if name is None:
                    raise OpInputError(f"trace {self.graph.name!r}: an op input is a numpy view of memory that no "
                                       "value of the trace holds whole (or holds with another dtype); it would be "
                                       "frozen into the graph as a constant: compute it with engine ops (Slice, "
                                       "Transpose, ...) instead")
                return name
            # Not bound: a frontend may refill a scratch array between two ops.
            self._check_accessible(value)
            return self._constant(value)
        return self._constant(np.asarray(value))

    def _check_accessible(self, array):
        """Refuse a value (or a view of one) that a control-flow body traced inside this trace computed."""
        while array is not None:
            entry = self.inaccessible.get(id(array))
            if entry is not None and entry[0] is array:
                raise InaccessibleValueError(
                    f"trace {self.graph.name!r}: a tensor computed inside {entry[1]!r} (a loop body or a branch) is "
                    "out of scope and cannot be used here. Use return values, explicit Python locals or TensorFlow "
                    "collections to access it.")
            array = array.base if isinstance(array.base, np.ndarray) else None

    def _fresh_constant(self, array):
        """A constant for memory made inside the function, bound: a write into it later gives it a new value."""
        name = self._constant(array)
        self._bind_array(array, name)
        return name

    def _constant(self, array):
        name = self._new_name("const")
        self.graph.initializer.append(tensor_to_proto(array, name))
        self._value_info(name, array.shape, array.dtype)
        return name

    def _overlapping(self, array):
        """The recorded arrays that may share memory with ``array`` (bounds overlap)."""
        base = owner(array)
        group = self._owners.get(id(base), {}) if base is not None else {}
        return [a for a in group.values() if a is not array and np.may_share_memory(a, array)]

    def _is_view_of_value(self, array):
        return array.base is not None and bool(self._overlapping(array))

    def _view_of_value(self, view):
        """Name for a numpy view of recorded memory: a Reshape or a Gather of a recorded value containing it
        (``None`` when no recorded value of its dtype holds all its elements)."""
        name = None
        if view.flags.c_contiguous:
            name = self._layouts.get((view.__array_interface__["data"][0], view.nbytes, view.dtype))
        if name is not None:
            self._refuse_varying_shape(name)
            out = self._op("Reshape", [name, self._shape_constant(view.shape)], view.shape, view.dtype)
            self._bind_array(view, out)
            return out
        for whole in self._overlapping(view):
            if whole.dtype != view.dtype:
                continue
            mine, theirs = common_elements(view, whole)
            if mine.size == view.size:
                self._refuse_varying_shape(self._arrays[id(whole)])
                out = self._gathered(self._arrays[id(whole)], theirs, view.shape, view.dtype, whole.size)
                self._bind_array(view, out)
                return out
        return None

    def _refuse_varying_shape(self, name):
        """Refuse a numpy view of the value ``name`` when its shape varies between runs: the Reshape or Gather
        standing for the view would keep the positions of this run."""
        self._scan()
        if name in self._shape_varying:
            self.refuse("a numpy view was taken of a value whose shape varies from run to run (a frontend "
                        "computed in numpy what engine ops must compute)")

    # -- recording ops ------------------------------------------------------------------------------
    def record(self, op, inputs, outputs):
        """Write down one executed op (called by the eager executor while tracing)."""
        in_names = [self.name_of(x) for x in inputs]
        outs = outputs if type(outputs) is tuple else (outputs,)
        out_names = []
        for out in outs:
            if out is None:
                out_names.append("")
                continue
            out_names.append(self._new_value(out.array, "v"))
        while out_names and not out_names[-1]:
            out_names.pop()
        self.graph.op.append(make_opdef(op.schema.op_type, in_names, out_names,
                                        **{k: v for k, v in op.attrs.items() if v is not None}))

    def _op(self, op_type, inputs, shape, dtype, **attrs):
        """Append an op the trace itself derives (no eager array holds its value yet); returns its output name."""
        name = self._new_name("v")
        self.graph.op.append(make_opdef(op_type, inputs, [name], **attrs))
        self._value_info(name, shape, dtype)
        return name

    def _shape_constant(self, shape):
        return self._constant(np.asarray(shape, np.int64))

    def _flat(self, name, size, dtype):
        return self._op("Reshape", [name, self._shape_constant((-1,))], (size,), dtype)

    def _gathered(self, name, positions, shape, dtype, source_size):
        """The elements at flat ``positions`` of value ``name`` (of ``source_size`` elements), shaped ``shape``."""
        size = int(np.prod(shape, dtype=np.int64))
        flat = self._flat(name, source_size, dtype)
        picked = self._op("Gather", [flat, self._constant(positions)], (size,), dtype, axis=0)
        return self._op("Reshape", [picked, self._shape_constant(shape)], shape, dtype)

    def callback(self, fn):
        """The token of a PyFunc op calling ``fn`` (kept alive as long as this trace and its graphs)."""
        from vfw.core.ops.callback import register_callback  # the ops import the eager executor, which imports this

        self.callbacks.append(fn)
        return register_callback(fn)

    # -- in-place writes ----------------------------------------------------------------------------
    def mark_fresh(self, tensor):
        """Note that ``tensor`` was just made from new memory inside the traced function (``torch.zeros``...).

        When first read it becomes a constant of the graph (its value then), not a capture: every
        run starts from that value, as every eager call makes the tensor anew.
        """
        self._fresh.add(id(tensor.array))
        self._alive.append(tensor.array)

    def record_write(self, target, value):
        """Record that ``target``'s memory is about to hold ``value`` (broadcast to its shape, cast to its dtype).

        Call it before writing: a tensor never read so far is captured (or embedded, if
        fresh) with its value before the write.  Every recorded array sharing the written
        memory (the target's base, its other views, detached aliases) takes the new value
        of its elements.  The write is *announced*: :meth:`confirm_write` then accepts it.

        Parameters
        ----------
        target : Tensor
        value : Tensor or numpy.ndarray
        """
        written = target.array
        self.name_of(target)
        self._announced.add(id(written))
        if not written.size:
            return
        value_name = self._converted(value, written.shape, written.dtype)
        others = self._overlapping(written)
        self._check_shared_arguments(written, others)
        self._written.add(id(written))
        self._bind_array(written, value_name)
        for other in others:
            self._patch(other, written, value_name)

    def confirm_write(self, target, who="code"):
        """A frontend wrote into ``target``'s memory: accept it if announced, else refuse the trace.

        ``who`` names the writer in the refusal (``"vfw.torch code computing in numpy"``).
        """
        array = target.array
        if id(array) in self._announced:
            self._announced.discard(id(array))
        elif array.size:
            self.refuse(f"{who} wrote into a tensor ({dt.type_name(array.dtype)}{list(array.shape)}) without "
                        "telling the trace the value written")

    def bind_copy(self, array, value):
        """Note that ``array`` is new memory holding ``value`` (a tensor or array), cast to ``array``'s dtype.

        Like a write, it is announced to :meth:`confirm_write` (a tensor given a new array is changed in place).
        """
        self._bind_array(array, self._converted(value, array.shape, array.dtype))
        self._announced.add(id(array))

    def defer_error(self, value, error):
        """Note that the op of ``value`` (a stand-in) failed with ``error`` on the traced values: raised if the
        complete graph needs ``value`` (pruning keeps it), else forgotten, as TF prunes unused ops."""
        self.deferred_errors.append((self.name_of(value), error))

    def refuse(self, reason):
        """Note that the graph cannot replay the traced run (the first reason is kept)."""
        if self.unreplayable is None:
            self.unreplayable = reason

    def _converted(self, value, shape, dtype):
        """Name of ``value`` cast to ``dtype`` and broadcast to ``shape`` (recording Cast/Expand as needed)."""
        name = self.name_of(value)
        array = value.array if isinstance(value, Tensor) else np.asarray(value)
        if array.dtype != dtype:
            name = self._op("Cast", [name], array.shape, dtype, to=dt.onnx_code(dtype))
        if array.shape != shape:
            name = self._op("Expand", [name, self._shape_constant(shape)], shape, dtype)
        return name

    def _patch(self, other, written, value_name):
        """Give the recorded array ``other`` the new value of its elements that ``written`` overwrote."""
        if same_elements(other, written):  # the same memory in the same order (a reshaped view)
            if other.shape != written.shape:
                value_name = self._op("Reshape", [value_name, self._shape_constant(other.shape)], other.shape,
                                      other.dtype)
            self._written.add(id(other))
            self._bind_array(other, value_name)
            return
        if other.dtype != written.dtype:
            if np.shares_memory(other, written):
                self.refuse(f"an in-place write changed memory that is also viewed with another dtype "
                            f"({dt.type_name(other.dtype)} and {dt.type_name(written.dtype)})")
            return
        mine, theirs = common_elements(other, written)
        if not mine.size:
            return
        if mine.size == other.size:
            new = self._gathered(value_name, theirs, other.shape, other.dtype, written.size)
        else:
            flat = self._flat(self._arrays[id(other)], other.size, other.dtype)
            values = self._op("Gather", [self._flat(value_name, written.size, written.dtype), self._constant(theirs)],
                              (mine.size,), other.dtype, axis=0)
            scattered = self._op("ScatterND", [flat, self._constant(mine.reshape(-1, 1)), values], (other.size,),
                                 other.dtype)
            new = self._op("Reshape", [scattered, self._shape_constant(other.shape)], other.shape, other.dtype)
        self._written.add(id(other))
        self._bind_array(other, new)

    def _check_shared_arguments(self, written, others):
        """Refuse writes into memory that an argument shares with another argument or a capture.

        Which arguments share memory is not part of the signature, so the graph would replay
        the write as if they did not.
        """
        names = {self._external[id(a)] for a in [written] + others if id(a) in self._external
                 and (a is written or np.shares_memory(a, written))}
        inputs = {name for name, _, _ in self._inputs}
        if len(names) > 1 and names & inputs:
            self.refuse(f"an in-place write changed memory shared by {', '.join(sorted(names))} (an argument and "
                        "another argument or captured tensor that are views of one memory); pass tensors that do "
                        "not share memory (clone() one)")

    # -- what changes from run to run ---------------------------------------------------------------
    def varies(self, tensor):
        """Whether the value of ``tensor`` may differ from one run of the graph to the next.

        True for the arguments, the captures (read by reference) and what is computed from them,
        from a value whose shape varies or by a random or PyFunc op, and for a tensor this trace
        has not met (it would be captured); False for constants, memory made inside the function
        (:meth:`mark_fresh`) and what only they feed.  A frontend may read a value in Python (a
        shape, an axis) and bake it into the graph only when it does not vary.
        """
        array = tensor.array
        name = self._arrays.get(id(array))
        if name is None:
            if id(array) in self._fresh:
                return False
            name = self._view_of_value(array) if self._is_view_of_value(array) else None
            if name is None:
                return True
        self._scan()
        return name in self._varying or name in self.captures or name in self.graph.input

    def shape_varies(self, tensor):
        """Whether the shape of ``tensor`` may differ from one run to the next: it was marked with
        :meth:`relax_shape`, or an op computed it from such a value, or from values that vary which
        decide its result's shape (a ``Reshape`` to a computed shape, ``NonZero``)."""
        name = self._arrays.get(id(tensor.array))
        if name is None:
            return False  # a constant, or a capture (whose shape is part of the signature)
        self._scan()
        return name in self._shape_varying

    def _scan(self):
        """Extend :attr:`_varying` and :attr:`_shape_varying` over the ops recorded since the last scan."""
        from vfw.core.graph.passes.cse import is_random  # the passes import the op registry, which imports this

        ops = self.graph.op
        if self._scanned == 0:  # also before the first op: a relaxed input varies from the start
            self._varying = set()
            self._shape_varying = set(self._relaxed)
        if self._scanned == len(ops):
            return
        varying, shaped, relaxed = self._varying, self._shape_varying, self._relaxed
        external = set(self.graph.input) | set(self.captures)
        for k in range(self._scanned, len(ops)):
            opdef = ops[k]
            names = opdef.input
            shape = any(n in shaped for n in names)
            if opdef.type in _SHAPE_READERS:  # a value of fixed shape, varying with its input's shape only
                if shape:
                    varying.update(opdef.output)
                continue
            values = [i for i, n in enumerate(names) if n in varying or n in external]
            if values and not shape:
                shape = _shapes_follow_values(opdef.type, values)
            if shape or values or is_random(opdef):
                varying.update(opdef.output)
            if shape:
                shaped.update(opdef.output)
            shaped.update(n for n in opdef.output if n in relaxed)
        self._scanned = len(ops)

    # -- results ------------------------------------------------------------------------------------
    def relax_shape(self, tensor, dims, fixed_results=False):
        """Note that the value ``tensor`` holds may have another shape in later runs (a loop's output).

        ``dims`` (None where a dim may change, or None for an unknown rank) replaces its value
        info, so that no pass folds its shape.  The ops computed from it were recorded with this
        run's shapes, so the graph then runs as traced (optimization level 0, which assumes no
        shape), unless ``fixed_results`` says that the ops reading it give results of fixed
        shapes (a loop's stacked history, read by ``Shape`` and by the reverse loop).
        """
        name = self._arrays.get(id(tensor.array))
        if name not in self._relaxed:
            self._relaxed.add(name)
            self._scanned = 0  # ops already scanned may read it: scan again
        for vi in self.graph.value_info:
            if vi.name == name:
                known = list(vi.dims)
                del vi.dims[:]
                vi.dims.extend([-1] * len(known) if dims is None else [-1 if d is None else d for d in dims])
        if not fixed_results:
            self.max_opt_level = 0

    def forget_varying_shapes(self):
        """Give every value whose shape may change between runs (:meth:`shape_varies`) unknown dims in its value
        info, so that no pass folds the traced shape into a later run (``Shape`` of a value computed from a
        relaxed one, in a loop body optimized on its own)."""
        self._scan()
        for vi in self.graph.value_info:
            if vi.name in self._shape_varying:
                rank = len(vi.dims)
                del vi.dims[:]
                vi.dims.extend([-1] * rank)

    def rebind(self, tensor, name):
        """Note that ``tensor``'s (possibly new) array now holds value ``name`` (after an in-place change)."""
        self._bind_array(tensor.array, name)

    def set_outputs(self, tensors):
        """Declare the graph outputs; returns their names."""
        names = [self.name_of(t) for t in tensors]
        self.graph.output.extend(names)
        return names

    def _changed_values(self, states):
        """``{name: value}`` for the ``(name, tensor, first array)`` whose value a write or a rebinding changed."""
        changed = {}
        for name, tensor, first in states:
            array = tensor.array
            if array is first:
                if id(array) in self._written:
                    changed[name] = self._arrays[id(array)]
                continue
            value = self._arrays.get(id(array))
            if value is None:
                self.refuse(f"{name!r} was given a new array computed outside engine ops")
            else:
                changed[name] = value
        return changed


_active = []
"""Traces recording in any thread (checked by the executor's hot path: empty almost always)."""

_DATA_SHAPED = frozenset({"NonZero", "Unique", "Compress", "StringSplit", "NonMaxSuppression"})
"""Op types whose results' shapes depend on the values of their data inputs."""

_SHAPE_READERS = frozenset({"Shape", "Size"})
"""Op types that read only their input's shape (fixed for an argument: shapes are part of the signature)."""


def _shapes_follow_values(op_type, positions):
    """Whether an op of ``op_type`` whose inputs at ``positions`` vary gives results of varying shapes."""
    if op_type in _DATA_SHAPED:
        return True
    from vfw.core.registry import get_schema  # the op registry imports the eager executor, which imports this

    try:
        schema = get_schema(op_type)
    except LookupError:  # nothing known of it
        return True
    return any(schema.input_slot(i).name in schema.value_inputs for i in positions)
