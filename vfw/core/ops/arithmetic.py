"""Elementwise arithmetic (ONNX multidirectional broadcasting).

Binary: Add, Sub, Mul, Div, Pow, Mod, BitShift, BitwiseAnd/Or/Xor.  Unary: Neg,
Abs, Reciprocal, Sign, Floor, Ceil, Round, BitwiseNot.  Variadic: Min, Max,
Sum, Mean.  And Clip.

Integer arithmetic wraps around on overflow (two's complement, like numpy and
the ONNX reference); integer division or modulo by zero gives 0 instead of
failing.  Float results follow IEEE (inf/nan), and NaN propagates through Min,
Max and Clip.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import broadcast_infer, execute, require, same_as_first, ufunc_kernel, unbroadcast
from vfw.core.registry import Attr, defop, describe

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
    _binary(_name, _ufunc, dt.NUMERIC)

for _name, _ufunc in (("BitwiseAnd", np.bitwise_and), ("BitwiseOr", np.bitwise_or), ("BitwiseXor", np.bitwise_xor)):
    _binary(_name, _ufunc, dt.INTS)

_unary("BitwiseNot", np.invert, dt.INTS)
_unary("Neg", np.negative, dt.SIGNED)
_unary("Abs", np.absolute, dt.NUMERIC)
_unary("Sign", np.sign, dt.NUMERIC, names="input output")
_unary("Reciprocal", np.reciprocal, dt.FLOATS)
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
        gb = unbroadcast(g if node.op.schema.op_type == "Add" else execute("Neg", g), b.shape)
    return (unbroadcast(g, a.shape) if need_a else None), gb


@register_gradient("Mul")
def _mul_grad(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    return (unbroadcast(execute("Mul", g, b), a.shape) if need_a else None,
            unbroadcast(execute("Mul", g, a), b.shape) if need_b else None)


@register_gradient("Neg")
def _neg_grad(node, g):
    return (execute("Neg", g),)


def _into(out, result):
    """Return ``result``, copied into ``out`` when a buffer was given."""
    if out is None:
        return result
    np.copyto(out, result)
    return out


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


@defop("Div", inputs="A:T B:T", outputs="C:T", types={"T": dt.NUMERIC}, infer=broadcast_infer)
def div():
    """Elementwise ``A / B``; integer division truncates toward zero (x / 0 gives 0 for integers)."""

    def kernel(a, b, out=None):
        return _DIV.get(a.dtype.kind, _div_float)(a, b, out)

    return kernel


@register_gradient("Div")
def _div_grad(node, g):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    ga = execute("Div", g, b)  # d(a/b)/da = 1/b; d(a/b)/db = -(a/b)/b
    gb = execute("Neg", execute("Mul", ga, node.output(0))) if need_b else None
    return (unbroadcast(ga, a.shape) if need_a else None), (None if gb is None else unbroadcast(gb, b.shape))


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
       types={"T": dt.FLOATS | {dt.int32, dt.int64}, "T1": dt.NUMERIC}, infer=broadcast_infer)
def pow_():
    """Elementwise ``X ** Y``; the exponent may have another type, the result has X's type.

    Mixed types are computed in float64 (or in integers for two integer types)
    and cast to X's dtype (a float result for an integer X is truncated
    toward zero).
    """

    def kernel(x, y, out=None):
        if x.dtype == y.dtype and x.dtype.kind != "i":
            return np.power(x, y, out=_NO_OUT if out is None else out)
        if x.dtype.kind == "i" and y.dtype.kind in "iu":
            return _into(out, _pow_int_int(x, y))
        wide = np.power(x.astype(np.float64), y.astype(np.float64), out=_NO_OUT)
        return _into(out, wide.astype(x.dtype, copy=False))

    return kernel


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


# -- Clip -------------------------------------------------------------------------------------

def _bound(name, value):
    require("Clip", value.size == 1, f"input '{name}' must be a scalar, got {describe(value)}")
    return value.reshape(())


@defop("Clip", inputs="input:T min?:T max?:T", outputs="output:T", types={"T": dt.NUMERIC}, infer=same_as_first)
def clip():
    """Limit values to ``[min, max]`` (optional scalar inputs); ``min > max`` gives ``max`` everywhere."""

    def kernel(x, lo=None, hi=None, out=None):
        if lo is None and hi is None:
            return _into(out, x.copy())
        result = _NO_OUT if out is None else out
        if lo is not None:
            result = np.maximum(x, _bound("min", lo), out=result)
            x = result
        if hi is not None:
            result = np.minimum(x, _bound("max", hi), out=result)
        return result

    return kernel


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
