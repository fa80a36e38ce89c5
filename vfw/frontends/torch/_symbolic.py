"""Symbolic-shape helpers of export-friendly code (``torch.sym_int``, ``sym_max``, ``sym_constrain_range``...).

vfw traces with concrete values, so every size is a plain Python number (or a 0-d tensor read as one): the helpers
compute on those as torch's eager path does, and the range constraints check the value they are given.
``SymInt``/``SymFloat``/``SymBool`` exist so that ``isinstance`` checks in user code work; no vfw value is ever one of
them (in eager torch, too, plain numbers are not).
"""

import builtins
import math

import numpy as np

__all__ = ["SymBool", "SymFloat", "SymInt", "sym_constrain_range", "sym_constrain_range_for_size", "sym_float",
           "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum"]

_INT64_MIN = -(2 ** 63)
_INT64_MAX = 2 ** 63 - 1
_NUMBER_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


class _SymNumber:
    """A symbolic number wrapping a shape-environment node (vfw never creates one: sizes are concrete)."""

    def __init__(self, node):
        self.node = node


class SymInt(_SymNumber):
    """Symbolic integer (a size of a dynamic-shape trace); plain ints are not instances."""


class SymFloat(_SymNumber):
    """Symbolic float; plain floats are not instances."""


class SymBool(_SymNumber):
    """Symbolic bool (the result of comparing symbolic sizes); plain bools are not instances."""


def sym_int(a):
    """``int(a)``, truncating toward zero (``a``: a number, a one-element tensor or anything ``int`` takes)."""
    return builtins.int(a)


def sym_float(a):
    """``float(a)``."""
    return builtins.float(a)


def _checked_number(value):
    if not isinstance(value, _NUMBER_TYPES):
        raise AssertionError(f"expected {_NUMBER_TYPES}, got {type(value)}")
    return value


def _extreme(pick, a, b):
    """``pick(a, b)`` of two numbers, a float when either is one (torch's rule, unlike the builtins)."""
    a, b = _checked_number(a), _checked_number(b)
    result = pick(a, b)
    return builtins.float(result) if isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES) else result


def sym_max(a, b):
    """The larger of two numbers (ints or floats only; a float if either is a float)."""
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    """The smaller of two numbers (ints or floats only; a float if either is a float)."""
    return _extreme(builtins.min, a, b)


def sym_not(a):
    """Logical negation ``not a``."""
    return not a


def sym_ite(b, t, f):
    """``t if b else f``: ``b`` must be a bool and ``t``, ``f`` of one type."""
    if not isinstance(b, (SymBool, builtins.bool)):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a):
    """``math.sqrt(a)`` (a float; ValueError below 0)."""
    return math.sqrt(a)


def sym_sum(*args):
    """Sum of the numbers given as arguments or as one list/tuple (0 for none)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def _bound(function, value, name, default):
    if value is None:
        return default
    if isinstance(value, (builtins.bool, builtins.float, np.floating)) or not isinstance(value, (builtins.int,
                                                                                                  np.integer)):
        raise TypeError(f"{function}(): argument '{name}' must be int, not {type(value).__name__}")
    return builtins.int(value)


def _size_value(function, size):
    """The concrete value of ``size``: a Python/numpy number or a 0-d tensor (torch's "Number")."""
    is_scalar_tensor = hasattr(size, "dim") and size.dim() == 0
    if not (isinstance(size, _NUMBER_TYPES) or is_scalar_tensor):
        kind = "Tensor" if hasattr(size, "dim") else type(size).__name__
        raise TypeError(f"{function}(): argument 'size' (position 1) must be Number, not {kind}")
    return builtins.int(size)


def _check_range(value, low, high):
    if high < low:
        raise RuntimeError(f"Max must be greater than or equal to min. Got min={low} max={high}")
    if not low <= value <= high:
        raise RuntimeError(f"Invalid value range for {value} between [{low}, {high}].")


def sym_constrain_range(size, min=None, max=None):
    """Assert that the concrete size ``size`` lies in ``[min, max]`` (int bounds; None: the int64 limits).

    Raises
    ------
    RuntimeError
        When ``max < min`` or the value lies outside the range.
    TypeError
        When ``size`` is not a number (or 0-d tensor) or a bound not an int.
    """
    low = _bound("sym_constrain_range", min, "min", _INT64_MIN)
    high = _bound("sym_constrain_range", max, "max", _INT64_MAX)
    _check_range(_size_value("sym_constrain_range", size), low, high)


def sym_constrain_range_for_size(size, min=None, max=None):
    """Assert that ``size`` is usable as a size: in ``[min, max]`` with ``min`` defaulting to 0.

    Raises
    ------
    RuntimeError
        When ``max`` is given and at most 2, when ``max < min``, or when the value lies outside the range.
    TypeError
        When ``size`` is not a number (or 0-d tensor) or a bound not an int.
    """
    low = _bound("sym_constrain_range_for_size", min, "min", 0)
    high = _bound("sym_constrain_range_for_size", max, "max", _INT64_MAX)
    value = _size_value("sym_constrain_range_for_size", size)
    # torch requires room above the sizes 0 and 1, which its symbolic shapes specialise on
    if max is not None and high <= 2:
        raise RuntimeError(f"Max value to constrain_range_for_size must be greater than 2. got: {high}")
    _check_range(value, low, high)
