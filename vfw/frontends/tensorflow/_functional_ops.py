"""tf.map_fn, tf.scan, tf.foldl, tf.foldr, tf.vectorized_map, tf.py_function, tf.numpy_function.

The higher-order functions call ``fn`` once per element along the first axis of ``elems`` and
stack the results with engine ops, so GradientTape gradients flow through them. Inside a
tf.function they are traced unrolled (the first dims are known for each trace: vfw compiles a
graph per shape), which gives TF's values; ``fn``'s Python side effects then run once per
element while tracing, where TF traces ``fn`` once into a while loop. ``vectorized_map`` is the
same loop (TF vectorizes ``fn`` with pfor; the results agree).

``py_function``/``numpy_function`` call Python at every run of a tf.function (a PyFunc op).
"""

import functools

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _array_ops, _dtypes, errors, nest
from vfw.frontends.tensorflow._context_ops import init_scope
from vfw.frontends.tensorflow._dispatch import callback, convert_to_tensor, is_tensor_like, op_error, pack, wrap
from vfw.frontends.tensorflow._ragged import RaggedTensor, stack_rows
from vfw.frontends.tensorflow._ragged_spec import RaggedTensorSpec
from vfw.frontends.tensorflow._tensor_array import TensorArray
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow._traced_shapes import shape_varies


def _elements(elems):
    """The flat tensors (or ragged tensors) of ``elems`` and their common first dim, with TF's errors."""
    flat = [x if isinstance(x, RaggedTensor) else convert_to_tensor(x) for x in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got []")
    for t in flat:
        if isinstance(t, RaggedTensor):
            continue
        if t.array.ndim == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        if shape_varies(t):
            raise ValueError("tf.map_fn/scan/foldl/foldr/vectorized_map in vfw.tensorflow unroll over the first "
                             "dim of elems while a tf.function is traced; here it follows the values of each call. "
                             "Use tf.while_loop instead.")
    n = len(flat[0])
    for t in flat[1:]:
        if len(t) != n:
            raise ValueError(f"Dimensions {n} and {len(t)} are not compatible")
    return flat, n


class _Rows:
    """The elements ``elems[i]`` (structures like ``elems``), unstacked once, differentiably."""

    def __init__(self, elems, flat):
        self.elems = elems
        self.columns = [[t[i] for i in range(len(t))] if isinstance(t, RaggedTensor) else _array_ops.unstack(t)
                        for t in flat]

    def __getitem__(self, i):
        return nest.pack_sequence_as(self.elems, [column[i] for column in self.columns])


def _spec(leaf):
    """A signature leaf (DType, TensorSpec or dtype name) as (DType, element shape or None); a RaggedTensorSpec
    as it is."""
    if isinstance(leaf, RaggedTensorSpec):
        return leaf
    if isinstance(leaf, TensorSpec):
        return leaf.dtype, leaf.shape
    return _dtypes.as_dtype(leaf), None


def _element_spec(elems):
    """The default map_fn signature leaf of ``elems``: its dtype, or the RaggedTensorSpec of a ragged row."""
    if isinstance(elems, RaggedTensor):
        shape = elems.shape
        return RaggedTensorSpec(shape[1:], elems.dtype, ragged_rank=elems.ragged_rank - 1)
    return _dtypes.of_array(elems.array)


def _results_stacked(count, results, structure, specs, infer_shape=True):
    """Stack ``results[i]`` (flat lists, in order) into TensorArrays of ``specs``; packed like ``structure``."""
    arrays = [_RaggedRows(spec) if isinstance(spec, RaggedTensorSpec) else
              TensorArray(spec[0], size=count, infer_shape=infer_shape, element_shape=spec[1]) for spec in specs]
    for i, flat in results:
        for array, value in zip(arrays, flat):
            array.write(i, value)
    return nest.pack_sequence_as(structure, [array.stack() for array in arrays])


class _RaggedRows:
    """The results for a ``tf.RaggedTensorSpec`` of a map_fn signature: each element's result becomes a row."""

    def __init__(self, spec):
        self.spec = spec
        self.rows = []

    def write(self, index, value):
        if not isinstance(value, RaggedTensor):
            value = convert_to_tensor(value, dtype=self.spec.dtype)
            if value.array.ndim == 0:
                raise op_error(f"Ragged values must have rank >= 1; encoded scalar element at index {index} has "
                               f"values {value}", "RaggedTensorFromVariant")
        self.rows.append(value)

    def stack(self):
        if self.rows:
            return stack_rows(self.rows)
        inner = [0 if d is None else d for d in self.spec.shape.as_list()[self.spec.ragged_rank + 1:]]
        return RaggedTensor.from_row_splits(wrap(np.zeros([0] + inner, self.spec.dtype.as_numpy_dtype)), [0])


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``fn`` applied to each element ``elems[i]`` (along the first axis), the results stacked.

    Parameters
    ----------
    fn : callable
        Takes one element (a structure like ``elems``), returns tensors.
    elems : tensor or (nested) sequence of tensors
        All with the same first dim, each of rank 1 or more.
    fn_output_signature : DType, TensorSpec or nested structure of them, optional
        The structure and dtypes of ``fn``'s results (default: those of ``elems``). ``dtype`` is
        its deprecated name.
    infer_shape : bool
        Whether all results must have one shape (default True).
    parallel_iterations, back_prop, swap_memory, name
        Accepted for compatibility.

    Returns
    -------
    Tensors of shape ``[n] + result shape`` in the signature's structure.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable. Got: {fn}")
    flat, n = _elements(elems)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if signature is None:
        signature = nest.pack_sequence_as(elems, [_element_spec(t) for t in flat])
    specs = [_spec(leaf) for leaf in nest.flatten(signature)]
    rows = _Rows(elems, flat)
    results = []
    for i in range(n):
        value = fn(rows[i])
        nest.assert_same_structure(signature, value, check_types=False)
        results.append((i, nest.flatten(value)))
    return _results_stacked(n, results, signature, specs, infer_shape)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` applied to each element of ``elems`` (as ``map_fn``), results of any dtype stacked.

    TF vectorizes ``fn`` (pfor); vfw calls it per element, which gives the same values. Results
    that do not depend on the element are repeated along the new first axis.
    """
    flat, n = _elements(elems)
    rows = _Rows(elems, flat)
    results = [fn(rows[i]) for i in range(n)]
    if not results:
        raise ValueError("vectorized_map: elems have no elements (vfw infers the results' structure from fn's "
                         "results)")
    columns = [[convert_to_tensor(v) for v in nest.flatten(r)] for r in results]
    return nest.pack_sequence_as(results[0], [pack([row[k] for row in columns]) for k in range(len(columns[0]))])


def _accumulated(elems, initializer, reverse):
    """A scan/fold's start: the accumulators' structure, the rows, the positions left to visit, the first
    accumulator, and the ``(position, accumulator)`` steps so far (the first element when there is no initializer)."""
    flat, n = _elements(elems)
    rows = _Rows(elems, flat)
    order = list(range(n - 1, -1, -1) if reverse else range(n))
    if initializer is None:
        if not order:
            raise errors.OutOfRangeError(None, None, "Tried to read from index 0 but array size is: 0")
        first = order.pop(0)
        acc = rows[first]
        steps = [(first, acc)]
        structure = elems
    else:
        acc = initializer
        steps = []
        structure = initializer
    return structure, rows, order, acc, steps


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """Accumulate ``a = fn(a, elems[i])`` over the first axis; returns every ``a`` stacked.

    Parameters
    ----------
    fn : callable
        ``fn(accumulator, element)`` returning a new accumulator (the structure and dtypes of
        ``initializer``, or of ``elems`` without one).
    elems : tensor or (nested) sequence of tensors
    initializer : tensor or structure, optional
        The first accumulator; without it, ``elems[0]`` is (and is the first output).
    reverse : bool
        Visit the elements last to first (outputs stay in the elements' order).
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable. Got: {fn}")
    if initializer is not None:
        initializer = nest.map_structure(convert_to_tensor, initializer)
    structure, rows, order, acc, steps = _accumulated(elems, initializer, reverse)
    for i in order:
        acc = fn(acc, rows[i])
        nest.assert_same_structure(structure, acc, check_types=False)
        steps.append((i, acc))
    specs = [(_dtypes.of_array(convert_to_tensor(x).array), None) for x in nest.flatten(structure)]
    count = len(rows.columns[0])
    return _results_stacked(count, [(i, nest.flatten(a)) for i, a in steps], structure, specs, infer_shape)


def _fold(fn, elems, initializer, reverse):
    if not callable(fn):
        raise TypeError(f"{fn} is not callable. Please provide a callable function.")
    _, rows, order, acc, _ = _accumulated(elems, initializer, reverse)
    for i in order:
        acc = fn(acc, rows[i])
    return nest.map_structure(convert_to_tensor, acc)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])`` (``elems[0]`` starts without initializer).

    Parameters
    ----------
    fn : callable
        ``fn(accumulator, element)``.
    elems : tensor or (nested) sequence of tensors
    initializer : optional
        The first accumulator.
    """
    return _fold(fn, elems, initializer, False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``foldl`` visiting the elements last to first."""
    return _fold(fn, elems, initializer, True)


# -- Python functions as ops -----------------------------------------------------------------------
def _out_specs(Tout):  # noqa: N803  (TF's argument name)
    """(flat output dtypes, structure to pack into or None for a single output)."""
    if isinstance(Tout, (list, tuple)):
        return [_spec(t)[0] for t in nest.flatten(Tout)], Tout
    return [_spec(Tout)[0]], None


def _outputs(result, dtypes, structure, fn_name, convert):
    """``result`` of the Python function as tensors of ``dtypes`` (InvalidArgumentError naming ``fn_name``)."""
    values = [] if result is None else [result] if structure is None else nest.flatten(result)
    if structure is not None and not isinstance(result, (list, tuple)) and result is not None:
        values = [result]
    if len(values) != len(dtypes):
        raise op_error(f"{fn_name} returns {len(values)} values, but expects to see {len(dtypes)} values.",
                       "EagerPyFunc")
    return [convert(v, d) for v, d in zip(values, dtypes)]


def _packed(tensors, structure):
    if structure is None:
        return tensors[0]
    return list(tensors) if not nest.flatten(structure) else nest.pack_sequence_as(structure, tensors)


def _python_op(func, inp, Tout, call_eagerly, convert, fn_name):  # noqa: N803
    """A Python function as an op: called now eagerly, or at every run of the tf.function being traced."""
    dtypes, structure = _out_specs(Tout)
    trace = current_trace() if _tracing else None
    if trace is None:
        return _packed(_outputs(call_eagerly(func, list(inp or [])), dtypes, structure, fn_name, convert), structure)
    inputs = [convert_to_tensor(x) for x in (inp or [])]

    def run(*arrays):
        with init_scope():  # func runs eagerly: its ops are not recorded into the graph being traced
            tensors = _outputs(call_eagerly(func, [wrap(a) for a in arrays]), dtypes, structure, fn_name, _strict)
        return tuple(t.array for t in tensors) if tensors else (np.zeros((), np.bool_),)

    outputs = callback(trace, run, *inputs)
    return _packed(list(outputs[:len(dtypes)]), structure)


def _strict(value, dtype):
    """A Python function's result converted to the declared ``dtype`` (InvalidArgumentError otherwise)."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise op_error(f"{type(e).__name__}: {e}", "EagerPyFunc") from None


def _call_with_tensors(func, inputs):
    return func(*[convert_to_tensor(x) for x in inputs])


def _call_with_arrays(func, inputs):
    """numpy_function's call: tensors as numpy arrays, other inputs through ``np.asarray`` (as eager TF)."""
    return func(*[np.array(convert_to_tensor(x).array) if is_tensor_like(x) else np.asarray(x) for x in inputs])


def _loose(value, dtype):
    """Eager numpy_function's conversion: numpy results keep their dtype, Python values take ``dtype``."""
    if isinstance(value, (np.ndarray, np.generic)):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype_hint=dtype)


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803  (TF's argument names)
    """Call the Python function ``func`` on eager tensors (at every call of a tf.function using it).

    Parameters
    ----------
    func : callable
        Takes the tensors of ``inp``; returns tensors or values convertible to ``Tout``.
    inp : list of tensors
    Tout : DType, or list/tuple of DTypes
        A single dtype gives a single tensor; a list gives a list (empty: ``func`` returns None).

    Notes
    -----
    Eagerly (and when a tape records a tf.function's call, which vfw runs eagerly) gradients flow
    through ``func``'s ops; inside a traced graph the op has no gradient.
    """
    return _decorator_or_op(func, inp, "py_function",
                            lambda f, args: _python_op(f, args, Tout, _call_with_tensors, _strict, "pyfunc"))


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803  (TF's argument names)
    """Call ``func`` on numpy arrays (at every call of a tf.function using it); not differentiable.

    Parameters
    ----------
    func : callable
        Takes numpy arrays, returns numpy arrays or Python values. Eagerly, numpy results keep
        their dtype (as in TF); inside a tf.function they must have ``Tout``'s dtypes.
    inp : list of tensors or arrays
    Tout : DType, or list/tuple of DTypes
    stateful, name
        Accepted for compatibility.
    """
    return _decorator_or_op(func, inp, "numpy_function",
                            lambda f, args: _python_op(f, args, Tout, _call_with_arrays, _loose, "pyfunc"))


def _decorator_or_op(func, inp, api_name, make_op):
    """``make_op(func, inp)``; with ``func=None`` a decorator whose functions run as ``make_op(f, call_args)``."""
    if func is None:
        def decorator(f):
            @functools.wraps(f)
            def wrapper(*args):
                return make_op(f, list(args))
            return wrapper
        return decorator
    if inp is None:
        raise TypeError(f"tf.{api_name}: missing argument `inp` (the list of the function's arguments); it may be "
                        f"left out only when tf.{api_name} decorates a function (`func=None`).")
    return make_op(func, inp)


NAMESPACES = {"tf": ["map_fn", "scan", "foldl", "foldr", "vectorized_map", "py_function", "numpy_function"]}
TENSOR_METHODS = {}
