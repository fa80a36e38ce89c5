"""What ``Layer.__call__`` works out about a call: its arguments, shapes, context arguments and masks.

- ``CallSpec``: the call's arguments bound to the signature of ``call`` (tensor arguments found,
  nested ones included), and which of them the user passed.
- ``shapes_dict`` / ``shapes_for``: the ``{"<arg>_shape": shape}`` dict that ``build`` and
  ``compute_output_shape`` receive (one parameter: the first shape; several: matched by name).
- ``CallContext``: the ``training`` value (and other context arguments) flowing from an outer
  layer call to the layers it calls.
- ``get_keras_mask`` / ``set_keras_mask``: the ``_keras_mask`` attribute masks travel on.
"""

import inspect
import threading

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_shape
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor


def is_tensor_or_symbolic(x, allow_none=False):
    """Whether ``x`` is a tf tensor, a Keras variable or a KerasTensor (or None with ``allow_none``)."""
    if x is None:
        return allow_none
    from vfw.frontends.tensorflow._tensor import Tensor

    return isinstance(x, (Tensor, KerasTensor)) or hasattr(type(x), "_as_tensor")


def get_keras_mask(x):
    """The mask attached to ``x`` (None when none)."""
    return getattr(x, "_keras_mask", None)


def set_keras_mask(x, mask):
    """Attach ``mask`` to ``x`` (a tf tensor or KerasTensor)."""
    try:
        x._keras_mask = mask
    except AttributeError:
        pass  # a value that cannot carry attributes carries no mask


class CallSpec:
    """A call's arguments bound to ``signature`` (the layer's ``call``).

    Context arguments (``training``...) that ``call`` does not take are removed from ``kwargs``
    (the layer passes them on to the layers it calls through the ``CallContext``).
    """

    def __init__(self, signature, context_args, args, kwargs):
        context_values = {name: kwargs.pop(name) for name in context_args
                          if name in kwargs and name not in signature.parameters}
        bound = signature.bind(*args, **kwargs)
        self.user_arguments_dict = {**context_values, **bound.arguments}
        bound.apply_defaults()
        self.arguments_dict = dict(bound.arguments)
        self.argument_names = list(self.arguments_dict)
        self.tensor_arguments_dict = {}
        self.nested_tensor_argument_names = []
        for name, value in self.arguments_dict.items():
            if is_tensor_or_symbolic(value):
                self.tensor_arguments_dict[name] = value
            elif nest.is_nested(value) and len(value) > 0:
                flat = nest.flatten(value)
                if all(is_tensor_or_symbolic(x, allow_none=True) for x in flat):
                    self.tensor_arguments_dict[name] = value
                    self.nested_tensor_argument_names.append(name)
                elif any(is_tensor_or_symbolic(x) for x in flat):
                    raise ValueError("In a nested call() argument, you cannot mix tensors and non-tensors. Received "
                                     f"invalid mixed argument: {name}={value}")
        self.first_arg = self.arguments_dict[self.argument_names[0]] if self.argument_names else None
        tensors = nest.flatten(list(self.tensor_arguments_dict.values()))
        self.eager = not any(isinstance(x, KerasTensor) for x in tensors)


def shapes_dict(call_spec):
    """``{"<arg>_shape": shape}`` for the tensor arguments of a call (not masks nor catch-alls)."""
    def shape_of(x):
        return None if x is None else standardize_shape(x.shape)

    shapes = {}
    for name, value in call_spec.tensor_arguments_dict.items():
        if name in ("mask", "kwargs", "args"):
            continue
        if name in call_spec.nested_tensor_argument_names:
            shapes[f"{name}_shape"] = nest.map_structure(shape_of, value)
        else:
            shapes[f"{name}_shape"] = shape_of(value)
    return shapes


def shapes_for(method, shapes, call_spec, class_name):
    """The keyword arguments to call ``method`` (``build`` or ``compute_output_shape``) with."""
    names = [name for name, p in inspect.signature(method).parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY, p.KEYWORD_ONLY)]
    if len(names) == 1:
        values = tuple(shapes.values())
        return {names[0]: values[0] if values else None}
    kwargs = {}
    for name in names:
        preamble = (f"For a `{method.__name__}()` method with more than one argument, all arguments should have a "
                    f"`_shape` suffix and match an argument from `call()`. E.g. `{method.__name__}(self, foo_shape, "
                    "bar_shape)` ")
        if not name.endswith("_shape"):
            raise ValueError(f"{preamble} For layer '{class_name}', Received `{method.__name__}()` argument "
                             f"`{name}`, which does not end in `_shape`.")
        if name[:-len("_shape")] not in call_spec.arguments_dict:
            raise ValueError(f"{preamble} For layer '{class_name}', received `{method.__name__}()` argument "
                             f"`{name}`, but `call()` does not have argument `{name[:-len('_shape')]}`.")
        if name in shapes:
            kwargs[name] = shapes[name]
    return kwargs


# -- call context ------------------------------------------------------------------------------------------
class CallContext:
    """The context arguments of the outermost layer call in progress (``training``...)."""

    def __init__(self, entry_layer):
        self.entry_layer = entry_layer
        self.values = {}


class _ContextState(threading.local):
    def __init__(self):
        self.context = None


_context = _ContextState()


def current_context():
    """The CallContext of the layer call in progress, or None."""
    return _context.context


def enter_context(layer):
    """The current CallContext, opening one with ``layer`` as its entry layer when none is open.

    Returns ``(context, opened)``.
    """
    if _context.context is None:
        _context.context = CallContext(layer)
        return _context.context, True
    return _context.context, False


def exit_context():
    _context.context = None


def resolve_context_arg(name, call_spec, context, accepted, kwargs):
    """Set the value of context argument ``name`` for this call, in Keras' order of priority.

    The value the user passed, else the outer call's, else ``call``'s default; it becomes the
    context's value for the layers called inside, and goes into ``kwargs`` when the layer's ``call``
    takes it and it is not None.
    """
    if name in call_spec.user_arguments_dict:
        value = call_spec.user_arguments_dict[name]
    elif context.values.get(name) is not None:
        value = context.values[name]
    else:
        value = call_spec.arguments_dict.get(name)
    context.values[name] = value
    if accepted and value is not None:
        kwargs[name] = value
