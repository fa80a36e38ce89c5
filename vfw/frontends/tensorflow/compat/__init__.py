"""tf.compat: string conversions, forward-compatibility dates, shape-dimension helpers, ``v1`` and ``v2``.

``tf.compat.v2`` is the TF 2 API (vfw.tensorflow itself).  ``tf.compat.v1`` (loaded on first use) holds the
parts of TF 1's API that TF 2-era scripts still call; see :mod:`vfw.frontends.tensorflow.compat.v1`.
"""

import contextlib as _contextlib
import datetime as _datetime
import importlib as _importlib
import numbers as _numbers
import os as _os
import sys as _sys

import numpy as _np

import vfw.frontends.tensorflow as v2
from vfw.frontends.tensorflow import _context_ops
from vfw.frontends.tensorflow._shape import TensorShape as _TensorShape
from vfw.frontends.tensorflow.compat._dimension import Dimension as _Dimension

# ``import tensorflow.compat.v2 as tf`` gives the TF 2 API, as in TF.
_sys.modules.setdefault(f"{__name__}.v2", v2)

bytes_or_text_types = (bytes, str)
complex_types = (_numbers.Complex, _np.number)
integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as bytes: str encoded with ``encoding``, bytes and bytearray as bytes.

    Raises
    ------
    TypeError
        For any other type.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """``bytes_or_text`` as str: bytes decoded with ``encoding``, str unchanged.

    Raises
    ------
    TypeError
        For any other type (bytearray too, as TF).
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_str(bytes_or_text, encoding="utf-8"):
    """The same as :func:`as_text` (TF's Python 3 ``str`` is text)."""
    return as_text(bytes_or_text, encoding)


def as_str_any(value, encoding="utf-8"):
    """``value`` as str: bytes decoded with ``encoding``, anything else through ``str()``."""
    if isinstance(value, bytes):
        return as_str(value, encoding)
    return str(value)


def path_to_str(path):
    """A path-like object (``pathlib.Path``...) as its str; any other value is returned unchanged."""
    if hasattr(path, "__fspath__"):
        return as_str_any(path.__fspath__())
    return path


# TF 2.21's horizon: the date its graphs may start using ops newer binaries know.  The
# TF_FORWARD_COMPATIBILITY_DELTA_DAYS environment variable moves it forward, as in TF.
_HORIZON = _datetime.date(2026, 1, 16)
_DELTA_DAYS_VARIABLE = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
_horizon_in_force = _HORIZON


def _set_horizon(date=None):
    global _horizon_in_force
    if date is None:
        date = _HORIZON
        delta_days = _os.getenv(_DELTA_DAYS_VARIABLE)
        if delta_days:
            date += _datetime.timedelta(days=int(delta_days))
    if date < _HORIZON:
        _context_ops.get_logger().warning("Trying to set the forward compatibility date to the past date %s. This "
                                          "will be ignored by TensorFlow.", date)
        return
    _horizon_in_force = date


_set_horizon()


def _date_number(year, month, day):
    # TF compares packed numbers, so out-of-range months or days (2021, 13, 40) are accepted without error.
    return (year << 9) | (month << 5) | day


def forward_compatible(year, month, day):
    """bool: whether the forward-compatibility horizon is past the date ``year-month-day``."""
    horizon = _horizon_in_force
    return _date_number(horizon.year, horizon.month, horizon.day) > _date_number(year, month, day)


@_contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Context manager moving the horizon :func:`forward_compatible` compares with to ``year-month-day``."""
    try:
        _set_horizon(_datetime.date(year, month, day))
        yield
    finally:
        _set_horizon()


def dimension_value(dimension):
    """int or None: the size of ``dimension`` (a ``Dimension``, an int or None)."""
    if isinstance(dimension, _Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape, index):
    """``Dimension``: dimension ``index`` of the TensorShape ``shape`` (unknown for a shape of unknown rank).

    Raises
    ------
    IndexError
        When ``index`` is out of range of a known-rank shape.
    """
    if not isinstance(shape, _TensorShape):
        raise AssertionError(f"tf.compat.dimension_at_index: expected a TensorShape, got {type(shape).__name__}")
    if shape.rank is None:
        return _Dimension(None)
    return _Dimension(shape.as_list()[index])


def __getattr__(name):
    # v1 loads on first use (its submodules pull in much of vfw).
    if name == "v1":
        return _importlib.import_module(f"{__name__}.v1")
    raise AttributeError(f"module 'tensorflow.compat' has no attribute '{name}' (vfw.tensorflow.compat does not "
                         "provide it yet)", name=name)


def __dir__():
    return sorted({*globals(), "v1"})
