"""tf.custom_gradient and tf.recompute_grad.

``f(*args)`` runs without recording (the engine's grad mode off) while a variable watcher notes
the variables it reads; when a tape records, its outputs are attached to one engine node whose
backward calls the user's ``grad_fn`` on tf tensors.  The node's inputs are the arguments and
the tensors read from those variables, so tapes route ``grad_fn``'s variable gradients to them.
"""

import functools
import inspect

from vfw.core import autograd
from vfw.frontends.tensorflow import _dispatch, _tape_state, nest
from vfw.frontends.tensorflow._dtypes import of_array

_FLOATS = autograd.dt.FLOATS


class _VariableWatcher:
    """Collects the variables read while it is active (an observer of ``_tape_state``)."""

    records_ops = False

    def __init__(self):
        self.variables = {}

    def variable_read(self, variable, value):
        self.variables.setdefault(id(variable), variable)

    def __enter__(self):
        _tape_state.push(self)
        return self

    def __exit__(self, *exc):
        _tape_state.pop(self)
        return False


def _accepts_variables(grad_fn):
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind == p.VAR_KEYWORD for p in params)


def _as_input(arg):
    """An argument as a node input: a tensor (variables are read), or None when it is not tensor-like."""
    try:
        return _dispatch.convert_to_tensor(arg)
    except (TypeError, ValueError):
        return None


def _gradients_of(values, inputs, what):
    """``values`` returned by ``grad_fn`` (one per input) as tensors or None."""
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if len(values) != len(inputs):
        raise ValueError(f"custom_gradient function expected to return {len(inputs)} gradients, but returned "
                         f"{len(values)} instead." if what == "inputs" else
                         "Must return gradient for each variable from @custom_gradient grad_fn.")
    return [None if g is None or x is None else
            _dispatch.convert_to_tensor(g, dtype_hint=of_array(x.array)) for g, x in zip(values, inputs)]


def custom_gradient(f=None):
    """Decorator: ``f(*args)`` returns ``(outputs, grad_fn)`` and ``grad_fn`` defines the gradient.

    ``grad_fn(*output_gradients)`` returns one gradient (tensor or None) per tensor of the
    arguments (nested structures flattened; a variable passed as an argument is one of them); when
    ``f`` reads other variables, ``grad_fn(*output_gradients, variables=[...])`` returns
    ``(argument_gradients, variable_gradients)``.  Keyword arguments of ``f`` are passed
    through and not differentiated.  Outputs may be a tensor or a nested structure of tensors.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        with _VariableWatcher() as watcher, autograd.no_grad():
            result, grad_fn = f(*args, **kwargs)
        # as in TF, a variable passed as an argument is an input (its gradient is an argument gradient), not one of
        # the variables `grad_fn` must take
        flat_args = nest.flatten(args)  # grad_fn returns one gradient per tensor of the (nested) arguments
        given = {id(a) for a in flat_args + nest.flatten(kwargs)}
        variables = [v for key, v in watcher.variables.items() if key not in given]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                            f"uses variables: {variables}")
        if not _tape_state.recording() or not autograd.is_grad_enabled():
            return result
        arg_inputs = [_as_input(a) for a in flat_args]
        var_inputs = [v._as_tensor() for v in variables]  # read now: recording tapes watch them
        inputs = arg_inputs + var_inputs
        if not any(x is not None and x.requires_grad for x in inputs):
            return result
        outputs = [_dispatch.wrap(_dispatch.convert_to_tensor(o).array) for o in nest.flatten(result)]

        def backward(*output_grads):
            upstream = [_dispatch.as_tf(g) for g in output_grads]
            if variables:
                grads, var_grads = grad_fn(*upstream, variables=variables)
                return tuple(_gradients_of(grads, arg_inputs, "inputs") +
                             _gradients_of(var_grads, var_inputs, "variables"))
            return tuple(_gradients_of(grad_fn(*upstream), arg_inputs, "inputs"))

        node = autograd.Node(None, tuple(inputs), tuple(o.array for o in outputs), backward_fn=backward)
        for slot, out in enumerate(outputs):
            if out.array.dtype in _FLOATS:
                out.requires_grad = True
                out.grad_node = node
                out.grad_slot = slot
        return nest.pack_sequence_as(result, outputs)

    return decorated


def recompute_grad(f):
    """``f`` with the same values and gradients (TF recomputes activations in backward to save memory; vfw
    keeps them)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)

    return inner

