"""TensorFlow's DType objects over numpy dtypes (how TF converts Python values: ``_conversion``)."""

import builtins

import ml_dtypes
import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends.tensorflow._trace_type import ValuelessTraceType


class DType(ValuelessTraceType):
    """A tensor element type (``tf.float32``, ``tf.int32``, ``tf.string``...).

    Attributes
    ----------
    name : str
    as_numpy_dtype : type
        The numpy scalar type (``numpy.float32``; ``object`` for strings).
    as_datatype_enum : int
        TensorFlow's DataType enum value.
    """

    __slots__ = ("_name", "_np", "_enum")

    def __init__(self, name, np_dtype, enum):
        self._name = name
        self._np = None if np_dtype is None else np.dtype(np_dtype)
        self._enum = enum

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        if self._np is None or self._np == dt.string:
            return object if self._np is not None else None
        return self._np.type

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def is_floating(self):
        """bool: float16/bfloat16/float32/float64."""
        return self._np in dt.FLOATS

    @property
    def is_integer(self):
        """bool: signed or unsigned integer (not quantized, not bool)."""
        return self._np is not None and self._np.kind in "iu" and not self.is_quantized

    @property
    def is_unsigned(self):
        return self._np is not None and self._np.kind == "u" and not self.is_quantized

    @property
    def is_complex(self):
        return self._np is not None and self._np.kind == "c"

    @property
    def is_bool(self):
        return self._np == dt.bool_

    @property
    def is_quantized(self):
        return self._name.startswith("q")

    @property
    def is_numeric(self):
        """bool: a number type (integer, floating, complex or quantized; not bool, string or handles)."""
        return self.is_integer or self.is_floating or self.is_complex or self.is_quantized

    @property
    def is_numpy_compatible(self):
        return self._name not in ("resource", "variant")

    @property
    def size(self):
        """int: bytes per element (0 for strings and handles)."""
        if self._np is None:
            return {"qint8": 1, "quint8": 1, "qint32": 4}.get(self._name, 0)
        return 0 if self._np == dt.string else self._np.itemsize

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        """The real type of a complex dtype (itself otherwise)."""
        return {"complex64": float32, "complex128": float64}.get(self._name, self)

    @property
    def min(self):
        """The smallest finite value of a real numeric dtype (a numpy scalar for floats, an int for integers)."""
        return self._limit("min")

    @property
    def max(self):
        """The largest finite value of a real numeric dtype."""
        return self._limit("max")

    def _limit(self, which):
        if not (self.is_floating or self.is_integer):
            raise TypeError(f"Cannot find {'minimum' if which == 'min' else 'maximum'} value of {self!r}.")
        if self.is_floating:
            return getattr(ml_dtypes.finfo(self._np), which)
        return int(getattr(np.iinfo(self._np), which))

    @property
    def limits(self):
        """Intensity limits ``(0, max)`` as images use them: ``(0, 1)`` for float32/float64, ``(0, True)`` for bool."""
        if self.is_bool:
            return (0, True)
        if self._name in ("float32", "float64"):
            return (0, 1)
        if self.is_integer:
            return (0, int(np.iinfo(self._np).max))
        if not self.is_numpy_compatible:
            raise KeyError(self._enum)  # as TF's lookup table
        raise ValueError(f"{self!r} has no intensity limits")

    def is_compatible_with(self, other):
        """bool: whether a value of ``other``'s dtype may be used where this dtype is expected."""
        return self == as_dtype(other)

    @property
    def np(self):
        """numpy.dtype: the engine dtype (vfw's own accessor)."""
        return self._np

    def is_subtype_of(self, other):
        """bool: tf.function's trace-type order, which for dtypes is equality."""
        return self == other

    def most_specific_common_supertype(self, others):
        """This dtype when every one of ``others`` equals it, else None."""
        return self if all(self == other for other in others) else None

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._enum == other._enum
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return (as_dtype, (self._name,))


float16 = half = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = double = DType("float64", np.float64, 2)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 14)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool = DType("bool", np.bool_, 10)  # noqa: A001  (tf.bool)
string = DType("string", object, 7)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
qint8 = DType("qint8", None, 11)
quint8 = DType("quint8", None, 12)
qint32 = DType("qint32", None, 13)
resource = DType("resource", None, 20)
variant = DType("variant", None, 21)

ALL = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, string,
       complex64, complex128, qint8, quint8, qint32, resource, variant)
_BY_NAME = {d.name: d for d in ALL} | {"half": half, "float": float32, "double": double}
_BY_NP = {d.np: d for d in ALL if d.np is not None}
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}
_BY_TYPE = {builtins.float: float32, builtins.bool: bool, builtins.object: string}
_NOT_DTYPES = (builtins.int, builtins.complex, builtins.str, builtins.bytes)  # numpy would read them, TF does not


def as_dtype(type_value):
    """The DType for a DType, name, numpy dtype/type, Python type or DataType enum value.

    Raises
    ------
    TypeError
        When ``type_value`` names no TensorFlow dtype.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):  # only TF's own names: numpy's ("f4", "int", "single") are refused
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
    if isinstance(type_value, builtins.int) and not isinstance(type_value, builtins.bool) \
            and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    if isinstance(type_value, type) and type_value in _BY_TYPE:
        return _BY_TYPE[type_value]
    if isinstance(type_value, type) and type_value in _NOT_DTYPES:  # (np.dtype("int64") == int holds: test types)
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
    try:
        found = _BY_NP.get(np.dtype(type_value))
    except TypeError:
        found = None
    if found is None and isinstance(type_value, np.dtype) and type_value.kind in "SUO":
        found = string
    if found is None:
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")
    return found


def of_array(array):
    """The DType of a numpy array (bytes/str/object arrays are strings)."""
    found = _BY_NP.get(array.dtype)
    return string if found is None and array.dtype.kind in "SUO" else found
