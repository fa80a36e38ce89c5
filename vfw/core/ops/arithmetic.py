"""Elementwise arithmetic (ONNX multidirectional broadcasting).

Binary: Add, Sub, Mul, Div, Pow, Mod, BitShift, BitwiseAnd/Or/Xor.  Unary: Neg,
Abs, Reciprocal, Sign, Floor, Ceil, Round, BitwiseNot.  Variadic: Min, Max,
Sum, Mean.  And Clip.

Integer arithmetic wraps around on overflow (two's complement, like numpy and
the ONNX reference); integer division or modulo by zero gives 0 instead of
failing.  Float results follow IEEE (inf/nan), and NaN propagates through Min,
Max and Clip.

Gradients follow torch's conventions: zeros for the step functions (Sign,
Floor, Ceil, Round), ties in Min/Max split evenly, Clip's gradient goes to
whichever of input, min, max was selected; the integer-only ops (BitShift,
Bitwise*) are not differentiable.
"""


import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.eager import execute_gradient_op
from vfw.core.errors import DTypeError, ShapeError
from vfw.core.ops._common import (
    array_of,
    bound_op,
    broadcast_infer,
    cast_to,
    conj,
    copy_out,
    execute,
    int64s,
    maximum_scalar,
    minimum_scalar,
    require,
    reshape_to,
    same_as_first,
    scalar,
    ufunc_kernel,
    unbroadcast,
    zeros_like,
)
from vfw.core.registry import Attr, defop, describe
from vfw.core.tensor import Tensor


def _masked(mask, g):
    """``g`` where ``mask`` holds, else 0 (``Where``, so inf/nan in ``g`` stay out of unselected places)."""
    return execute("Where", mask, g, scalar(0, g.array.dtype))


# ``out=...`` makes a ufunc return a 0-d array (not a numpy scalar) for 0-d inputs,
# which intermediate results below rely on.
_NO_OUT = ...


def _binary(name, ufunc, types, names="A B C"):
    a, b, c = names.split()
    defop(name, inputs=f"{a}:T {b}:T", outputs=f"{c}:T", types={"T": types}, infer=broadcast_infer)(ufunc_kernel(ufunc))


def _unary(name, ufunc, types, names="X Y"):
    x, y = names.split()
    defop(name, inputs=f"{x}:T", outputs=f"{y}:T", types={"T": types}, infer=same_as_first)(ufunc_kernel(ufunc))


for _name, _ufunc in (("Add", np.add), ("Sub", np.subtract), ("Mul", np.multiply)):
    _binary(_name, _ufunc, dt.NUMERIC | dt.COMPLEX)

for _name, _ufunc in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor)):
    _binary(_name, _ufunc, dt.INTS)

_unary("BitwiseNot", np.invert, dt.INTS)
_unary("Neg", np.negative, dt.SIGNED | dt.COMPLEX)
_unary("Abs", np.absolute, dt.NUMERIC)
# Complex (not ONNX): Sign is z / |z| (0 at 0; numpy 2's sign, torch.sgn), Reciprocal is 1 / z.
_unary("Sign", np.sign, dt.NUMERIC | dt.COMPLEX, names="input output")
_unary("Reciprocal", np.reciprocal, dt.FLOATS | dt.COMPLEX)
_unary("Floor", np.floor, dt.FLOATS)
_unary("Ceil", np.ceil, dt.FLOATS)
_unary("Round", np.rint, dt.FLOATS)  # rint rounds halves to even, as ONNX Round does

not_differentiable("BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot")


@register_gradient("Add", "Sub")
def _add_sub_grad(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    gb = None
    if need_b:
        gb = unbroadcast(g if node.op.schema.op_type == "Add" else execute("Neg", g), b.array.shape)
    return (unbroadcast(g, a.array.shape) if need_a else None), gb


@register_gradient("Mul")
def _mul_grad(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    # complex: g times the conjugate derivative (torch's conjugate-Wirtinger convention)
    return (unbroadcast(execute_gradient_op(bound_op("Mul"), g, conj(b)), a.array.shape) if need_a else None,
            unbroadcast(execute_gradient_op(bound_op("Mul"), g, conj(a)), b.array.shape) if need_b else None)


@register_gradient("Neg")
def _neg_grad(node, g):
    return (execute("Neg", g),)


@register_gradient("Abs")
def _abs_grad(node, g):
    return (execute("Mul", g, execute("Sign", node.inputs[0])),)  # 0 at x = 0, as torch


@register_gradient("Reciprocal")
def _reciprocal_grad(node, g):
    y = node.output(0)  # d(1/x)/dx = -y**2: written with the output so it differentiates again
    return (execute("Neg", execute("Mul", g, conj(execute("Mul", y, y)))),)


@register_gradient("Floor", "Ceil", "Round")
def _step_grad(node, g):
    # Piecewise constant: the derivative is 0 wherever it exists; torch returns zeros too.
    return (zeros_like(node.inputs[0]),)


@register_gradient("Sign")
def _sign_grad(node, g):
    """Real input: 0 (piecewise constant).  Complex ``s = z / |z|``: ``(g - Re(g conj(s)) s) / |z|``, the
    part of ``g`` tangent to the unit circle, scaled by ``1 / |z|``; 0 at ``z = 0`` (torch's sgn backward)."""
    z = node.inputs[0]
    if z.array.dtype.kind != "c":
        return (zeros_like(z),)
    s = node.output(0)
    radial = execute("Real", execute("Mul", g, execute("Conj", s)))
    tangent = execute("Sub", g, execute("Mul", execute("Cast", radial, to=g.array.dtype), s))
    size = execute("ComplexAbs", z)
    zero = scalar(0, size.array.dtype)
    at_zero = execute("Equal", size, zero)
    safe = execute("Where", at_zero, scalar(1, size.array.dtype), size)
    scaled = execute("Div", tangent, execute("Cast", safe, to=g.array.dtype))
    return (execute("Where", at_zero, scalar(0, g.array.dtype), scaled),)


# -- Div --------------------------------------------------------------------------------------

def _div_signed(a, b, out=None):
    # numpy's integer division floors; ONNX truncates toward zero: step the
    # quotient up by one where the remainder is non-zero and the signs differ.
    # (x // 0 and x % 0 are 0 in numpy, so division by zero gives 0.)
    q, r = np.divmod(a, b, out=_NO_OUT)
    fix = (r != 0) & ((a ^ b) < 0)
    return np.add(q, fix, out=q if out is None else out, casting="unsafe")


def _div_unsigned(a, b, out=None):
    return np.floor_divide(a, b, out=_NO_OUT if out is None else out)


def _div_float(a, b, out=None):
    return np.divide(a, b, out=_NO_OUT if out is None else out)


_DIV = {"i": _div_signed, "u": _div_unsigned}


@defop("Div", inputs="A:T B:T", outputs="C:T", types={"T": dt.NUMERIC | dt.COMPLEX}, infer=broadcast_infer)
def div():
    """Elementwise ``A / B``; integer division truncates toward zero (x / 0 gives 0 for integers)."""

    def kernel(a, b, out=None):
        return _DIV.get(a.dtype.kind, _div_float)(a, b, out)

    return kernel


@register_gradient("Div")
def _div_grad(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    ga = execute("Div", g, conj(b))  # d(a/b)/da = 1/b; d(a/b)/db = -(a/b)/b (conjugated when complex)
    gb = execute("Neg", execute("Mul", ga, conj(node.output(0)))) if need_b else None
    return ((unbroadcast(ga, a.array.shape) if need_a else None),
            None if gb is None else unbroadcast(gb, b.array.shape))


# -- Mod --------------------------------------------------------------------------------------

@defop("Mod", inputs="A:T B:T", outputs="C:T", types={"T": dt.NUMERIC},
       attrs={"fmod": Attr("int", 0, choices=(0, 1))}, infer=broadcast_infer)
def mod(fmod):
    """Elementwise remainder: sign of the divisor (``fmod=0``) or of the dividend (``fmod=1``, C fmod).

    ``fmod=0`` computes ``A - floor(A / B) * B`` for every type (ONNX opset 28
    defines it for floats too: ``x % +-0`` and ``+-inf % y`` are NaN,
    ``x % +-inf`` is ``x`` or the infinity, like Python's ``%``).  Integer
    modulo by zero gives 0.
    """
    ufunc = np.fmod if fmod else np.remainder
    return ufunc_kernel(ufunc)()


@register_gradient("Mod")
def _mod_grad(node, g):
    # C = A - q * B with q = trunc(A / B) (fmod=1) or floor(A / B) (fmod=0), constant between jumps:
    # dC/dA = 1, dC/dB = -q.  q is recovered from the kernel's own remainder, (A - C) / B, so it is the
    # quotient the kernel used even where A / B rounds across an integer; Round makes it exact and, having
    # a zero derivative, keeps higher orders right.
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    gb = None
    if need_b:
        q = execute("Round", execute("Div", execute("Sub", a, node.output(0)), b))
        gb = unbroadcast(execute("Neg", execute("Mul", g, q)), b.array.shape)
    return (unbroadcast(g, a.array.shape) if need_a else None), gb


# -- Pow --------------------------------------------------------------------------------------

def _pow_int_int(x, y):
    """Integer ``x ** y`` (wrapping) for integer exponents, including negative ones.

    A negative exponent gives the truncated value of ``1 / x**-y``: 1 for
    ``x == 1``, +-1 for ``x == -1``, and 0 otherwise (also for ``x == 0``,
    where the true value is infinite).
    """
    # Exponents beyond x's range (they overflow anyway unless x is -1, 0 or 1)
    # are clamped to the largest one of the same parity, which keeps (-1) ** y.
    top = min(np.iinfo(x.dtype).max, np.iinfo(y.dtype).max)  # 2**k - 1: odd
    neg = None if y.dtype.kind == "u" else y < 0
    e = np.minimum(y, (y & 1) + (top - 1)) if np.iinfo(y.dtype).max > top else y
    if neg is not None:
        e = np.maximum(e, 0)
    e = e.astype(x.dtype, copy=False)
    result = np.power(x, e, out=_NO_OUT)
    if neg is not None and neg.any():
        odd = (y & 1).astype(bool)
        inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(x.dtype)
        result = np.where(neg, inverse, result)
    return result


@defop("Pow", inputs="X:T Y:T1", outputs="Z:T",
       types={"T": dt.FLOATS | {dt.int32, dt.int64} | dt.COMPLEX, "T1": dt.NUMERIC | dt.COMPLEX},
       infer=broadcast_infer)
def pow_():
    """Elementwise ``X ** Y``; the exponent may have another type, the result has X's type.

    Mixed types are computed in float64 (or in integers for two integer types)
    and cast to X's dtype (a float result for an integer X is truncated
    toward zero).  Complex (not ONNX): a complex X takes any exponent (converted to X's type); a
    complex exponent needs a complex X (a real result would drop the imaginary part).
    """

    def kernel(x, y, out=None):
        if x.dtype == y.dtype and x.dtype.kind != "i":
            return np.power(x, y, out=_NO_OUT if out is None else out)
        if x.dtype.kind == "c":
            return np.power(x, y.astype(x.dtype), out=_NO_OUT if out is None else out)
        if y.dtype.kind == "c":
            raise DTypeError(f"Pow: a complex exponent ({dt.type_name(y.dtype)}) needs a complex base, "
                             f"got {dt.type_name(x.dtype)}")
        if x.dtype.kind == "i" and y.dtype.kind in "iu":
            return copy_out(_pow_int_int(x, y), out)
        wide = np.power(x.astype(np.float64), y.astype(np.float64), out=_NO_OUT)
        return copy_out(wide.astype(x.dtype, copy=False), out)

    return kernel


@register_gradient("Pow")
def _pow_grad(node, g):
    """dZ/dX = Y * X**(Y-1) (0 where Y == 0, even at X == 0); dZ/dY = Z * log(X) (0 where X == 0 and Y >= 0).

    Both zero cases are torch's: the limits instead of ``0 * inf``.  They are made without Where by
    moving the singular point: X**(Y-1) becomes X**0 where Y == 0, and log(X) becomes log(1) where
    X == 0 and Y >= 0 (the masks are constants, so higher orders are unchanged elsewhere).  The
    exponent gradient needs X > 0 (log of a negative base is NaN, as in torch).  An exponent of
    another dtype is cast to X's for the formulas and its gradient cast back.  Complex: both factors
    are conjugated, and log(X) is replaced at X == 0 when Y is real and >= 0.
    """
    x, y = node.inputs
    need_x, need_y = node.needs_input_grad
    ftype = g.array.dtype
    zero = scalar(0, ftype)
    if not isinstance(y, Tensor):  # a constant exponent: its helper values are constants too
        yx = np.asarray(y, ftype)
        e = yx - (yx != 0).astype(ftype)
    else:
        yx = cast_to(y, ftype)
        e = execute("Sub", yx, execute("Cast", execute("Not", execute("Equal", yx, zero)), to=ftype))
    gx = gy = None
    if need_x:
        gx = unbroadcast(execute("Mul", g, conj(execute("Mul", yx, execute("Pow", x, e)))), x.array.shape)
    if need_y:
        at_zero = execute("And", execute("Equal", x, zero), _real_non_negative(yx))
        log_x = execute("Log", execute("Add", x, execute("Cast", at_zero, to=ftype)))
        gy = execute("Mul", g, conj(execute("Mul", node.output(0), log_x)))
        if y.array.dtype != ftype:
            gy = _cast_back(gy, y.array.dtype)
        gy = unbroadcast(gy, y.array.shape)
    return gx, gy


def _real_non_negative(y):
    """``y >= 0`` for a real ``y``; for a complex one, a zero imaginary part and a real part >= 0."""
    if array_of(y).dtype.kind != "c":
        return execute("GreaterOrEqual", y, scalar(0, array_of(y).dtype))
    re, im = execute("Real", y), execute("Imag", y)
    zero = scalar(0, re.array.dtype)
    return execute("And", execute("GreaterOrEqual", re, zero), execute("Equal", im, zero))


def _cast_back(g, dtype):
    """A gradient converted to an input's dtype (the real part for a real input of a complex formula)."""
    if g.array.dtype.kind == "c" and dtype.kind != "c":
        g = execute("Real", g)
    return g if g.array.dtype == dtype else execute("Cast", g, to=dtype)


# -- Min, Max, Sum, Mean ----------------------------------------------------------------------

def _broadcast_shape(op_type, arrays):
    try:
        return np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shown = ", ".join(describe(a) for a in arrays)
        raise ShapeError(f"{op_type}: inputs {shown} cannot be broadcast together") from None


def _fold(op_type, ufunc):
    """Kernel applying a binary ufunc across any number of broadcast inputs (left to right)."""

    def kernel(*xs, out=None):
        if len(xs) == 2:
            return ufunc(xs[0], xs[1], out=_NO_OUT if out is None else out)
        if out is None:
            out = np.empty(_broadcast_shape(op_type, xs), xs[0].dtype)
        elif len(xs) > 2:
            _broadcast_shape(op_type, xs)  # a result buffer must not silently absorb a bad shape
        if len(xs) == 1:
            np.copyto(out, xs[0])
            return out
        ufunc(xs[0], xs[1], out=out)
        for x in xs[2:]:
            ufunc(out, x, out=out)
        return out

    return kernel


for _name, _ufunc, _types, _doc in (
    ("Min", np.minimum, dt.NUMERIC, "Elementwise minimum of the inputs (broadcast); NaN propagates."),
    ("Max", np.maximum, dt.NUMERIC, "Elementwise maximum of the inputs (broadcast); NaN propagates."),
    ("Sum", np.add, dt.FLOATS, "Elementwise sum of the inputs (broadcast)."),
):
    def _factory(_name=_name, _ufunc=_ufunc):
        return _fold(_name, _ufunc)

    _factory.__doc__ = _doc
    defop(_name, inputs="data_0*:T", outputs=f"{_name.lower()}:T", types={"T": _types},
          infer=broadcast_infer)(_factory)


@register_gradient("Min", "Max")
def _min_max_grad(node, g):
    """The gradient goes to the input(s) equal to the result; ``k`` tied inputs get ``g / k`` each.

    For two inputs this is torch.maximum/minimum's rule (half to each on a tie); for more it is the
    natural extension (torch's amax/amin spread the gradient evenly over ties the same way).  Where
    the result is NaN no input gets a gradient.
    """
    xs = node.inputs
    if len(xs) == 1:
        return (g,)
    out = node.output(0)
    masks = [execute("Equal", x, out) for x in xs]
    count = execute("Cast", masks[0], to=g.array.dtype)
    for m in masks[1:]:
        count = execute("Add", count, execute("Cast", m, to=g.array.dtype))
    share = execute("Div", g, count)
    return tuple(unbroadcast(_masked(m, share), x.array.shape) if need else None
                 for x, m, need in zip(xs, masks, node.needs_input_grad))


@register_gradient("Sum")
def _sum_grad(node, g):
    return tuple(unbroadcast(g, x.array.shape) if need else None
                 for x, need in zip(node.inputs, node.needs_input_grad))


@defop("Mean", inputs="data_0*:T", outputs="mean:T", types={"T": dt.FLOATS}, infer=broadcast_infer)
def mean():
    """Elementwise mean of the inputs (broadcast): their sum divided by their count."""
    total = _fold("Mean", np.add)

    def kernel(*xs, out=None):
        if len(xs) == 1:
            return total(*xs, out=out)
        s = total(*xs, out=out)
        return np.divide(s, s.dtype.type(len(xs)), out=s)

    return kernel


@register_gradient("Mean")
def _mean_grad(node, g):
    share = execute("Div", g, scalar(len(node.inputs), g.array.dtype))
    return tuple(unbroadcast(share, x.array.shape) if need else None
                 for x, need in zip(node.inputs, node.needs_input_grad))


# -- Clip -------------------------------------------------------------------------------------

_CLIP_FROM = 2048  # elements from which np.clip beats maximum + minimum


def _bound(name, value):
    require("Clip", value.size == 1, f"input '{name}' must be a scalar, got {describe(value)}")
    return value.reshape(())


@defop("Clip", inputs="input:T min?:T max?:T", outputs="output:T", types={"T": dt.NUMERIC}, infer=same_as_first)
def clip():
    """Limit values to ``[min, max]`` (optional scalar inputs); ``min > max`` gives ``max`` everywhere."""

    def kernel(x, lo=None, hi=None, out=None):
        if lo is None and hi is None:
            return x.copy() if out is None else copy_out(x, out)
        result = _NO_OUT if out is None else out
        if lo is not None and hi is not None and x.size >= _CLIP_FROM and x.dtype != dt.bfloat16:
            # numpy's clip loop is one pass, about 3x faster than maximum + minimum on large arrays (its
            # Python wrapper costs more on small ones; it would give bfloat16 input float32 results).
            return np.clip(x, _bound("min", lo), _bound("max", hi), out=out)
        if lo is not None:
            result = maximum_scalar(x, _bound("min", lo), result)
            x = result
        if hi is not None:
            result = minimum_scalar(x, _bound("max", hi), result)
        return result

    return kernel


def _scalar_sum(g, shape):
    """``g`` summed to a single value, shaped like the scalar-sized bound ``shape``."""
    return execute("Reshape", execute("ReduceSum", g, int64s([]), keepdims=0), int64s(shape))


@register_gradient("Clip")
def _clip_grad(node, g):
    """The gradient goes to whichever of input, min, max the result took (torch.clamp's rule).

    The input keeps it where ``min <= x <= max`` (boundaries included, as torch); ``min`` gets the
    sum over places where ``x < min <= max``; ``max`` where ``x > max`` or ``min > max`` (then the
    result is ``max`` everywhere).  At NaN places the input gets nothing.
    """
    x, lo, hi = (tuple(node.inputs) + (None, None))[:3]
    need = tuple(node.needs_input_grad) + (False, False)
    if lo is None and hi is None:
        return (g,)
    # The bounds have one element but maybe some rank: as 0-d they broadcast to x's shape only.
    lo0 = lo if lo is None or not array_of(lo).ndim else reshape_to(lo, [])
    hi0 = hi if hi is None or not array_of(hi).ndim else reshape_to(hi, [])
    if hi is None:
        keep, to_lo, to_hi = execute("GreaterOrEqual", x, lo0), execute("Less", x, lo0), None
    elif lo is None:
        keep, to_lo, to_hi = execute("LessOrEqual", x, hi0), None, execute("Greater", x, hi0)
    else:
        keep = execute("And", execute("GreaterOrEqual", x, lo0), execute("LessOrEqual", x, hi0))
        to_lo = execute("And", execute("Less", x, lo0), execute("LessOrEqual", lo0, hi0))
        to_hi = execute("Or", execute("Greater", x, hi0), execute("Greater", lo0, hi0))
    return (_masked(keep, g) if need[0] else None,
            _scalar_sum(_masked(to_lo, g), lo.array.shape) if need[1] else None,
            _scalar_sum(_masked(to_hi, g), hi.array.shape) if need[2] else None)


# -- BitShift ---------------------------------------------------------------------------------

@defop("BitShift", inputs="X:T Y:T", outputs="Z:T", types={"T": dt.INTS},
       attrs={"direction": Attr("string", choices=("LEFT", "RIGHT"))}, infer=broadcast_infer)
def bitshift(direction):
    """Shift X's bits by Y places (arithmetic right shift for signed types).

    Shifts by a negative amount or by at least the bit width give the sign
    fill alone: -1 for a right shift of a negative value, 0 otherwise
    (ONNX opset 28; numpy's shifts behave exactly so).
    """
    return ufunc_kernel(np.left_shift if direction == "LEFT" else np.right_shift)()


not_differentiable("BitShift")  # integers only
