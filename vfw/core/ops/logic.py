"""Comparisons, boolean logic, Where and casts: Equal, Less, ..., And, Or, Xor, Not, Where, Cast, CastLike.

Comparisons and logic ops follow ONNX multidirectional (numpy) broadcasting
and return ``bool`` tensors.  Casts follow numpy's conversion rules, which are
ONNX's for every in-range value: float to integer truncates toward zero,
integer to narrower integer wraps (two's complement), anything to ``bool`` is
``x != 0`` (NaN is ``True``), floats out of a float type's range become
``+-inf``.  Float-to-integer casts of out-of-range values and NaN are undefined
in ONNX; here they give whatever numpy's cast gives.

Gradients: comparisons and logic ops have none; Where sends the output
gradient to X or Y by the condition; a float-to-float cast casts the gradient
back (casts from or to other types pass none).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import DTypeError, ShapeError
from vfw.core.ops._common import array_of, broadcast_shapes, execute, ufunc_kernel, unbroadcast
from vfw.core.registry import Attr, TensorInfo, defop

# Engine dtypes usable by comparisons (ONNX also allows strings for Equal and Where,
# which numpy's object loops handle with no extra work; Equal also compares complex values, not ONNX).
_EQUAL_TYPES = dt.ALL | dt.COMPLEX | {dt.string}
_WHERE_TYPES = dt.FIXED_SIZE | {dt.string}


def _broadcast_info(op_type, infos, dtype):
    """Broadcast shape of ``infos`` (``None`` if any is unknown) with ``dtype``."""
    shapes = [i.shape for i in infos if i is not None]
    if any(s is None for s in shapes):
        return TensorInfo(None, dtype)
    try:
        return TensorInfo(broadcast_shapes(*shapes), dtype)
    except ShapeError as exc:
        raise ShapeError(f"{op_type}: {exc}") from None


def _bool_infer(op_type):
    def infer(attrs, infos):
        return [_broadcast_info(op_type, infos, dt.bool_)]

    return infer


# --- comparisons and logic -------------------------------------------------------------

for _name, _ufunc, _types in (
    ("Equal", np.equal, _EQUAL_TYPES),
    ("Less", np.less, dt.NUMERIC),
    ("LessOrEqual", np.less_equal, dt.NUMERIC),
    ("Greater", np.greater, dt.NUMERIC),
    ("GreaterOrEqual", np.greater_equal, dt.NUMERIC),
    ("And", np.logical_and, dt.BOOL),
    ("Or", np.logical_or, dt.BOOL),
    ("Xor", np.logical_xor, dt.BOOL),
):
    defop(_name, inputs="A:T B:T", outputs="C:bool", types={"T": _types}, infer=_bool_infer(_name))(
        ufunc_kernel(_ufunc)
    )

defop("Not", inputs="X:T", outputs="Y:T", types={"T": dt.BOOL},
      infer=lambda attrs, infos: [TensorInfo(infos[0].shape, dt.bool_)])(ufunc_kernel(np.logical_not))

not_differentiable("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not")


def _where_infer(attrs, infos):
    return [_broadcast_info("Where", infos, infos[1].dtype)]


@defop("Where", inputs="condition:B X:T Y:T", outputs="output:T", types={"B": dt.BOOL, "T": _WHERE_TYPES},
       infer=_where_infer)
def where():
    """Elements of X where condition is true, else of Y (all three broadcast together)."""

    def kernel(condition, x, y, out=None):
        return select(condition, x, y)

    return kernel


def select(condition, x, y):
    """``np.where(condition, x, y)`` (new memory), by :func:`bit_select` where that is faster."""
    if x.dtype.itemsize not in _SELECT_INT or x.dtype == dt.string or \
            max(condition.size, x.size, y.size) < _SELECT_MIN_SIZE:
        return np.where(condition, x, y)
    return bit_select(condition, x, y)


# np.where branches per element: about 4 ns each once the mask is unpredictable, several times a plain
# ufunc pass.  Selecting with bit masks on the raw bits is branch-free and exact for any fixed-size dtype;
# below this many elements np.where's single call costs less than the three to four passes.
_SELECT_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_SELECT_MIN_SIZE = 512


def _all_zero_bits(a):
    """Whether ``a`` is one element whose bits are all 0 (+0.0, 0, False): a select against it is a mask."""
    return a.size == 1 and not a.view(_SELECT_INT[a.dtype.itemsize]).any()


def bit_select(condition, x, y):
    """``np.where(condition, x, y)`` by bit masks: ``y ^ ((x ^ y) & mask)``, or one ``&`` against a zero.

    Parameters
    ----------
    condition : numpy.ndarray
        bool.
    x, y : numpy.ndarray
        One dtype of 1, 2, 4 or 8 bytes (not object); all three broadcast together.

    Returns
    -------
    numpy.ndarray
        New memory of the broadcast shape.
    """
    word = _SELECT_INT[x.dtype.itemsize]
    shapes = {condition.shape, x.shape, y.shape} - {()}
    # the common cases (same shapes, 0-d branches) without np.broadcast_shapes' microseconds
    shape = shapes.pop() if len(shapes) == 1 else np.broadcast_shapes(condition.shape, x.shape, y.shape)
    flags = condition.view(np.int8)  # True is 1
    x_zero = _all_zero_bits(x)
    # all bits set where the result comes from the non-zero side (a sign-extending cast of 0 / -1)
    flags = np.subtract(flags, 1, dtype=np.int8) if x_zero else np.negative(flags)
    mask = np.empty(shape, word)
    mask[...] = flags
    if x_zero or _all_zero_bits(y):
        np.bitwise_and(mask, (y if x_zero else x).view(word), out=mask)
    else:
        y_bits = y.view(word)
        np.bitwise_and(mask, np.bitwise_xor(x.view(word), y_bits), out=mask)
        np.bitwise_xor(mask, y_bits, out=mask)
    return mask.view(x.dtype)


@register_gradient("Where")
def _where_grad(node, g):
    condition, x, y = node.inputs
    need_x, need_y = node.needs_input_grad[1:]
    zero = np.zeros((), g.array.dtype)
    gx = unbroadcast(execute("Where", condition, g, zero), x.array.shape) if need_x else None
    gy = unbroadcast(execute("Where", condition, zero, g), y.array.shape) if need_y else None
    return None, gx, gy


# --- casts -----------------------------------------------------------------------------

_CAST_ATTRS = {
    # saturate and round_mode only matter for float8 / float8e8m0 targets, which the
    # engine has no dtype for; accepted so ONNX models carrying them load.
    "saturate": Attr("int", 1, choices=(0, 1)),
    "round_mode": Attr("string", "up", choices=("up", "down", "nearest")),
}


def _castable(dtype):
    return None if dtype in dt.FIXED_SIZE else "Cast supports numeric, complex and bool dtypes only"


def _cast_to(x, dtype, out):
    if x.dtype.kind == "c" and dtype.kind != "c":
        # Refused rather than dropping the imaginary part: a frontend's implicit cast of a complex tensor
        # in a real-only function must fail loudly.  Real/Imag/ComplexAbs take the parts explicitly.
        raise DTypeError(f"Cast: cannot cast {dt.type_name(x.dtype)} to the real type {dt.type_name(dtype)} "
                         "(it would drop the imaginary part); use Real, Imag or ComplexAbs")
    if out is None:
        return x.astype(dtype)
    np.copyto(out, x, casting="unsafe")
    return out


@defop("Cast", inputs="input:T1", outputs="output:T2", types={"T1": dt.FIXED_SIZE, "T2": dt.FIXED_SIZE},
       attrs={"to": Attr("dtype", check=_castable), **_CAST_ATTRS},
       infer=lambda attrs, infos: [TensorInfo(infos[0].shape, attrs["to"])])
def cast(to, saturate, round_mode):
    """Convert input to the dtype ``to`` (a numpy dtype or an ONNX data type code)."""
    def kernel(x, out=None):
        return _cast_to(x, to, out)

    return kernel


def _cast_back(x, g):
    """Gradient of a cast of ``x``: ``g`` cast back to x's dtype, or None unless both types are float or complex.

    A real -> complex cast gives back the real part of the gradient (the conjugate-Wirtinger convention:
    ``dL/dRe + i dL/dIm``).
    """
    x_dtype, g_dtype = array_of(x).dtype, g.array.dtype
    if x_dtype not in dt.DIFFERENTIABLE or g_dtype not in dt.DIFFERENTIABLE:
        return None
    if g_dtype.kind == "c" and x_dtype.kind != "c":
        g = execute("Real", g)
        g_dtype = g.array.dtype
    return g if g_dtype == x_dtype else execute("Cast", g, to=x_dtype)


@register_gradient("Cast")
def _cast_grad(node, g):
    return (_cast_back(node.inputs[0], g),)


@defop("CastLike", inputs="input:T1 target_type:T2", outputs="output:T2",
       types={"T1": dt.FIXED_SIZE, "T2": dt.FIXED_SIZE},
       attrs=dict(_CAST_ATTRS), infer=lambda attrs, infos: [TensorInfo(infos[0].shape, infos[1].dtype)])
def cast_like(saturate, round_mode):
    """Convert input to the dtype of target_type (whose values are ignored)."""

    def kernel(x, target_type, out=None):
        return _cast_to(x, target_type.dtype, out)

    return kernel


@register_gradient("CastLike")
def _cast_like_grad(node, g):
    return _cast_back(node.inputs[0], g), None  # target_type only lends its dtype
