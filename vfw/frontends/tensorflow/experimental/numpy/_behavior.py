"""``tnp.experimental_enable_numpy_behavior``: NumPy methods on tf.Tensor and NumPy promotion in its operators.

Enabling adds ``T``, ``astype``, ``reshape``, ``ravel``... to tf.Tensor (the methods TF adds),
wraps tf.Tensor's binary operators so that their operands are first promoted with NumPy's rules
(``int32_tensor + 1.5`` is float64), and gives indexing NumPy's advanced indexing (``t[[0, 1]]``,
``t[:, [2, 0]]``, ``t[bool_mask]``). Functions such as ``tf.add`` keep TF's strict dtypes, as in TF.
``disable_numpy_behavior`` restores the default (TF has no such switch; tests need one).
"""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow._dispatch import is_tensor_like, tensor_of
from vfw.frontends.tensorflow._tensor import TensorBase as Tensor  # tf.Tensor: methods set here reach every value
from vfw.frontends.tensorflow.experimental.numpy import _linalg, _math, _reductions, _shapes
from vfw.frontends.tensorflow.experimental.numpy._promotion import (
    asarray,
    cast,
    np_result_type,
    set_prefer_float32,
    to_np_dtype,
)

_PROMOTED_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor")
_COMPARISONS = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__")
_saved = {}


def _promotable(other):
    return is_tensor_like(other) or isinstance(other, (builtins.bool, builtins.int, builtins.float, builtins.complex,
                                                        np.ndarray, np.generic, list, tuple))


def _promoting(original):
    """``original(self, other)`` on operands first cast to their common NumPy dtype."""

    def method(self, other):
        if not _promotable(other):
            return original(self, other)
        try:
            common = np_result_type(self, other)
            operand = asarray(other, common)
        except (TypeError, ValueError):
            return original(self, other)
        return original(cast(self, common), operand)

    method.__name__ = original.__name__
    return method


def _reshape(self, *shape, order="C"):
    newshape = shape[0] if len(shape) == 1 and not isinstance(shape[0], (builtins.int, np.integer)) else shape
    return _shapes.reshape(self, newshape, order)


def _is_advanced_index(part):
    """Whether ``part`` of an index is NumPy's advanced indexing (an integer or bool array or list)."""
    if isinstance(part, list):
        return True
    if isinstance(part, np.ndarray):
        return part.ndim > 0 or part.dtype == np.bool_
    if is_tensor_like(part):
        array = tensor_of(part).array
        return array.ndim > 0 or array.dtype == np.bool_
    return False


def _numpy_indexing(original):
    """``__getitem__`` with NumPy's advanced indexing; basic indexing keeps ``original``.

    NumPy indexes an array of element positions with the key; one gather of those positions from the
    flattened tensor then gives the values (and TF's gradients through gather).
    """

    def getitem(self, key):
        parts = key if isinstance(key, tuple) else (key,)
        if not builtins.any(_is_advanced_index(p) for p in parts):
            return original(self, key)
        numpy_key = tuple(tensor_of(p).numpy() if is_tensor_like(p) else np.asarray(p) if isinstance(p, list) else p
                          for p in parts)
        positions = np.arange(self.array.size).reshape(self.array.shape)[numpy_key]
        return tf.reshape(tf.gather(tf.reshape(self, [-1]), positions.reshape(-1)), positions.shape)

    getitem.__name__ = "__getitem__"
    return getitem


_METHODS = {
    "T": property(lambda self: tf.transpose(self)),
    "__pos__": lambda self: tf.identity(self),
    "astype": lambda self, dtype: cast(self, to_np_dtype(dtype)),
    "clip": lambda self, a_min, a_max: _math.clip(self, a_min, a_max),
    "data": property(lambda self: self),
    "flatten": lambda self, order="C": _shapes.flatten(self, order),
    "max": lambda self, axis=None, keepdims=None: _reductions.max(self, axis, keepdims),
    "mean": lambda self, axis=None, dtype=None, out=None, keepdims=None: _reductions.mean(self, axis, dtype, out,
                                                                                          keepdims),
    "min": lambda self, axis=None, keepdims=None: _reductions.min(self, axis, keepdims),
    "ravel": lambda self: _shapes.ravel(self),
    "reshape": _reshape,
    "size": property(lambda self: np.int64(self.array.size)),
    "tolist": lambda self: self.numpy().tolist(),
    "transpose": lambda self, axes=None: _shapes.transpose(self, axes),
}
# Products go through TF NumPy's matmul so 1-d operands work as in NumPy.
_OPERATOR_OVERRIDES = {"__matmul__": lambda self, other: _linalg.matmul(self, other)}


def _set(name, value):
    if name not in _saved:
        _saved[name] = Tensor.__dict__.get(name)
    setattr(Tensor, name, value)


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give tf.Tensor NumPy's methods and NumPy's dtype promotion in its operators.

    Parameters
    ----------
    prefer_float32 : bool
        Infer float32 (not float64) for Python floats in TF NumPy functions.
    dtype_conversion_mode : str
        Only ``"legacy"`` (NumPy promotion) is supported.
    """
    if dtype_conversion_mode != "legacy":
        raise NotImplementedError(f"dtype_conversion_mode={dtype_conversion_mode!r} is not supported by vfw; "
                                  "use 'legacy'.")
    set_prefer_float32(prefer_float32)
    for name, value in _METHODS.items():
        _set(name, value)
    for name in _PROMOTED_OPERATORS:
        for dunder in (f"__{name}__", f"__r{name}__"):
            original = _saved.get(dunder, Tensor.__dict__.get(dunder))
            if original is not None:
                _set(dunder, _promoting(_OPERATOR_OVERRIDES.get(dunder, original)))
    for dunder in _COMPARISONS:
        _set(dunder, _promoting(_saved.get(dunder, Tensor.__dict__.get(dunder))))
    _set("__getitem__", _numpy_indexing(_saved.get("__getitem__", Tensor.__getitem__)))


def disable_numpy_behavior():
    """Undo ``experimental_enable_numpy_behavior``: tf.Tensor's methods and strict promotion as by default."""
    set_prefer_float32(False)
    for name, original in _saved.items():
        if original is None:
            delattr(Tensor, name)
        else:
            setattr(Tensor, name, original)
    _saved.clear()
