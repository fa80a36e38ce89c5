"""Values that functions read in Python (shapes, sizes, counts) while a tf.function is traced.

TF builds graphs whose shapes follow each call's values: inside a tf.function, ``tf.zeros([n])``
makes ``n`` zeros for the ``n`` of every call.  vfw traces concretely (the function runs on the
first call's values while its ops are recorded), so a function that read ``n`` in Python would bake
the traced ``n`` into the graph.  With these helpers a function tells when that would happen: the
value *varies*, being computed from an argument, a variable or a random draw
(:meth:`~vfw.core.graph.trace.Trace.varies`).  It then hands the value to engine ops that read it
when the graph runs (Expand, Reshape, Slice, Tile, Range...) and marks the results whose shapes
follow values (``value_shaped``), so that no graph pass folds or preallocates the traced shape.
Values that do not vary (constants, the shapes of the arguments, which are part of the signature)
are read in Python as eagerly, and the graph keeps its optimizations.  Where a function still
reads a varying value in Python (an axis, a permutation), ``pinned`` makes each run check that the
value is the traced one: an error when it is not, never a silently wrong result.  ``static_shape`` is
TF's static shape inside tf.function (``Tensor.shape``): ``None`` for the dims that follow values.

Eagerly each helper costs one check of the list of open traces.
"""

import contextlib

import numpy as np

from vfw.core.graph import static_shapes
from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dtypes, _tensor, errors
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    host,
    is_tensor_like,
    kernel_type_name,
    op,
    op_error,
    tensor_of,
)
from vfw.frontends.tensorflow._op_support import I64, INDEX_DTYPES, attr_error, int64s

_TO_INT64 = op("Cast", to=I64)
_SHAPE = op("Shape")
_VECTOR = np.array([-1], np.int64)


def _trace():
    return current_trace() if _tracing else None


def varies(*values):
    """Whether one of ``values`` (tensors, variables, or lists/tuples holding them) may change from one run of the
    graph being traced to the next (False when no trace is open)."""
    trace = _trace()
    return trace is not None and any(_varies_in(trace, v) for v in values)


def _varies_in(trace, value):
    if value.__class__ is list or value.__class__ is tuple:
        return any(_varies_in(trace, v) for v in value)
    return is_tensor_like(value) and trace.varies(tensor_of(value))


def shape_varies(*tensors):
    """Whether the shape of one of ``tensors`` may change from one run of the graph being traced to the next."""
    trace = _trace()
    return trace is not None and any(trace.shape_varies(t) for t in tensors)


def value_shaped(t, dims=None):
    """``t``, noted by the open trace as a result whose shape follows run-time values: ``dims`` lists its dims,
    None where one may change (all may when ``dims`` is None).  The graph then runs as traced, at
    optimization level 0 (no folded shapes, no preallocated buffers)."""
    trace = _trace()
    if trace is not None:
        shape = t.array.shape
        trace.relax_shape(t, [None] * len(shape) if dims is None else
                          [None if d is None else shape[k] for k, d in enumerate(dims)])
    return t


def static_shape(t):
    """The shape of ``t`` known whatever the call (TF's static shape inside tf.function): a tuple, ``None`` for the
    dims that follow each call's values; eagerly, its shape."""
    trace = _trace()
    return t.array.shape if trace is None else static_shapes.static_shape(trace, t)


def shown_shape(t):
    """TF's static shape of ``t`` (``Tensor.shape``): :func:`static_shape` also following the shapes the
    tf.function being traced declares for its arguments (``None`` dims of its input signature or relaxed trace);
    a tuple, or None for an unknown rank."""
    trace = _trace()
    return t.array.shape if trace is None else static_shapes.declared_shape(trace, t)


def declare_shape(t, dims):
    """Declare ``dims`` (None dims allowed; None for an unknown rank) the static shape of ``t``, an argument of the
    tf.function being traced: what :func:`shown_shape` starts from (the graph still computes with traced shapes)."""
    trace = _trace()
    if trace is not None:
        static_shapes.declare(trace, t, dims)


@contextlib.contextmanager
def showing_static_shapes(name, declared):
    """Run the block traced into a throwaway graph ``name`` (writes undone) whose inputs are the eager tensors of
    ``declared`` (``(tensor, dims)`` pairs), symbolic meanwhile and showing ``dims`` (None dims) as their static
    shapes, as TF's placeholders do; the values still compute with the tensors' own sizes."""
    with SubgraphTrace(name, None) as trace:
        retyped = _tensor.as_symbolic([t for t, _ in declared])
        try:
            for t, dims in declared:
                trace.add_input(t)
                declare_shape(t, dims)
            yield
        finally:
            _tensor.as_eager(retyped)


def refine_static_shape(t, dims):
    """Note the dims of ``t`` that ``dims`` gives (``set_shape`` inside tf.function; None: not known)."""
    trace = _trace()
    if trace is not None:
        static_shapes.refine(trace, t, dims)


def dims_tensor(shape, tf_op, attr="index_type"):
    """A shape argument holding varying values (a tensor, or a list mixing ints and scalar tensors) as a 1-D int64
    tensor computed by the graph, with TF's errors for a non-integer or non-vector shape."""
    t = convert_to_tensor(shape, dtype_hint=_dtypes.int32)  # a list holding tensors is packed by engine ops
    if t.array.dtype not in INDEX_DTYPES:
        raise attr_error(tf_op, attr, kernel_type_name(_dtypes.of_array(t.array)), "int32, int64")
    if t.array.ndim > 1:
        raise op_error(f"shape must be a vector of {{int32,int64}}, got shape {list(t.array.shape)}", tf_op)
    return as_int64(t if t.array.ndim else call("Reshape", t, _VECTOR, tf_op=tf_op))


def as_int64(t):
    """An integer tensor as int64 (engine ops take shapes, sizes and indices as int64)."""
    return t if t.array.dtype == I64 else call(_TO_INT64, t, tf_op="Cast")


def scalar_int64(value, tf_op):
    """A count given as an integer tensor (one element) as an int64 scalar tensor."""
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype not in INDEX_DTYPES:
        raise attr_error(tf_op, "T", kernel_type_name(_dtypes.of_array(t.array)), "int32, int64")
    if t.array.size != 1:
        raise op_error(f"Expected a scalar, got shape {list(t.array.shape)}", tf_op)
    return as_int64(call("Reshape", t, np.zeros(0, np.int64), tf_op=tf_op) if t.array.ndim else t)


def shape_of(x):
    """The shape of tensor ``x`` as a 1-D int64 tensor: computed by the graph when it varies, else a constant."""
    if shape_varies(x):
        return call(_SHAPE, x, tf_op="Shape")
    return int64s(x.array.shape)


def dim_of(x, axis):
    """Dim ``axis`` of tensor ``x`` as a 1-element int64 input: computed by the graph when it varies, else a
    constant."""
    if shape_varies(x):
        return call("Gather", call(_SHAPE, x, tf_op="Shape"), int64s([axis]), axis=0, tf_op="Shape")
    return int64s([x.array.shape[axis]])


def shape_with(x, prefix, start):
    """The shape ``prefix + x.shape[start:]`` (``prefix`` ints) as a 1-D int64 input: computed by the graph when the
    shape of ``x`` varies, else a constant."""
    if shape_varies(x):
        tail = call("Slice", call(_SHAPE, x, tf_op="Shape"), int64s([start]), int64s([x.array.ndim]), tf_op="Shape")
        return call("Concat", int64s(prefix), tail, axis=0, tf_op="ConcatV2")
    return int64s(tuple(prefix) + x.array.shape[start:])


def reshaped_like(t, like, tf_op="Reshape"):
    """``t`` reshaped to the shape of ``like`` (same number of elements), by the graph when that shape varies."""
    if shape_varies(like):
        return value_shaped(call("Reshape", t, shape_of(like), allowzero=1, tf_op=tf_op))
    return call("Reshape", t, int64s(like.array.shape), allowzero=1, tf_op=tf_op)


def merged_last(t, count, tf_op="Reshape"):
    """``t`` with its last ``count`` dims merged into one, by the graph when its shape varies."""
    if shape_varies(t):
        return value_shaped(call("Reshape", t, _merged_dims(t, count), tf_op=tf_op))
    shape = t.array.shape
    return call("Reshape", t, int64s(shape[:len(shape) - count] + (-1,)), tf_op=tf_op)


def _merged_dims(t, count):
    lead = call("Slice", call(_SHAPE, t, tf_op="Shape"), int64s([0]), int64s([t.array.ndim - count]), tf_op="Shape")
    return call("Concat", lead, int64s([-1]), axis=0, tf_op="ConcatV2")


def resolved(fn, *values):
    """Int64 1-D tensors computed at every run of the graph being traced by ``fn`` (a PyFunc op).

    ``values`` are int64 tensors or arrays (``dims_tensor``, ``shape_of``); ``fn`` gets each as a
    tuple of ints and returns a tuple of int sequences, raising TF's error for invalid ones: the
    frontend's own Python arithmetic and checks on shapes, run on each call's values.
    """
    def run(*arrays):
        return tuple(int64s(part) for part in fn(*[tuple(int(v) for v in a.reshape(-1)) for a in arrays]))
    result = host(run, *values)
    return result if result.__class__ is tuple else (result,)


def checked_at_run(check, *tensors):
    """Run ``check(*arrays)`` (which raises TF's error) on the values of ``tensors`` (tensors or arrays): now, and,
    when one of them varies, at every run of the graph being traced (a PyFunc op), where values that vary decide
    whether the op fails."""
    # (While tracing too: TF's error, which tf.cond defers to the calls taking it.)
    check(*[getattr(t, "array", t) for t in tensors])
    if not varies(*tensors):
        return

    def run_check(*arrays):
        check(*arrays)
        return np.zeros(0, np.bool_)  # (a PyFunc gives an output; nothing reads it)
    run_check.check_only = True  # (a SavedModel leaves it out: see _saved_model_save)
    host(run_check, *tensors)


def deferrable_check(check, *tensors):
    """``checked_at_run`` for an op that TF would prune when nothing uses its result (the error only shows if the
    result is needed).  While a tf.function traces, for tensors that do not vary between calls, the error
    ``check`` raises on their values is returned (None when they pass) instead of raised: the op then records a
    stand-in result and passes both to :func:`deferred`."""
    if _tracing and not varies(*tensors):
        trace = current_trace()
        if trace is not None and trace.defers_errors:
            try:
                check(*[getattr(t, "array", t) for t in tensors])
            except errors.OpError as e:
                return e
            return None
    checked_at_run(check, *tensors)
    return None


def deferred(result, error):
    """``result`` (a stand-in tensor computed instead of an op that failed with ``error`` while a tf.function
    traced), with the error noted: the trace raises it if the finished graph needs ``result``, as TF raises
    when the graph runs an op it kept."""
    from vfw.frontends.tensorflow._function import graph_error  # (it imports the ops)

    current_trace().defer_error(result, graph_error(error))
    return result


def pinned(t, values, what, tf_op):
    """Note that the graph being traced keeps ``values`` (ints) read from the tensor ``t`` (the argument ``what``
    of ``tf_op``): when ``t`` varies, every run checks that it still holds them, and fails if not (the graph call
    raises InvalidArgumentError: vfw computes this argument in Python, once per trace).  Eagerly: one check of the
    open traces."""
    if _tracing:
        pinned_to((t,), _ints, values, what, tf_op)


def _ints(array):
    return tuple(int(v) for v in np.asarray(array).reshape(-1))


def pinned_to(tensors, derive, values, what, tf_op):
    """``pinned`` for ``values`` (ints) that the function derived in Python from the tensors: every run checks
    that ``derive(*arrays)`` (a sequence of ints) still gives them, when one of the tensors varies."""
    if not _tracing or not varies(*tensors):
        return
    traced = tuple(int(v) for v in np.asarray(values).reshape(-1))

    def same_as_traced(*arrays):
        now = tuple(int(v) for v in np.asarray(derive(*arrays)).reshape(-1))
        if now != traced:
            raise op_error(f"`{what}` was {_listed(traced)} when this tf.function was traced and is {_listed(now)} "
                           "in this call: vfw.tensorflow reads this argument once per trace (TF reads it at every "
                           "call); pass it as a Python value or a tensor that does not change", tf_op)

    checked_at_run(same_as_traced, *tensors)


def _listed(values):
    return str(values[0]) if len(values) == 1 else str(list(values))


def refuse_python_value(t, kind):
    """Refuse ``int(t)``/``float(t)``/``complex(t)``/``operator.index(t)``/``numpy.asarray(t)`` of a tensor whose
    value varies in the graph being traced, with TF's error for a symbolic tensor (vfw has no AutoGraph, which
    turns ``int(t)`` into a cast): the Python value would be the traced one in every call.  As in TF, constants made
    inside the function are refused too (they are symbolic there); tensors from outside it (captured) are not."""
    if not symbolic(t):
        return
    hint = (" (inside tf.function a tensor made there has no Python value: vfw.tensorflow traces "
            "without AutoGraph; compute with the tensor, e.g. tf.cast(x, tf.int32))")
    if kind == "array":
        raise NotImplementedError("Cannot convert a symbolic tf.Tensor to a numpy array. This error may indicate that "
                                  "you're trying to pass a Tensor to a NumPy call, which is not supported" + hint)
    if kind == "index":
        raise TypeError("only integer scalar values can be used as an index; got a SymbolicTensor" + hint)
    accepted = {"int": "a string, a bytes-like object or a real number", "float": "a string or a real number",
                "complex": "a string or a number"}[kind]
    raise TypeError(f"{kind}() argument must be {accepted}, not 'SymbolicTensor'" + hint)


def symbolic(t):
    """Whether ``t`` is a value of the graph being traced (an argument or a tensor made inside the function: TF's
    symbolic tensors), not a tensor from outside it (a captured eager tensor, whose value TF reads)."""
    trace = _trace()
    if trace is None:
        return False
    name = trace._arrays.get(id(t.array))
    if name is None:
        return id(t.array) in trace._fresh or trace._is_view_of_value(t.array)
    return name not in trace.captures


def refuse_varying_length(t, iterating):
    """Refuse ``len(t)`` (TypeError) or iterating over ``t`` (OperatorNotAllowedInGraphError) when the length of
    ``t`` varies in the graph being traced, as TF does for a dim it does not know."""
    if not shape_varies(t):
        return
    if iterating:
        raise errors.OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed: its length follows the values of each call. Use "
            "tf.map_fn, tf.while_loop or tensor ops instead.")
    raise TypeError("len is not well defined for a symbolic Tensor whose first dim follows the values of each call. "
                    "Please call `tf.shape(x)` rather than `len(x)` for shape information.")
