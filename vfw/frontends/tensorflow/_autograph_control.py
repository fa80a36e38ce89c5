"""AutoGraph's control-flow helpers: ``if``/``while``/``for`` statements of converted code.

On a Python value (or a tensor outside a graph trace) each runs the statement as Python.  On a
tensor while a tf.function is traced, the statement becomes ``tf.cond``/``tf.while_loop`` (see
``_control_flow``) over its variables, with TF's rules:

- a conditional's outputs are the variables it assigns that are read afterwards; one defined in
  a single branch is TF's ValueError ("'y' must also be initialized in the else branch"), one
  whose dtype differs between the branches TF's TypeError; a conditional whose paths return needs
  a return on every path (ValueError);
- a loop's variables are those it assigns that are read afterwards or in a later iteration; they
  keep their dtype and shape (``set_loop_options(shape_invariants=...)`` relaxes shapes), one used
  after the loop but first assigned inside it starts from zeros of the type the body gives it;
  ``return`` inside a graph loop is TF's NotImplementedError;
- ``for`` over a tensor loops over its first dimension in the graph (over a ``tf.data`` dataset or
  iterator: :mod:`_autograph_datasets`); a Python ``for`` whose ``break`` or ``return`` depends on
  a tensor is TF's NotImplementedError.
"""

import numpy as np

from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _composites, _control_flow, _dispatch, _dtypes, nest


class _NoReturn:
    def __repr__(self):
        return "NO_RETURN"


NO_RETURN = _NoReturn()  # the value of a path of a converted ``if`` that falls off the function's end


class Undefined:
    """The value of a variable not assigned yet (reading it is an error)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Undefined({self.name!r})"

    def __getattr__(self, attr):
        raise AttributeError(f"'{self.name}' is used before it is assigned (reading its attribute {attr!r})")

    def __bool__(self):
        raise UnboundLocalError(f"local variable '{self.name}' referenced before assignment")


def _graph_value(x):
    return (isinstance(x, CoreTensor) or hasattr(x, "_as_tensor")) and _control_flow._tracing_now()


def predicate(test, what):
    """``test`` as the bool scalar tensor of a graph cond (TF's ValueError for another dtype)."""
    tensor = _dispatch.convert_to_tensor(test)
    if _dtypes.of_array(tensor.array) != _dtypes.bool:
        raise ValueError(f"condition of {what} expected to be `tf.bool` scalar, got {tensor!r}; to use as boolean "
                         "Tensor, use `tf.cast`; to check for None, use `is not None`")
    return tensor


def _dtype_name(value):
    try:
        return _dtypes.of_array(_dispatch.convert_to_tensor(value).array).name
    except (TypeError, ValueError):
        return None


# -- if ---------------------------------------------------------------------------------------------
def if_stmt(test, true_fn, false_fn, init, names, live):
    """The new values of ``names`` after ``if test: true_fn else: false_fn`` (each a function of the old ones)."""
    if not _graph_value(test):
        return true_fn(*init) if test else false_fn(*init)
    keep = [i for i, name in enumerate(names) if name in live]
    outputs = [None, None]

    def branch(fn, slot):
        def run():
            new = fn(*init)
            outputs[slot] = [new[i] for i in keep]
            return [False if isinstance(v, Undefined) else v for v in outputs[slot]]
        return run

    def check():
        if None in outputs:
            return  # a branch failing on the traced values (raised if a call takes it)
        for k, i in enumerate(keep):
            a, b = outputs[0][k], outputs[1][k]
            for value, other, missing in ((a, b, "else"), (b, a, "main")):
                if isinstance(other, Undefined) and not isinstance(value, Undefined):
                    raise ValueError(f"'{names[i]}' must also be initialized in the {missing} branch")
            if isinstance(a, Undefined):
                raise ValueError(f"'{names[i]}' must be defined before the if statement")
            if not nest.is_nested(a) and not nest.is_nested(b):
                da, db = _dtype_name(a), _dtype_name(b)
                if da is not None and db is not None and da != db:
                    raise TypeError(f"'{names[i]}' has dtype {da} in the main branch, but dtype {db} in the else "
                                    "branch")

    result = _control_flow._graph_cond(predicate(test, "if statement"), branch(true_fn, 0), branch(false_fn, 1),
                                       ("true_fn", "false_fn"), check)
    new = [Undefined(name) for name in names]  # variables local to the branches
    for i, value in zip(keep, result):
        new[i] = value
    return tuple(new)


def if_return(test, true_fn, false_fn, init):
    """The function's result for ``if test: <paths returning> else: <paths returning>``."""
    if not _graph_value(test):
        return true_fn(*init) if test else false_fn(*init)
    results = [None, None]

    def branch(fn, slot):
        def run():
            results[slot] = fn(*init)
            return None if results[slot] is NO_RETURN else results[slot]
        return run

    def check():
        for slot, missing in ((0, "else"), (1, "main")):
            if results[slot] is not None and results[slot] is not NO_RETURN and results[1 - slot] is NO_RETURN:
                raise ValueError(f"the {missing} branch must also have a return statement.")

    out = _control_flow._graph_cond(predicate(test, "if statement"), branch(true_fn, 0), branch(false_fn, 1),
                                    ("true_fn", "false_fn"), check)
    return NO_RETURN if results[0] is NO_RETURN else out


# -- loops ------------------------------------------------------------------------------------------
def loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None):
    """The options of ``tf.autograph.experimental.set_loop_options`` at the top of a loop body."""
    return {"maximum_iterations": maximum_iterations, "shape_invariants": shape_invariants or ()}


def _refuse_return():
    raise NotImplementedError("a return statement cannot be placed inside this TensorFlow loop; this may happen if a "
                              "return statement depends on a static Python condition such as a hyperparameter")


def while_stmt(test, body, init, names, live, options, has_return):
    """The values of ``names`` after ``while test(...): body(...)``."""
    state = tuple(init)
    while True:
        going = test(*state)
        if _graph_value(going):
            if has_return:
                _refuse_return()
            return _GraphLoop(names, live, options).run(state, test, body)
        if not going:
            return state
        state = body(*state)


def for_stmt(iterable, extra_test, body, init, names, live, options, has_return):
    """The values of ``names`` after ``for item in iterable: body(item, ...)`` (while ``extra_test(...)``)."""
    if _graph_value(iterable):
        if has_return:
            _refuse_return()
        return _for_tensor(_dispatch.convert_to_tensor(iterable), extra_test, body, init, names, live, options)
    state = tuple(init)
    for item in iterable:
        if extra_test is not None:
            going = extra_test(*state)
            if _graph_value(going):
                raise NotImplementedError("break and return statements which depend on a TF condition are not "
                                          "supported in Python for loops. Did you intend to make it a TF loop?")
            if not going:
                break
        state = body(item, *state)
    return state


def _for_tensor(tensor, extra_test, body, init, names, live, options):
    from vfw.frontends.tensorflow._creation import shape
    from vfw.frontends.tensorflow._shape import TensorShape

    if tensor.array.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")

    # The iterated tensor and its length are loop variables (the length may follow the call's values, as
    # tf.range(n)'s, which the outer graph computes).
    def test(index, count, iterated, *state):
        going = index < count
        if extra_test is None:
            return going
        more = extra_test(*state)
        return going if more is True else _control_flow.cond(going, lambda: more, lambda: going)

    def step(index, count, iterated, *state):
        return (index + 1, count, iterated, *body(iterated[index], *state))

    options = dict(options or {})
    invariant = (tensor, TensorShape([None, *tensor.array.shape[1:]]))
    options["shape_invariants"] = [*options.get("shape_invariants", ()), invariant]
    start = _dispatch.wrap(np.array(0, np.int32))
    own = ("ag__index", "ag__count", "ag__iterated")
    count = shape(tensor, out_type=_dtypes.int32)[0]
    return _GraphLoop((*own, *names), (*own, *live), options).run((start, count, tensor, *init), test, step)[3:]


class _GraphLoop:
    """A tf.while_loop over the live variables of a converted loop."""

    def __init__(self, names, live, options, undefined_zeros=True):
        self.names = names
        self.keep = [i for i, name in enumerate(names) if name in live]
        self.options = options or {}
        self.undefined_zeros = undefined_zeros  # a variable first assigned in the body starts from zeros (else: error)

    def run(self, state, test, body):
        state = list(state)
        missing = [i for i in self.keep if isinstance(state[i], Undefined)]
        if missing and not self.undefined_zeros:
            raise ValueError(f"'{self.names[missing[0]]}' must be defined before the loop")
        if missing:
            state = self._zeros_for(missing, state, body)
        loop_vars = [state[i] for i in self.keep]
        for i, value in zip(self.keep, loop_vars):
            if value is None or not _convertible(value):
                raise ValueError(f"'{self.names[i]}' must be a tensor or a structure of tensors to be a loop "
                                 f"variable of a TensorFlow loop, got {value!r}")

        def full(values):
            current = list(state)
            for i, value in zip(self.keep, values):
                current[i] = value
            return current

        def step(*values):
            new = body(*full(values))
            out = [new[i] for i in self.keep]
            for i, value in zip(self.keep, out):
                if isinstance(value, Undefined):
                    raise ValueError(f"'{self.names[i]}' must be defined before the loop.")
            return out

        limit = self.options.get("maximum_iterations")
        if limit is not None:
            limit = _dispatch.convert_to_tensor(limit, dtype=_dtypes.int32)
        final = _control_flow._graph_while(lambda *values: test(*full(values)), step, loop_vars,
                                           self._invariants(loop_vars), limit, [self.names[i] for i in self.keep])
        new = [Undefined(name) for name in self.names]  # variables local to the body
        for i, value in zip(self.keep, final):
            new[i] = value
        return tuple(new)

    def _zeros_for(self, missing, state, body):
        """Zeros of the type the body gives the variables used after the loop but first assigned inside it (a
        trial run of the body, its effects undone)."""
        with SubgraphTrace("autograph_loop_init", None):
            trial = body(*state)
        state = list(state)
        for i in missing:
            value = trial[i]
            if isinstance(value, Undefined) or value is None:
                raise ValueError(f"'{self.names[i]}' must be defined before the loop.")
            state[i] = nest.map_structure(
                lambda v: _dispatch.wrap(np.zeros_like(_dispatch.convert_to_tensor(v).array)), value)
        return state

    def _invariants(self, loop_vars):
        pairs = self.options.get("shape_invariants") or ()
        if not pairs:
            return None
        from vfw.frontends.tensorflow._shape import TensorShape

        flat = [v for var in loop_vars for v in nest.flatten(var)]
        chosen = [None] * len(flat)
        for tensor, shape in pairs:
            for k, v in enumerate(flat):
                if v is tensor:
                    chosen[k] = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        return chosen


def _convertible(value):
    try:
        for leaf in _composites.flatten_components(value):  # a TensorArray: its component tensors
            _dispatch.convert_to_tensor(leaf)
    except (TypeError, ValueError):
        return False
    return True
