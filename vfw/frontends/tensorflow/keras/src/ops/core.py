"""keras.ops core: conversions, shapes, casts, control flow (cond, loops, scan, map), slicing and scatter.

Control flow runs through vfw's ``tf.cond`` / ``tf.while_loop`` / ``tf.switch_case`` (graphs under
``tf.function``); ``map``, ``vectorized_map`` and ``scan`` loop in Python over the leading axis
(unrolled in traced graphs) and stack the results.
"""

import builtins

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.backend.dtypes import standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.operation import call_reporting_arguments
from vfw.frontends.tensorflow.keras.src.ops import _common
from vfw.frontends.tensorflow.keras.src.ops._common import keras_op


@keras_op
def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a tensor (cast to ``dtype`` when given)."""
    return _common.convert_to_tensor(x, dtype=dtype, sparse=sparse, ragged=ragged)


def convert_to_numpy(x):
    """``x`` as a numpy array."""
    return np.array(x)


def is_tensor(x):
    """Whether ``x`` is a tf tensor."""
    return tf.is_tensor(x)


def dtype(x):
    """The Keras dtype name of ``x``."""
    return standardize_dtype(x.dtype)


def shape(x):
    """The shape of ``x`` as a tuple: ints, and for the dims a graph being built does not know (a symbolic call,
    tf.function) scalar tensors of the size each run has; None for unknown dims of KerasTensors."""
    if isinstance(x, KerasTensor):
        return x.shape
    x = _common.convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError(f"All tensors passed to `ops.shape` must have a statically known rank. Received: x={x} with "
                         "unknown rank.")
    static = x.shape.as_list()
    if None not in static:
        return tuple(static)
    dynamic = tf.shape(x)
    return tuple(dynamic[i] if d is None else d for i, d in enumerate(static))


@keras_op
def cast(x, dtype):
    """``x`` converted to ``dtype``."""
    return tf.cast(_common.convert_to_tensor(x), standardize_dtype(dtype))


def _limits(dtype):
    if dtype == "bool":
        return 0, 1
    tf_dtype = tf.as_dtype(dtype)
    return tf_dtype.min, tf_dtype.max


@keras_op
def saturate_cast(x, dtype):
    """``x`` clipped to ``dtype``'s range, then cast (no wrap-around)."""
    dtype = standardize_dtype(dtype)
    x = _common.convert_to_tensor(x)
    source = x.dtype.name
    numpy_type = tf.as_dtype(source).as_numpy_dtype
    in_min, in_max = _limits(source)
    out_min, out_max = _limits(dtype)
    low = np.array(max(in_min, out_min)).astype(numpy_type)
    if low < out_min:
        low = np.nextafter(low, numpy_type(0))
    high = np.array(min(in_max, out_max)).astype(numpy_type)
    if high > out_max:
        high = np.nextafter(high, numpy_type(0))
    if source == "bool":
        x = tf.cast(x, "int32")
    return tf.cast(tf.clip_by_value(x, low, high), dtype)


@keras_op
def stop_gradient(variable):
    """``variable``'s value, with no gradient flowing back through it."""
    return tf.stop_gradient(variable)


def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``.

    As Keras' TF backend (``smart_cond``): a Python bool (or 1 / 0) picks its branch in Python, also under
    ``tf.function`` (``cond(training is True, ...)`` in a layer); a tensor or variable makes a graph conditional
    there.  Bad arguments raise Keras' TypeError, reported as the ``Cond`` operation's.
    """
    if isinstance(pred, (tf.Tensor, tf.Variable)):
        return tf.cond(pred, true_fn, false_fn)
    return call_reporting_arguments(_python_cond, "Cond.call()", (pred, true_fn, false_fn), {})


def _python_cond(*args, **kwargs):
    pred, true_fn, false_fn = args
    try:
        known = pred in (0, 1)
    except (TypeError, ValueError):
        known = False
    if not known:
        raise TypeError(f"Argument `pred` must be a Tensor, or a Python bool, or 1 or 0. Received: pred={pred} of "
                        f"type {type(pred).__name__}")
    for what, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"Argument `{what}` must be callable. Received {fn}")
    return true_fn() if pred else false_fn()


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (at most ``maximum_iterations``).

    ``loop_vars`` is a tuple/list (``body`` returns one of the same structure) or a single value.
    """
    is_sequence = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_sequence else (loop_vars,)

    def step(*args):
        outputs = body(*args)
        return tuple(outputs) if is_sequence else (outputs,)

    outputs = tf.while_loop(cond, step, loop_vars, maximum_iterations=maximum_iterations)
    return outputs if is_sequence else outputs[0]


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``, from ``init_val``."""
    return tf.while_loop(lambda i, value: i < upper, lambda i, value: (i + 1, body_fun(i, value)),
                         (lower, init_val))[1]


def switch(index, branches, *operands):
    """``branches[index](*operands)`` (``index`` clipped into range)."""
    index = tf.clip_by_value(_common.convert_to_tensor(index, "int32"), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda branch=branch: branch(*operands) for branch in branches])


def _leading_slices(xs):
    """The slices of the (nested) ``xs`` along their first axis, as a list of structures."""
    flat = [_common.convert_to_tensor(x) for x in nest.flatten(xs)]
    count = flat[0].shape[0]
    return [nest.pack_sequence_as(xs, [x[i] for x in flat]) for i in range(count)]


def _stacked(results):
    """The (nested) results of each step, stacked along a new first axis."""
    flat = [nest.flatten(r) for r in results]
    return nest.pack_sequence_as(results[0], [tf.stack(list(parts)) for parts in zip(*flat)])


def map(f, xs):  # noqa: A001  (keras.ops.map)
    """``f`` applied to each slice of ``xs`` along its first axis, the results stacked."""
    return _stacked([f(x) for x in _leading_slices(xs)])


def vectorized_map(function, elements):
    """``function`` applied to each slice of ``elements`` along its first axis, the results stacked."""
    return map(function, elements)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Carry a state through ``(carry, y) = f(carry, x)`` over the slices ``x`` of ``xs``.

    Returns ``(final carry, stacked ys)`` (zeros shaped like the carry when ``f`` gives None ys).
    Without ``xs``, ``f`` gets None ``length`` times.
    """
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError(f"`unroll` must be an positive integer or boolean. Received: unroll={unroll}")
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    slices = [None] * int(length) if xs is None else _leading_slices(xs)
    order = range(len(slices) - 1, -1, -1) if reverse else range(len(slices))
    carry = initial = nest.map_structure(_common.convert_to_tensor, init)
    ys = [None] * len(slices)
    for i in order:
        carry, ys[i] = f(carry, slices[i])
    if not slices or ys[0] is None:  # no outputs: zeros shaped like the carry, as Keras' preallocated ones
        return carry, nest.map_structure(lambda c: tf.zeros((len(slices), *c.shape), c.dtype), initial)
    return carry, _stacked(ys)


def _along(x, axis, start=None, stop=None, step=None):
    """``x[start:stop:step]`` along ``axis``."""
    return x[(builtins.slice(None),) * axis + (builtins.slice(start, stop, step),)]


def _interleaved(evens, odds, axis):
    """``evens[0], odds[0], evens[1], odds[1]...`` along ``axis`` (``evens`` may be one longer)."""
    extra = evens.shape[axis] - odds.shape[axis]
    if extra:  # pad the odds with a copy of the last even, interleave, then drop it
        odds = tf.concat([odds, _along(evens, axis, -1)], axis)
    pairs = tf.stack([evens, odds], axis=axis + 1)
    shape = [*evens.shape[:axis], 2 * evens.shape[axis], *evens.shape[axis + 1:]]
    merged = tf.reshape(pairs, shape)
    return _along(merged, axis, None, shape[axis] - extra)


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of ``elems`` (a tensor or a structure of tensors) along ``axis`` with the associative
    ``f`` (``f(a, b)`` combines two structures like ``elems`` elementwise).

    Pairs are combined in a tree (the odd-even recursion of parallel prefix sums, as Keras' backends do), so
    float results round as theirs.
    """
    if not callable(f):
        raise TypeError(f"`f` should be a callable. Received: f={f}")
    flat = [_common.convert_to_tensor(x) for x in nest.flatten(elems)]
    length = flat[0].shape[axis]
    if any(x.shape[axis] != length for x in flat):
        raise ValueError(f"Array inputs to associative_scan must have the same first dimension. (saw: "
                         f"{[x.shape for x in flat]})")
    axis = _common.canonicalize_axis(axis, len(flat[0].shape))

    def combine(a, b):
        return nest.flatten(f(nest.pack_sequence_as(elems, a), nest.pack_sequence_as(elems, b)))

    def scan_flat(parts):
        count = parts[0].shape[axis]
        if count < 2:
            return parts
        reduced = combine([_along(x, axis, 0, -1, 2) for x in parts], [_along(x, axis, 1, None, 2) for x in parts])
        odds = scan_flat(reduced)  # prefixes ending at the odd positions
        tails = [_along(x, axis, 2, None, 2) for x in parts]
        heads = odds if count % 2 else [_along(x, axis, 0, -1) for x in odds]
        # (as Keras: f never sees empty pieces, which ops.add would send to bias_add)
        combined = combine(heads, tails) if tails[0].shape[axis] else tails
        evens = [tf.concat([_along(x, axis, 0, 1), e], axis) for x, e in zip(parts, combined)]
        return [_interleaved(e, o, axis) for e, o in zip(evens, odds)]

    if reverse:
        flat = [tf.reverse(x, [axis]) for x in flat]
    scanned = scan_flat(flat)
    if reverse:
        scanned = [tf.reverse(x, [axis]) for x in scanned]
    return nest.pack_sequence_as(elems, scanned)


@keras_op
def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis`` as a list."""
    return tf.unstack(_common.convert_to_tensor(x), num=num, axis=axis)


@keras_op
def slice(inputs, start_indices, shape):  # noqa: A001  (keras.ops.slice)
    """The block of ``inputs`` of size ``shape`` starting at ``start_indices``."""
    return tf.slice(inputs, start_indices, shape)


@keras_op
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block starting at ``start_indices`` replaced by ``updates``."""
    inputs, updates = _common.convert_to_tensor(inputs), _common.convert_to_tensor(updates)
    starts = [int(s) for s in np.asarray(start_indices).reshape(-1)]
    grids = np.meshgrid(*[np.arange(s, s + n) for s, n in zip(starts, updates.shape)], indexing="ij")
    indices = np.stack(grids, axis=-1).astype(np.int64)
    return tf.tensor_scatter_nd_update(inputs, indices, tf.cast(updates, inputs.dtype))


@keras_op
def scatter(indices, values, shape):
    """A zero tensor of ``shape`` with ``values`` added at ``indices`` (index tuples on the last axis)."""
    return tf.scatter_nd(indices, values, shape)


@keras_op
def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices`` (or combined: reduction "add", "max", "min",
    "mul")."""
    if reduction is None:
        return tf.tensor_scatter_nd_update(inputs, indices, updates)
    combine = {"add": tf.tensor_scatter_nd_add, "max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}
    if reduction in combine:
        return combine[reduction](inputs, indices, updates)
    if reduction == "mul":
        result = _common.convert_to_tensor(inputs)
        updates = _common.convert_to_tensor(updates)
        for i in range(int(np.asarray(indices).shape[0])):
            index = indices[i:i + 1]
            result = tf.tensor_scatter_nd_update(result, index, tf.gather_nd(result, index) * updates[i])
        return result
    raise ValueError(f"Unsupported reduction: {reduction}")


def custom_gradient(f):
    """Decorator: ``f`` returns ``(output, grad_fn)`` and ``grad_fn(upstream)`` gives its input gradients."""
    return tf.custom_gradient(f=f)


