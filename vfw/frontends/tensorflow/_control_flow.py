"""tf.cond, tf.while_loop, tf.case, tf.switch_case.

Eagerly they run Python control flow.  While a tf.function is traced they become graph control
flow: the branches and the loop body are traced into subgraphs (both branches of a cond are
traced, as in TF) and run by ``If``/``Loop`` engine ops (see ``vfw.core.graph.control_flow``),
so a later call takes the branch and the number of iterations its own values select.  A branch
that fails while traced (only the branch the traced values do not select may: the other one is
what the call computes) raises the same error when a later call takes it.

Python ``if``/``while``/``for`` on tensors in a tf.function are converted into these by AutoGraph
(``_autograph_*``).  In code AutoGraph does not convert (``autograph=False``, library code), a
tensor used as a Python ``bool`` while a tf.function is traced raises
``OperatorNotAllowedInGraphError`` naming these functions (freezing the branch of the traced
values would silently give wrong results later), and ``tensor.numpy()`` raises TF's AttributeError.
"""

import numpy as np

from vfw.core.errors import OpInputError
from vfw.core.graph.control_flow import run_if, run_loop
from vfw.core.graph.subgraph import trace_subgraph
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _composites, _dispatch, _dtypes, _function, errors, nest
from vfw.frontends.tensorflow._tensor import Tensor


def _tracing_now():
    return bool(_tracing) and current_trace() is not None


# -- code AutoGraph does not convert -------------------------------------------------------------
def _tensor_bool(self):
    """``bool(tensor)``: the value eagerly; refused while a tf.function is traced (in code AutoGraph converts,
    ``if``/``while`` on a tensor never call it)."""
    if _tracing and _function.in_function_trace() and current_trace() is not None:
        raise errors.OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: in code AutoGraph does not convert "
            "(autograph=False, library code, functions without source, match statements) Python `if`/`while` on a "
            "tensor would freeze the value it had when traced. Use tf.cond / tf.case / tf.switch_case for branches "
            "and tf.while_loop for loops on tensor values.")
    return bool(self.array)


_eager_numpy = Tensor.numpy


def _tensor_numpy(self):
    """``tensor.numpy()``: the value eagerly; refused while a tf.function is traced, as TF's symbolic tensors
    have no value then (vfw's traced tensors do, but a graph run would keep returning the traced one)."""
    if _tracing and _function.in_function_trace() and current_trace() is not None:
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy' (inside tf.function a tensor has no "
                             "value to read: return it, or print it with tf.print)")
    return _eager_numpy(self)


# -- helpers -------------------------------------------------------------------------------------
def _as_tensor(x, what):
    if x is None:
        raise ValueError(f"{what}: None values not supported.")
    if _composites.is_composite(x):
        return x  # a TensorArray: eager loops carry the object
    return _dispatch.convert_to_tensor(x)


def _flat_tensors(structure, what):
    """The tensors of ``structure``, composite values (TensorArrays) as their component tensors."""
    return [_as_tensor(x, what) for x in _composites.flatten_components(structure)]


def _branch(fn, record, name):
    """Trace ``fn()`` for an If: its results flattened to tensors; their structure goes into ``record``."""
    def traced():
        result = fn()
        record.append(result)
        return [] if result is None else _flat_tensors(result, name)
    return trace_subgraph(traced, [], name)


def _scalar_pred(pred, what):
    """A predicate for a graph op: a bool tensor (TF's InvalidArgumentError for other dtypes)."""
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("pred must not be a Python bool", pred)
    tensor = _dispatch.convert_to_tensor(pred)
    dtype = _dtypes.of_array(tensor.array)
    if dtype != _dtypes.bool:
        raise _dispatch.op_error(f"Input '{what}' passed {dtype.name} expected bool", f"__inference_{what}")
    if tensor.array.size != 1:
        raise _function.run_time_error(f"The second input must be a scalar, but it has shape "
                                       f"{list(tensor.array.shape)}", f"__inference_{what}")
    return tensor


def _check_branches(results, names):
    """TF's errors for branches whose results differ in structure or dtypes."""
    a, b = results
    if (a is None) != (b is None):
        raise ValueError(f"Lengths of branch outputs of cond must match.\nlen(graphs[0].outputs): "
                         f"{0 if a is None else len(nest.flatten(a))}\nlen(graphs[1].outputs): "
                         f"{0 if b is None else len(nest.flatten(b))}")
    if a is None:
        return
    message = (f"true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of "
               f"return values.\n\n{names[0]} output: {a!r}\n{names[1]} output: {b!r}")
    if len(nest.flatten(a)) != len(nest.flatten(b)):  # TF's check of the output counts comes first
        raise AssertionError([len(nest.flatten(a)), len(nest.flatten(b))])
    try:
        nest.assert_same_structure(a, b)
    except (ValueError, TypeError):
        raise TypeError(message) from None
    for x, y in zip(_flat_tensors(a, "cond"), _flat_tensors(b, "cond")):
        if x.array.dtype != y.array.dtype:
            raise TypeError(message)


# -- tf.cond -------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``.

    Parameters
    ----------
    pred : scalar bool tensor (or Python bool, eagerly)
    true_fn, false_fn : callable
        Functions of no arguments returning the same structure of tensors.
    name : str, optional

    Returns
    -------
    The chosen function's result (inside tf.function: tensors, from an ``If`` op).
    """
    for what, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if fn is None:
            raise TypeError(f"cond(): '{what}' argument required")
        if not callable(fn):
            raise TypeError(f"'{what}' must be callable.")
    if not _tracing_now():
        return true_fn() if pred else false_fn()
    return _graph_cond(_scalar_pred(pred, "pred"), true_fn, false_fn, ("true_fn", "false_fn"))


def _graph_cond(pred, true_fn, false_fn, names, check=None):
    """An ``If`` op over the traced branches; returns the structure of the true branch.  ``check()``, if given,
    runs once both branches are traced (AutoGraph's checks of its variables, before the generic ones)."""
    taken = 0 if bool(pred.array.reshape(-1)[0]) else 1
    fns = (true_fn, false_fn)
    results = [[], []]
    subs = [None, None]
    subs[taken] = _branch(fns[taken], results[taken], f"cond_{names[taken]}")
    try:
        subs[1 - taken] = _branch(fns[1 - taken], results[1 - taken], f"cond_{names[1 - taken]}")
    except errors.InvalidArgumentError as error:  # a kernel failing on these values: raised if a call takes it
        if _function.graph_error(error) is not error:
            raise  # a shape or dtype error, which TF raises while it builds the graph
        subs[1 - taken] = _raising_branch(error, subs[taken])
        results[1 - taken] = results[taken]
    if check is not None:
        check()
    _check_branches([r[0] for r in results], names)
    outputs = run_if(pred, subs, "cond")
    first = results[0][0]
    return None if first is None else _composites.pack_components(first, [_dispatch.as_tf(t) for t in outputs])


def _raising_branch(error, like):
    """A branch raising ``error`` when a graph run takes it, with the outputs of the branch ``like``."""
    armed = []
    templates = [t.array for t in like.outputs] or [np.zeros((), np.bool_)]

    def run():
        if armed:
            raise OpInputError(str(error))
        return tuple(np.zeros(a.shape, a.dtype) for a in templates)  # the tracing run only (nothing reads it)

    def traced():
        outputs = _dispatch.callback(current_trace(), run)
        return list(outputs[:len(like.outputs)])

    sub = trace_subgraph(traced, [], "cond_failed")
    armed.append(True)
    return sub


# -- tf.while_loop -------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``.

    Parameters
    ----------
    cond, body : callable
        Take the loop variables as positional arguments; ``body`` returns new values with the
        structure, dtypes and (unless ``shape_invariants`` relax them) shapes of ``loop_vars``.
    loop_vars : (nested) list or tuple of tensors
    shape_invariants : structure of TensorShape, optional
        Shapes the loop variables keep (None dims may change across iterations).
    maximum_iterations : int or int32 tensor, optional
        Stop after this many iterations.
    parallel_iterations, back_prop, swap_memory, name
        Accepted for compatibility.

    Returns
    -------
    The final loop variables (eagerly: as ``body`` returned them; inside tf.function: in the
    structure of ``loop_vars``).
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    tracing = _tracing_now()
    if not tracing and not isinstance(loop_vars, CoreTensor) and not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    limit = None
    if maximum_iterations is not None:  # eagerly any number (truncated), in a graph an int32
        limit = _dispatch.convert_to_tensor(maximum_iterations, dtype=_dtypes.int32 if tracing else None)
    if not tracing:
        return _eager_while(cond, body, loop_vars, limit)
    return _graph_while(cond, body, loop_vars, shape_invariants, limit)


def _eager_while(cond, body, loop_vars, limit):
    count = 0
    while cond(*loop_vars):
        if limit is not None and count >= int(limit.array):
            break
        loop_vars = body(*loop_vars)
        count += 1
    return nest.pack_sequence_as(loop_vars, [_as_tensor(x, "while_loop") for x in nest.flatten(loop_vars)])


def _graph_while(cond, body, loop_vars, shape_invariants, limit, names=None):
    """A ``Loop`` op; ``names``: the loop variables' names (AutoGraph's loops: TF's messages name them), and
    ``shape_invariants`` may hold None for variables keeping their shapes."""
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(f"object of type '{type(loop_vars).__name__}' has no len()")
    loop_vars = _composites.settled(loop_vars, body)  # TensorArrays whose element shape the body decides
    initial = [_dispatch.as_tf(t) for t in _flat_tensors(loop_vars, "while_loop")]
    invariants = _composites.component_invariants(
        loop_vars, None if shape_invariants is None else nest.flatten(shape_invariants))
    flat_names = [None] * len(initial)
    if names is not None:
        flat_names = [name for name, var in zip(names, loop_vars) for _ in _composites.flatten_components(var)]

    def packed(values):
        return _composites.pack_components(loop_vars, values)

    def step(iteration, going, *values):
        result = body(*packed(values))
        if not nest.is_nested(result) and len(initial) == 1:
            result = [result]
        nest.assert_same_structure(result, loop_vars, check_types=False)
        new = [_dispatch.as_tf(t) for t in _flat_tensors(result, "while_loop")]
        for k, (old, value) in enumerate(zip(initial, new)):
            _check_loop_var(old, value, None if invariants is None else invariants[k], flat_names[k])
        return [_loop_pred(cond(*packed(new))), *new]

    start = _loop_pred(cond(*loop_vars))
    inputs = [_dispatch.wrap(np.array(0, np.int64)), _dispatch.wrap(np.array(True))]
    inputs += [_dispatch.wrap(t.array.copy()) for t in initial]  # memory of their own: not the outer values
    varying = {}
    for k, invariant in enumerate(invariants or ()):
        if invariant is None:
            continue
        if invariant.rank is None or None in invariant.as_list():
            varying[k] = None if invariant.rank is None else invariant.as_list()
    sub = trace_subgraph(step, inputs, "while_body", {2 + k: dims for k, dims in varying.items()})
    trips = None if limit is None else _dispatch.call("Cast", limit, to=7)
    final = run_loop(trips, start, initial, sub, "while", varying)
    return _composites.pack_components(loop_vars, [_dispatch.as_tf(t) for t in final])


def _loop_pred(value):
    tensor = _dispatch.convert_to_tensor(value)
    dtype = _dtypes.of_array(tensor.array)
    if dtype != _dtypes.bool:
        raise _dispatch.op_error(f"Input 'input' passed {dtype.name} expected bool", "__inference_while")
    if tensor.array.size != 1:
        raise _function.run_time_error(f"The second input must be a scalar, but it has shape "
                                       f"{list(tensor.array.shape)}", "__inference_while")
    return tensor


def _check_loop_var(old, new, invariant, name=None):
    if name is not None:  # an AutoGraph loop: TF's messages name the variable
        if old.array.dtype != new.array.dtype:
            raise TypeError(f"'{name}' has dtype {_dtypes.of_array(old.array).name} before the loop, but dtype "
                            f"{_dtypes.of_array(new.array).name} after one iteration")
        if (old.array.shape != new.array.shape if invariant is None else
                not invariant.is_compatible_with(new.array.shape)):
            raise ValueError(f"'{name}' has shape {old.array.shape} before the loop, but shape {new.array.shape} "
                             "after one iteration. Use tf.autograph.experimental.set_loop_options to set shape "
                             "invariants.")
        return
    if old.array.dtype != new.array.dtype:
        raise TypeError(f"Loop var {old!r} enters the loop with type {_dtypes.of_array(old.array)!r} but has type "
                        f"{_dtypes.of_array(new.array)!r} after 1 iteration. The type should remain constant.")
    if invariant is None:
        if old.array.shape != new.array.shape:
            raise ValueError(f"Input tensor enters the loop with shape {old.array.shape}, but has shape "
                             f"{new.array.shape} after one iteration. To allow the shape to vary across iterations, "
                             "use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
    elif not invariant.is_compatible_with(new.array.shape):
        raise ValueError(f"Input tensor enters the loop with shape {old.array.shape}, but has shape "
                         f"{new.array.shape} after one iteration, which is not compatible with its shape invariant "
                         f"{invariant}.")


# -- tf.case / tf.switch_case --------------------------------------------------------------------
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first pair whose predicate holds (``default``, if given, when none does).

    Parameters
    ----------
    pred_fn_pairs : list or tuple of (bool tensor, callable) pairs, or a dict
    default : callable, optional
        Without it, no predicate holding raises InvalidArgumentError.
    exclusive, strict, name
        Accepted for compatibility (TF 2.21 does not check ``exclusive`` either: the first pair whose
        predicate holds wins).
    """
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        if not callable(pair[1]):
            raise TypeError("fn for pred must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    if not pairs:
        if default is None:
            raise ValueError("not enough values to unpack (expected 2, got 0)")
        return default()
    preds = [_dispatch.convert_to_tensor(p) for p, _ in pairs]
    if not _tracing_now():
        truth = [bool(p.array) for p in preds]
        for value, (_, fn) in zip(truth, pairs):
            if value:
                return fn()
        if default is None:
            raise _no_case(truth)
        return default()
    if default is None:
        _assert_some(preds)
        default = pairs[-1][1]
    fn = default
    for pred, (_, branch) in reversed(list(zip(preds, pairs))):
        fn = _chained(pred, branch, fn)
    return fn()


def _chained(pred, fn, otherwise):
    return lambda: _graph_cond(_scalar_pred(pred, "pred"), fn, otherwise, ("true_fn", "false_fn"))


def _no_case(truth):
    values = ", ".join(str(t) for t in truth)
    return _function.run_time_error(f"assertion failed: [Input error: None of conditions evaluated as True:] "
                                    f"[{values}]", None)


def _assert_some(preds):
    """A PyFunc raising TF's assertion error when no predicate holds (checked now, on the traced values, too)."""
    def check(*arrays):
        truth = [bool(a.reshape(-1)[0]) for a in arrays]
        if not any(truth):
            raise OpInputError(str(_no_case(truth)))
        return np.zeros((), np.bool_)

    truth = [bool(p.array.reshape(-1)[0]) for p in preds]
    if not any(truth):
        raise _no_case(truth)
    _dispatch.callback(current_trace(), check, *preds)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()``; out of range: ``default()`` (the last branch when none is given).

    Parameters
    ----------
    branch_index : int32 or int64 scalar tensor
    branch_fns : list of callables, of (index, callable) pairs, or dict index -> callable
        Indices must be 0, 1, ... n-1.
    default : callable, optional
    name : str
    """
    if not isinstance(branch_index, CoreTensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    index = _dispatch.as_tf(branch_index)
    dtype = _dtypes.of_array(index.array)
    if not dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {dtype!r}")
    fns = _branch_functions(branch_fns)
    if default is None:
        default = fns[-1]
    if not _tracing_now():
        k = int(index.array)
        return fns[k]() if 0 <= k < len(fns) else default()
    if dtype != _dtypes.int32:
        raise TypeError(f"Input 'branch_index' of 'StatelessCase' Op has type {dtype.name} that does not match "
                        "expected type of int32.")
    fn = default
    for k in reversed(range(len(fns))):
        equal = _dispatch.call("Equal", index, np.array(k, index.array.dtype))
        fn = _chained(equal, fns[k], fn)
    return fn()


def _branch_functions(branch_fns):
    """The branch functions in index order, with TF's errors for malformed ``branch_fns``."""
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    items = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(f) for f in items):
        return items
    for item in items:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {item!r}.")
        if not callable(item[1]):
            raise TypeError(f"fn for branch {item[0]} must be callable.")
    keys = sorted(k for k, _ in items)
    if keys != list(range(len(items))):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to {len(items)}) but found "
                         f"{{{','.join(str(k) for k in keys)}}}")
    return [fn for _, fn in sorted(items, key=lambda kv: kv[0])]


NAMESPACES = {"tf": ["cond", "while_loop", "case", "switch_case"]}
TENSOR_METHODS = {"__bool__": _tensor_bool, "numpy": _tensor_numpy}
