"""torch dtypes over numpy dtypes, torch's type promotion and the default dtype."""

import builtins
import threading

import numpy as np

from vfw.core import dtypes as dt


class dtype:  # noqa: N801  (torch's name)
    """A tensor element type (``torch.float32``, ``torch.long``, ...).

    Attributes
    ----------
    is_floating_point : bool
    is_complex : bool
    is_signed : bool
    itemsize : int
        Bytes per element.
    """

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "category")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np in dt.FLOATS
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "ifc" or self.np in dt.FLOATS
        self.itemsize = self.np.itemsize
        # Promotion categories: bool < integer < floating < complex.
        self.category = 0 if self.np == np.bool_ else 3 if self.is_complex else 2 if self.is_floating_point else 1

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        """The real counterpart of a complex dtype (itself otherwise)."""
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        """The complex counterpart of a floating dtype."""
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)


float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
float16 = dtype("float16", np.float16)
bfloat16 = dtype("bfloat16", dt.bfloat16)
complex64 = dtype("complex64", np.complex64)
complex128 = dtype("complex128", np.complex128)
uint8 = dtype("uint8", np.uint8)
uint16 = dtype("uint16", np.uint16)
uint32 = dtype("uint32", np.uint32)
uint64 = dtype("uint64", np.uint64)
int8 = dtype("int8", np.int8)
int16 = dtype("int16", np.int16)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)  # noqa: A001  (torch.bool)
# torch's alternative spellings: torch.float is torch.float32, torch.long is torch.int64, ...
float = float32  # noqa: A001
double = float64
half = float16
cfloat = complex64
cdouble = complex128
short = int16
int = int32  # noqa: A001
long = int64

ALL = (float32, float64, float16, bfloat16, complex64, complex128, uint8, uint16, uint32, uint64,
       int8, int16, int32, int64, bool)
# torch's alternative spellings: torch.float is torch.float32, torch.long is torch.int64, ...
ALIASES = {"float": float32, "double": float64, "half": float16, "cfloat": complex64, "cdouble": complex128,
           "short": int16, "int": int32, "long": int64}
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL} | ALIASES


def _by_name(name):
    return _NAMES[name]


def from_numpy_dtype(np_dtype):
    """The torch dtype of a numpy dtype; TypeError naming it when torch has none."""
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.") from None


def to_np(d):
    """numpy dtype of a torch dtype (``None`` stays ``None``); accepts numpy dtypes and Python types too."""
    if type(d) is dtype:
        return d.np
    if d is None:
        return None
    if d is builtins.float:
        return float64.np
    if d is builtins.int:
        return int64.np
    if d is builtins.bool:
        return np.dtype(np.bool_)
    if isinstance(d, str):
        if d in _NAMES:
            return _NAMES[d].np
        raise TypeError(f"dtype must be a torch.dtype, got the string {d!r}")
    if isinstance(d, dtype):  # a quantized dtype: its tensors come only from quantize_per_tensor/per_channel
        raise NotImplementedError(f"Could not create a tensor of dtype {d}: vfw.torch makes quantized tensors only "
                                  f"with torch.quantize_per_tensor / torch.quantize_per_channel")
    try:
        return from_numpy_dtype(d).np
    except TypeError:
        raise TypeError(f"dtype must be a torch.dtype (got {type(d).__name__})") from None


# -- default dtype ---------------------------------------------------------------------
class _Defaults(threading.local):
    float_dtype = float32


_defaults = _Defaults()


def get_default_dtype():
    """The dtype of Python floats turned into tensors (``torch.float32`` unless set)."""
    return _defaults.float_dtype


def set_default_dtype(d):
    """Set the default floating dtype (float32, float64, float16 or bfloat16)."""
    if type(d) is not dtype or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type (got {d})")
    _defaults.float_dtype = d


def default_float_np():
    return _defaults.float_dtype.np


# -- promotion -------------------------------------------------------------------------
_F16, _BF16 = np.dtype(np.float16), np.dtype(dt.bfloat16)


def promote_types(a, b):
    """torch.promote_types on numpy dtypes: the smallest type both convert to safely."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if 2 not in (ca, cb) and _UNPROMOTED_UINTS.intersection((a, b)):  # torch's table has them with floats only
        from vfw.frontends.torch._dispatch import type_name
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{type_name(a)} and {type_name(b)}")
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if ca == 3 or cb == 3:  # complex wins; a float64 partner widens complex64
            return np.dtype(np.complex128) if lo == np.float64 else hi
        return hi  # a float with any integer/bool is that float; an integer with bool is that integer
    if (a == _F16 and b == _BF16) or (a == _BF16 and b == _F16):
        return np.dtype(np.float32)
    if _BF16 in (a, b):
        other = b if a == _BF16 else a
        return other if other.itemsize > 2 else _BF16
    return np.promote_types(a, b)


_UNPROMOTED_UINTS = frozenset(np.dtype(t) for t in (np.uint16, np.uint32, np.uint64))


def _category(d):
    if d == np.bool_:
        return 0
    if d.kind == "c":
        return 3
    if d in dt.FLOATS:
        return 2
    return 1


def scalar_np_dtype(value):
    """The dtype torch gives a Python number: bool, int64, the default float or complex."""
    t = type(value)
    if t is builtins.float:
        return _defaults.float_dtype.np
    if t is builtins.int:
        return np.dtype(np.int64)
    if t is builtins.bool:
        return np.dtype(np.bool_)
    if t is complex:
        return np.dtype(np.complex128 if _defaults.float_dtype is float64 else np.complex64)
    if isinstance(value, np.generic):  # numpy scalars behave like the Python number of their kind
        kind = value.dtype.kind
        return scalar_np_dtype(builtins.bool(value) if kind == "b" else builtins.int(value) if kind in "iu" else
                               complex(value) if kind == "c" else builtins.float(value))
    raise TypeError(f"unsupported scalar type {t.__name__}")


def result_type(dims, zeros, scalars):
    """torch's result dtype from the dtypes of dimensioned tensors, 0-dim tensors and Python scalars.

    Each group promotes within itself; a later group only matters when it is of a higher category
    (bool < integer < floating < complex) than everything before it.
    """
    result = None
    for group in (dims, zeros, scalars):
        if not group:
            continue
        g = group[0]
        for d in group[1:]:
            g = promote_types(g, d)
        if result is None:
            result = g
        elif _category(g) > _category(result):
            result = promote_types(result, g)
    return result
