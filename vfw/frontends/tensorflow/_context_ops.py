"""TF's execution-context helpers: executing_eagerly, inside_function, init_scope, control_dependencies,
group/tuple/no_op, device, get_logger, get_current_name_scope, RegisterGradient/no_gradient.

vfw runs a tf.function's graph in the order its ops were traced and never prunes ops with
effects (variable writes, assertions, prints, PyFunc ops), so ``control_dependencies`` has
nothing to add: it is accepted, eagerly and while tracing. There is one CPU device:
``tf.device`` accepts any device string. vfw has no raw TF ops to attach gradients to, so
``RegisterGradient``/``no_gradient`` record the names (with TF's errors for duplicates) and
change nothing; use ``tf.custom_gradient`` for custom gradients.
"""

import builtins
import contextlib
import logging

from vfw.core.graph import trace as _trace
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _function, _name_scope
from vfw.frontends.tensorflow._dispatch import convert_to_tensor


def executing_eagerly():
    """bool: False while a tf.function is traced (outside ``tf.init_scope``), True otherwise."""
    return current_trace() is None


def inside_function():
    """bool: whether a tf.function is being traced (also inside its ``tf.init_scope``, as in TF)."""
    return _function.in_function_trace()


def is_symbolic_tensor(tensor):
    """bool: whether ``tensor`` is a tensor of a tf.function being traced.

    vfw's tensors carry no graph: every tensor seen while a trace is open counts as symbolic
    (TF says False for an eager tensor captured from outside).
    """
    return isinstance(tensor, CoreTensor) and current_trace() is not None


@contextlib.contextmanager
def init_scope():
    """A context in which ops run eagerly even while a tf.function is traced (TF lifts them out of the graph).

    The traces of this thread are set aside inside it: what runs there computes values at once
    (variables created, tensors read with ``numpy()``) and is not recorded into the graph.
    """
    stack = _trace._local.stack
    paused = list(stack)
    for t in paused:
        _trace._active.remove(t)
    del stack[:]
    try:
        yield
    finally:
        stack.extend(paused)
        _trace._active.extend(paused)


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def control_dependencies(control_inputs):
    """A context manager running its ops after ``control_inputs`` (always so in vfw: see the module notes).

    Parameters
    ----------
    control_inputs : list of tensors or operations, or None
    """
    if control_inputs is not None and not isinstance(control_inputs, (list, builtins.tuple)) and \
            not callable(control_inputs):
        raise TypeError(f"'{type(control_inputs).__name__}' object is not iterable")
    return _NullContext()


def no_op(name=None):
    """Does nothing (TF's NoOp); returns None."""
    return None


def group(*inputs, **kwargs):
    """Groups operations (they all run in vfw); returns None.

    Parameters
    ----------
    *inputs : tensors or operations
    name : str, optional
    """
    unknown = set(kwargs) - {"name"}
    if unknown:
        raise TypeError(f"Unknown keyword arguments: {', '.join(sorted(unknown))}")
    return None


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001  (TF's name)
    """The tensors of ``tensors`` (a list; None entries stay None), available once all are computed."""
    if isinstance(tensors, CoreTensor) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors must be a list or tuple: {tensors}")
    return [None if t is None else convert_to_tensor(t) for t in tensors]


def device(device_name):
    """A context manager placing ops on ``device_name``: accepted (vfw has one CPU device).

    Parameters
    ----------
    device_name : str or None
        e.g. ``"/CPU:0"``, ``"/GPU:0"``, ``"/job:localhost/replica:0/task:0/device:CPU:0"``.
    """
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
    return _Device(device_name)


class _Device(_NullContext):
    """``tf.device``'s context: checks the name when entered, as TF does."""

    def __init__(self, device_name):
        self.device_name = device_name

    def __enter__(self):
        if self.device_name is not None and not isinstance(self.device_name, str):
            raise ValueError(f"Expecting a string device name. Got {type(self.device_name)}({self.device_name})")
        return None


def get_logger():
    """The ``"tensorflow"`` logger of Python's logging module."""
    return logging.getLogger("tensorflow")


def get_current_name_scope():
    """str: the name scope in force, without the trailing slash (``""`` at the root)."""
    return _name_scope.current().rstrip("/")


_REGISTERED_GRADIENTS = {}


def _register_gradient(op_type, fn):
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in _REGISTERED_GRADIENTS:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    _REGISTERED_GRADIENTS[op_type] = fn


class RegisterGradient:
    """Decorator registering a gradient function for the raw op type ``op_type`` (recorded only: vfw has no raw
    TF ops; use ``tf.custom_gradient``).

    Parameters
    ----------
    op_type : str
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        _register_gradient(self._op_type, fn)
        return fn


def no_gradient(op_type):
    """Declare the raw op type ``op_type`` not differentiable (recorded only, as ``RegisterGradient``)."""
    _register_gradient(op_type, None)


NAMESPACES = {"tf": ["executing_eagerly", "inside_function", "is_symbolic_tensor", "init_scope",
                     "control_dependencies", "no_op", "group", "tuple", "device", "get_logger",
                     "get_current_name_scope", "RegisterGradient", "no_gradient"]}
TENSOR_METHODS = {}
