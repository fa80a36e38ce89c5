"""How torch functions reach engine ops: argument conversion, promotion, errors, in-place and ``out=``.

Every torch function is a few lines over these helpers: ``call`` runs an engine op on
torch tensors (translating engine errors into the exceptions torch raises),
``promoted`` applies torch's type promotion to tensors and Python numbers, and
``finish`` writes a result into ``out=`` or into ``self`` for in-place variants.

Graph traces (``vfw.core.graph``): every write into a tensor's memory goes through
``assign`` or ``finish``, which tell an open trace the value written (``Trace.record_write``)
so that a graph replays it; ``bump_version``, which every in-place write calls, makes the
trace refuse a write it was not told of (numpy code writing in place).  ``new_tensor``
makes factory-made tensors constants of a trace, not captured state; ``_traced`` has the
other helpers frontend code needs under traces.
"""

import functools
import weakref

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.eager import execute
from vfw.core.errors import IndexOutOfRangeError, ShapeError, VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.registry import make_op
from vfw.core.tensor import Tensor as CoreTensor
from vfw.core.workspace import current_workspace
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _dtype, _inference, _inplace_history, _memory_layout, _meta, _saved_versions
from vfw.frontends.torch._nested_data import array_from, infer_dtype  # noqa: F401  (re-exported)

_new = object.__new__
_FLOATS = dt.FLOATS
_is_grad_enabled = autograd.is_grad_enabled

# The Tensor class is set by _tensor.py (it imports this module).
Tensor = None


def wrap(array, requires_grad=False):
    """A new torch tensor around an ndarray (no copy)."""
    t = _new(Tensor)
    t.array = array
    t.requires_grad = requires_grad
    t.grad_node = None
    if _tracing:  # (also while inference mode is on)
        _inference.mark(t)
    return t


def new_tensor(array):
    """A new torch tensor around ``array``, memory a factory just made (``torch.zeros``...).

    Under a graph trace the tensor is a constant of the graph (each run starts from the value it
    has when first read, as each eager call makes it anew), not a captured tensor.
    """
    t = wrap(array)
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.mark_fresh(t)
    return t


def as_torch(t):
    """A torch tensor for an engine tensor (same array and autograd node)."""
    return t if t is None or isinstance(t, Tensor) else stand_in(t)


def stand_in(t):
    """A new torch tensor with ``t``'s array and autograd identity (node and slot)."""
    out = _new(Tensor)
    out.array = t.array
    out.requires_grad = t.requires_grad
    out.grad_node = t.grad_node
    if t.grad_node is not None:
        out.grad_slot = t.grad_slot
    return out


@functools.cache
def _plain_op(op_type):
    return make_op(op_type)


def op(op_type, **attrs):
    """The bound engine op for ``op_type`` with ``attrs`` (attribute-less ops are process-wide)."""
    if not attrs:
        return _plain_op(op_type)
    return current_workspace().op(op_type, attrs)


def translate(error, name=None, bound=None, inputs=()):
    """The exception torch raises for an engine error (RuntimeError, except index errors).

    Given the failing op's inputs, a broadcasting failure gets torch's message.
    """
    if inputs and isinstance(error, ShapeError) and "broadcast" in str(error):
        mismatch = broadcast_mismatch([x.shape if isinstance(x, np.ndarray) else x.array.shape
                                        for x in inputs if isinstance(x, (np.ndarray, CoreTensor))])
        if mismatch:
            return RuntimeError(mismatch)
    message = str(error) if name is None else f"{name}: {error}"
    if isinstance(error, IndexOutOfRangeError):
        return IndexError(message)
    if isinstance(error, autograd.SavedTensorModifiedError):
        return RuntimeError(_saved_versions.message(error) or message)
    if isinstance(error, autograd.GraphReleasedError):
        return RuntimeError(message)  # torch raises plain RuntimeErrors (the engine's classes show in reprs)
    if isinstance(error, (RuntimeError, IndexError, NotImplementedError, MemoryError)):
        return error
    return RuntimeError(message)


def broadcast_mismatch(shapes):
    """torch's message for the first pair of shapes that do not broadcast (right-aligned), or None."""
    if len(shapes) < 2:
        return None
    a, b = shapes[0], shapes[1]
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    for i in range(rank - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return (f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton "
                    f"dimension {i}")
    return broadcast_mismatch([np.broadcast_shapes(a, b)] + list(shapes[2:])) if len(shapes) > 2 else None


# Engine ops whose torch counterparts save their result for backward (torch refuses their backward once the result
# was written in place); the engine's makers read these outputs, not their inputs.
_RESULT_SAVING_OPS = frozenset({"Sigmoid", "Tanh", "Exp", "Expm1", "Sqrt", "Reciprocal", "Tan", "Softmax",
                                "LogSoftmax", "Relu"})

# Ops whose gradient makers read no input values (only shapes, or only their outputs): in-place writes to their
# inputs after recording are harmless, as in torch.
_SAVES_NO_INPUTS = _RESULT_SAVING_OPS | {
    "Add", "Sub", "Neg", "Cast", "Identity", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten",
    "Expand", "Concat", "Split", "Slice", "ReduceSum", "ReduceMean", "Pad", "Tile", "CumSum", "Sum", "Mean",
}


def call(op_or_type, *inputs, **attrs):
    """Run an engine op on torch tensors / arrays; returns torch tensors (a tuple for several outputs)."""
    bound = op_or_type if type(op_or_type) is not str else op(op_or_type, **attrs)
    try:
        result = execute(bound, *inputs)
    except VfwError as e:
        raise translate(e, bound=bound, inputs=inputs) from None
    # Outputs are new tensors: a node on one of them was recorded by this very call.
    if type(result) is tuple:
        result = tuple([as_torch(r) for r in result])
        if _tracing:  # (also while inference mode is on, or meta tensors exist)
            _inference.mark(result)
            _meta.follow(inputs, result)
        for r in result:
            if r is not None and r.grad_node is not None:
                _check_saved_inputs(r.grad_node)
                break
        return result
    if type(result) is not Tensor:
        result = as_torch(result)
    if _tracing:  # (also while inference mode is on, or meta tensors exist)
        _inference.mark(result)
        _meta.follow(inputs, result)
    if result.grad_node is not None:
        _check_saved_inputs(result.grad_node)
    return result


def _check_saved_inputs(node):
    """Backward refuses the inputs the node's gradient reads if they are written in place later (torch's
    saved-tensor check); as torch saves them, products read one operand only for the other's gradient."""
    op_type = node.op.schema.op_type
    if op_type in _SAVES_NO_INPUTS:
        return
    edges = node.edges  # an input's edge is set where it is a tensor that requires grad
    if op_type in _CROSS_READS:
        node.check_inputs = _CROSS_CHECKS[edges[1] is not None, edges[0] is not None]
    elif op_type == "Div":  # the divisor always, the dividend for the divisor's gradient
        node.check_inputs = (0, 1) if edges[1] is not None else (1,)
    else:
        count = len(edges)
        node.check_inputs = _ALL_INPUTS[count] if count < 5 else tuple(range(count))
    _saved_versions.note_inputs(node)
    if _inference.ever_enabled:
        _inference.check_saved(node.inputs, node.check_inputs)


_ALL_INPUTS = [(), (0,), (0, 1), (0, 1, 2), (0, 1, 2, 3)]
# (the second operand needs a gradient, the first does) -> the operands whose values are read
_CROSS_CHECKS = {(True, True): (0, 1), (True, False): (0,), (False, True): (1,), (False, False): ()}
_CROSS_READS = frozenset({"Mul", "MatMul", "Gemm"})


# -- arguments -------------------------------------------------------------------------
def scalar_array(value, np_dtype):
    """A 0-d array of ``value`` in ``np_dtype`` (integers wrap around like torch's casts)."""
    try:
        return np.asarray(value, np_dtype)
    except (OverflowError, ValueError):
        return np.asarray(value).astype(np_dtype)


def to_tensor(x, np_dtype=None):
    """``x`` as a torch tensor: tensors pass through, numbers and nested sequences are converted."""
    if isinstance(x, Tensor):
        return x if np_dtype is None or x.array.dtype == np_dtype else cast(x, np_dtype)
    if isinstance(x, CoreTensor):
        return as_torch(x)
    return wrap(array_from(x, np_dtype))


def cast(t, np_dtype):
    """``t`` converted to ``np_dtype`` (recorded for autograd)."""
    if t.array.dtype == np_dtype:
        return t
    return call(op("Cast", to=dt.onnx_code(np_dtype)), t)


def convert(t, np_dtype):
    """An explicit conversion (``.to``, ``.float()``...): ``cast``, and complex to real as torch does it: the real
    part, with torch's warning (to bool: whether the value is nonzero).  Implicit casts stay strict (the engine
    refuses complex -> real), so no real-only function drops an imaginary part silently."""
    if t.array.dtype.kind == "c" and np.dtype(np_dtype).kind != "c":
        if np_dtype != np.bool_:
            warn_once("Casting complex values to real discards the imaginary part", UserWarning)
        t = call(op("ComplexAbs" if np_dtype == np.bool_ else "Real"), t)
    return cast(t, np_dtype)


def dims_of(args):
    """A size given as ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(torch.Size)`` as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for a in args:
        if isinstance(a, CoreTensor):
            if a.array.ndim or a.array.dtype.kind not in "iu":
                raise TypeError(f"size must be a tuple of ints, not Tensor (a {a.array.ndim}-d "
                                f"{a.array.dtype.name} tensor)")
            a = a.array.item()
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"size must be a tuple of ints, but got an element of type {type(a).__name__}")
        out.append(int(a))
    return tuple(out)


# -- promotion -------------------------------------------------------------------------
def result_dtype(*args):
    """torch.result_type over tensors and Python numbers (None arguments are skipped)."""
    dims, zeros, scalars = [], [], []
    for a in args:
        if isinstance(a, CoreTensor):
            (dims if a.array.ndim else zeros).append(a.array.dtype)
        elif a is not None:
            scalars.append(_dtype.scalar_np_dtype(a))
    return _dtype.result_type(dims, zeros, scalars)


def promoted(*args, np_dtype=None):
    """Arguments as engine inputs of one dtype: the promoted one, or ``np_dtype`` when given.

    Returns ``(inputs, dtype)``; tensors keep their autograd identity (a Cast is recorded
    where the dtype changes), Python numbers become cached-free 0-d arrays.
    """
    if np_dtype is None:
        first = args[0]
        if len(args) == 2 and isinstance(first, Tensor) and isinstance(args[1], Tensor) \
                and first.array.dtype == args[1].array.dtype:
            return args, first.array.dtype  # the common case: two tensors of one dtype
        np_dtype = result_dtype(*args)
    out = []
    for a in args:
        if isinstance(a, CoreTensor):
            out.append(a if a.array.dtype == np_dtype else cast(as_torch(a), np_dtype))
        else:
            out.append(scalar_array(a, np_dtype))
    return out, np_dtype


# -- results: out= and in-place ----------------------------------------------------------
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def type_name(np_dtype):
    """torch's scalar type name of a dtype (``Float``, ``Long``...), as its error messages use."""
    return _TYPE_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def can_cast(src, dst):
    """torch.can_cast: no float to integer, no number to bool, no complex to real."""
    return _dtype._category(np.dtype(src)) <= _dtype._category(np.dtype(dst))


def finish(result, out=None, name="op"):
    """Write ``result`` into ``out`` when given (resizing an empty or mismatched ``out``), else return it."""
    if out is None:
        return result
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            finish(r, o, name)
        return out
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _is_grad_enabled() and (out.requires_grad or result.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if not can_cast(result.array.dtype, out.array.dtype):
        raise RuntimeError(f"result type {type_name(result.array.dtype)} can't be cast to the desired output type "
                           f"{type_name(out.array.dtype)}")
    check_writeable(out, name)
    trace = current_trace() if _tracing else None
    if out.array.shape != result.array.shape:
        out.array = result.array.astype(out.array.dtype)
        if trace is not None:
            trace.bind_copy(out.array, result)
    else:
        if trace is not None:
            trace.record_write(out, result)
        np.copyto(out.array, result.array, casting="unsafe")
    bump_version(out)
    return out


def view_of(base, view):
    """Mark ``view`` (a torch tensor whose array shares ``base``'s memory) as a view of ``base``.

    Views share the root base's version counter and are listed (weakly) on the root, so an
    in-place write through either side reaches the shared memory and the autograd history of
    the other (see ``assign``).  Returns ``view``.
    """
    root = getattr(base, "_base", None)
    if root is None:
        base._base = None  # an unset slot costs ~0.5 us per read: later views of base skip the miss
        root = base
    view._base = root
    view._version_counter = version_counter(root)
    add_alias(root, view)
    _inference.share_mark(root, view)
    if _tracing:  # (meta tensors exist)
        _meta.share(root, view)
    return view


def add_alias(root, t):
    """Note that ``t`` shares ``root``'s memory (a view, or a detached alias)."""
    aliases = getattr(root, "_aliases", None)
    if aliases is None:
        root._aliases = [weakref.ref(t)]
        return
    if len(aliases) >= 32:
        aliases[:] = [r for r in aliases if r() is not None]
    aliases.append(weakref.ref(t))


def _live_aliases(t):
    aliases = getattr(t, "_aliases", None)
    if not aliases:
        return ()
    live = [a for a in (r() for r in aliases) if a is not None]
    aliases[:] = [weakref.ref(a) for a in live]
    return live


def flat_positions(root, view, name):
    """For each element of ``view``, its flat (C-order) position in ``root``, whose elements fill their memory
    densely (in C order, or in another dim order: a clone of a transposed tensor)."""
    arr, mem = view.array, root.array
    dense = mem.flags.c_contiguous or _memory_layout.is_dense(mem.shape, _memory_layout.element_strides(mem))
    if not dense or arr.itemsize != mem.itemsize:
        raise RuntimeError(f"{name}: in-place writes under autograd into a view of a non-contiguous tensor (or a "
                           "dtype view) are not supported by vfw.torch; clone() the base first")
    item = mem.itemsize
    offset = (arr.__array_interface__["data"][0] - mem.__array_interface__["data"][0]) // item
    flat = np.arange(mem.size, dtype=np.int64) if mem.flags.c_contiguous else _memory_layout.memory_positions(mem)
    steps = tuple(s // item * flat.itemsize for s in arr.strides)
    return np.lib.stride_tricks.as_strided(flat[offset:], arr.shape, steps).copy()


def _reshape(t, shape):
    return call(op("Reshape", allowzero=1), t, np.asarray(shape, np.int64))


def _rebase(root, view, name):
    """Give ``view`` the autograd history of its elements of ``root`` (after a write into root)."""
    if not root.requires_grad:
        view.grad_node = None
        view.requires_grad = False
        return
    fresh = call(op("Gather", axis=0), _reshape(root, (-1,)), flat_positions(root, view, name))
    view.requires_grad = True
    view.grad_node = fresh.grad_node
    view.grad_slot = fresh.grad_slot


def _write_into_view(view, result, name):
    """``view``'s new value is ``result``, recorded as a scatter into the view's root base."""
    root = view._base
    if root.requires_grad and root.grad_node is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    pos = flat_positions(root, view, name)
    value = _reshape(cast(as_torch(result), root.array.dtype), (-1,)) if result.array.shape == view.array.shape \
        else _reshape(call(op("Expand"), cast(as_torch(result), root.array.dtype),
                           np.asarray(view.array.shape, np.int64)), (-1,))
    new = call(op("ScatterND", reduction="none"), _reshape(snapshot(root), (-1,)), pos.reshape(-1, 1), value)
    before = root.grad_node
    assign(root, _reshape(new, root.array.shape), name)
    if root.grad_node is not None and root.grad_node is not before:  # torch's node for a write through a view
        root.grad_node.display_name = "torch::autograd::CopySlices"


def bump_version(t):
    """Count an in-place write into ``t``'s memory (so into its views and base too).

    Nodes that saved the overwritten memory as their output are marked, and the version
    counter gets a fresh stamp: backward refuses nodes that read either.
    """
    if getattr(t, "_inference", False):
        _inference.check_write()
    for holder in (t, getattr(t, "_base", None)):
        if holder is not None and holder.grad_node is not None:
            _saved_versions.note_output_write(holder.grad_node, holder.grad_slot, version_counter(t))
            holder.grad_node.mark_written(holder.grad_slot)
    count_version(t)
    if _tracing:
        trace = current_trace()
        if trace is not None:  # a write the trace was not told of (numpy code) would be lost in graphs
            trace.confirm_write(t, "vfw.torch code computing in numpy (a torch.optim step, an in-place update of "
                                   "a buffer or a weight...)")


def _mark_saved_result_written(t):
    """Before ``t`` is rebound to an in-place op's result: where torch's node for ``t``'s old value saved it, mark it
    overwritten, so that backward raises torch's "modified by an inplace operation" error as torch does."""
    node = t.grad_node
    if node is not None and node.op is not None and node.op.schema.op_type in _RESULT_SAVING_OPS:
        _saved_versions.note_output_write(node, t.grad_slot, version_counter(t))
        node.mark_written(t.grad_slot)


def count_version(t):
    """Count an in-place change of ``t`` that leaves the memory nodes saved as it was (a rebinding)."""
    counter = version_counter(t)
    counter[0] += 1
    counter[1] = autograd.write_stamp()


def version_counter(t):
    """The ``[version, write stamp]`` counter of ``t`` (shared with its views), created on first use."""
    counter = getattr(t, "_version_counter", None)
    if counter is None:
        counter = t._version_counter = [0, 0]
    return counter


def check_inplace(t, name, *others):
    """Refuse in-place writes torch refuses: a leaf that requires grad (while grad mode is on)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): expected a Tensor as self")
    if t.requires_grad and t.grad_node is None and _is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def assign(t, result, name="op"):
    """Make ``result`` the new value of ``t`` in place (torch's ``op_`` semantics); returns ``t``.

    The bytes are written into ``t``'s memory, so views, the base and detached aliases see
    them.  When autograd tracks the write, ``t`` takes over the result's history; a write into
    a view is recorded as a scatter into its base, and the base's other views are rebased
    onto the base's new history, as torch does.  A tensor nothing else shares memory with is
    rebound to the result's array instead of copied into (the values earlier nodes saved stay
    intact, and no copy is made).
    """
    if not can_cast(result.array.dtype, t.array.dtype):
        raise RuntimeError(f"result type {type_name(result.array.dtype)} can't be cast to the desired output type "
                           f"{type_name(t.array.dtype)}")
    check_writeable(t, name)
    if result.array.shape != t.array.shape:
        try:
            np.broadcast_to(result.array, t.array.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(t.array.shape)} doesn't match the broadcast shape "
                               f"{list(result.array.shape)}") from None
    if not (_is_grad_enabled() and (result.requires_grad or t.requires_grad)):
        if _tracing:
            _record_write(t, result)
        np.copyto(t.array, result.array, casting="unsafe")
        bump_version(t)
        return t
    if getattr(t, "_base", None) is not None:
        _write_into_view(t, result, name)
        return t  # the base's write counted the version
    aliases = _live_aliases(t)
    if aliases or not result.requires_grad:  # the memory is overwritten: count it before t's history moves on
        if _tracing:
            _record_write(t, result)
        bump_version(t)
    else:  # t is rebound to the result's array (a traced value already)
        _mark_saved_result_written(t)
        count_version(t)
    if result.requires_grad:
        if result.array.shape != t.array.shape:
            result = call(op("Expand"), result, np.asarray(t.array.shape, np.int64))
        result = cast(result, t.array.dtype)
        if aliases:
            np.copyto(t.array, result.array)
        else:
            t.array = result.array
        t.requires_grad = True
        t.grad_node = result.grad_node
        t.grad_slot = result.grad_slot
    elif t.grad_node is not None:  # overwritten by values without history: still in the graph, as in torch
        new = _inplace_history.replaced(t, result, name)
        np.copyto(t.array, new.array)
        t.grad_node, t.grad_slot = new.grad_node, new.grad_slot
    else:
        np.copyto(t.array, result.array, casting="unsafe")
        t.requires_grad = False
    for v in aliases:
        if getattr(v, "_base", None) is t:  # a view (detached aliases keep no history)
            _rebase(t, v, name)
    return t


def _record_write(t, value):
    """Tell an open trace that ``t``'s memory is about to hold ``value`` (see ``Trace.record_write``; a view made
    by indexing is written back into its parent at positions computed from its shape)."""
    from vfw.frontends.torch._traced_views import record_write

    record_write(t, value)


def check_writeable(t, name):
    """Refuse writes into memory numpy marks read-only (expanded tensors, read-only arrays)."""
    if t.array.flags.writeable:
        return
    if any(st == 0 and n > 1 for st, n in zip(t.array.strides, t.array.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    raise RuntimeError(f"{name}: the tensor's memory is read-only (a numpy array that is not writeable); clone() "
                       "the tensor before writing into it")


def snapshot(t):
    """A stand-in for ``t``'s current value and autograd node, as the input of an in-place op."""
    s = stand_in(t)
    if getattr(t, "_base", None) is not None or _live_aliases(t):
        s.array = t.array.copy()  # t's memory is about to be overwritten: keep the old values
        if _tracing:
            trace = current_trace()
            if trace is not None:  # the copy holds t's current value
                trace.bind_copy(s.array, t)
    # Else t is about to be rebound to a new array (see ``assign``): the stand-in's array is
    # never written again, so it has a version counter of its own.
    return s


def inplace(fn, t, *args, name="op", **kwargs):
    """Run ``fn(t, *args)`` as ``t.op_(*args)``: result written into ``t``."""
    check_inplace(t, name)
    src = snapshot(t) if _is_grad_enabled() and (t.requires_grad or _any_grad(args)) else t
    return assign(t, fn(src, *args, **kwargs), name)


def _any_grad(args):
    for a in args:
        if isinstance(a, CoreTensor) and a.requires_grad:
            return True
    return False
