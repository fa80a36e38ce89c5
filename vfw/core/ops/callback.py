"""PyFunc: an op whose kernel calls a Python function (a host callback, as TensorFlow's ``py_function``).

Frontends use it to put computations the engine has no op for into traced graphs, chiefly
random draws that must come from a frontend's own generator on every run (``torch.rand``,
dropout masks): the function runs when the op runs, eagerly and at every graph run, in
graph order.

The function is not part of the op: it is registered with :func:`register_callback`, which
returns a *token* (a string), and the op's ``token`` attribute names it.  The registry holds
functions weakly: whoever records the op (a :class:`~vfw.core.graph.trace.Trace`, hence the
traced function) keeps the function alive.  A graph holding PyFunc ops is therefore tied to
the process that traced it: :func:`~vfw.core.graph.serialize.save_graph` refuses it, and a
token that names no live function is refused when the op is bound.

Contract of the function: ``fn(*input_arrays)`` returns one numpy array or a tuple/list of
them, as many as the op has outputs.  Results sharing memory with an input are copied (engine
ops other than the documented view ops return fresh memory).  The op is treated as random by
the graph passes (never merged, folded or pruned away): each call may give new values and
may have side effects, such as advancing a generator.
"""

import itertools
import weakref

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import DTypeError, OpInputError
from vfw.core.registry import Attr, OpSchema, register

_ANY = dt.ALL | {dt.string}
_FUNCTIONS = weakref.WeakValueDictionary()
_tokens = itertools.count(1)


def register_callback(fn):
    """Register ``fn`` for PyFunc ops; returns its token (the op's ``token`` attribute).

    The registry keeps only a weak reference: keep ``fn`` alive as long as ops naming the
    token may run.

    Parameters
    ----------
    fn : callable
        ``fn(*arrays) -> array or tuple of arrays`` (a function or closure, not a bound method,
        which would die at once).
    """
    token = f"pyfunc{next(_tokens)}"
    _FUNCTIONS[token] = fn
    return token


def registered_callback(token):
    """The function registered under ``token``, or None when none is alive."""
    return _FUNCTIONS.get(token)


def _registered(token):
    if token not in _FUNCTIONS:
        return ("no live Python function is registered under this token (PyFunc ops run only in the process "
                "that recorded them, while their graph or trace is alive)")
    return None


class _PyFuncSchema(OpSchema):
    """PyFunc's inputs are any number (zero included) of arrays of any dtypes (a type variable would tie them)."""

    def __init__(self):
        super().__init__("PyFunc", inputs="inputs*:T", outputs="outputs*:T", types={"T": _ANY},
                         attrs={"token": Attr("string", check=_registered)}, kernel=_py_func,
                         doc="Outputs of a Python function registered with register_callback, called on the inputs.")
        self.min_inputs = 0

    def check_inputs(self, inputs):
        for i, x in enumerate(inputs):
            if x is None or not (hasattr(x, "dtype") and hasattr(x, "shape")) or x.dtype not in _ANY:
                got = x.dtype if hasattr(x, "dtype") else type(x).__name__
                raise DTypeError(f"PyFunc: input {i} must be a numpy array of an engine dtype, got {got}")
        return {}


def _py_func(token):
    """Call the Python function registered under ``token`` on the inputs; its arrays are the outputs."""

    def kernel(*inputs, out=None):
        fn = _FUNCTIONS.get(token)
        if fn is None:
            raise OpInputError(f"PyFunc: {_registered(token)}")
        result = fn(*inputs)
        results = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        fresh = []
        for r in results:
            if not isinstance(r, np.ndarray):
                raise DTypeError(f"PyFunc: the Python function must return numpy arrays, got {type(r).__name__}")
            fresh.append(r.copy() if any(np.may_share_memory(r, x) for x in inputs) else r)
        return tuple(fresh)

    return kernel


register(_PyFuncSchema())
not_differentiable("PyFunc")
