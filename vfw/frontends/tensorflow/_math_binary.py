"""Binary elementwise arithmetic of tf.math: add ... pow, maximum/minimum, the *_no_nan and x*y ops, add_n.

Each raw op checks TF's dtype rules (``OpTypes``), converts Python values as TF's executor does
(``matching``; ``add`` and the division functions follow their Python wrappers' own rules) and
broadcasts like numpy.  Integer division by zero raises as TF's kernels do.  Gradients are TF's:
where the engine's convention differs (ties of maximum/minimum, pow at x <= 0, the no_nan ops,
floordiv and truncatediv having none), ``with_gradient`` supplies TF's formula.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    host,
    is_tensor_like,
    mismatch,
    op,
    op_error,
    scalar_tensor,
    tensor_of,
    wrap,
)
from vfw.frontends.tensorflow._op_support import (
    PY_NUMBERS,
    OpTypes,
    check_broadcast,
    detached,
    incompatible,
    matching,
    scalar_like,
    with_dtype,
    with_gradient,
)
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._tensor import Tensor


def binary_kernel(types, engine_op, fast=None, check=None, differentiable=True, **attrs):
    """``apply(x, y)``: TF raw op ``types.name`` on two tensors, computed by ``engine_op``.

    Parameters
    ----------
    types : OpTypes
    engine_op : str
        The engine op (with ``attrs``) computing the values.
    fast : callable, optional
        ``fast(a, b)`` on arrays for the non-recording path (default: the engine kernel).
    check : callable, optional
        ``check(a, b)`` on arrays before computing (raises TF's kernel errors).
    differentiable : bool
        False for ops TF gives no gradient (their inputs are cut from tapes).
    """
    bound = op(engine_op, **attrs)
    fast = fast or bound.kernel
    tf_op = types.name
    kernels = types.kernels

    def apply(x, y):
        a = x.array
        b = y.array
        d = a.dtype
        if d not in kernels:  # TF looks the kernel up for the first input's dtype first
            raise types.error(d)
        if b.dtype != d:
            raise mismatch(tf_op, d, b.dtype)
        if check is not None:
            check(a, b)
        if _tracing or x.requires_grad or y.requires_grad:
            check_broadcast(tf_op, a, b)
            if not differentiable:
                x, y = detached(x), detached(y)
            return call(bound, x, y, tf_op=tf_op)
        try:
            result = fast(a, b)
        except ValueError:
            raise incompatible(tf_op, a, b) from None
        if _dispatch.numerics_hook is not None:
            _dispatch.numerics_hook(tf_op, (x, y), result, False)
        return wrap(result)

    apply.types = types
    return apply


def raw_binary(tf_op, apply, doc):
    """The public function of raw binary op ``tf_op``: TF's eager conversion of its operands, then ``apply``."""
    types = apply.types

    def fn(x, y, name=None):
        if x.__class__ is not Tensor or y.__class__ is not Tensor:
            x, y = matching(tf_op, x, y, types=types)
        return apply(x, y)

    fn.__doc__ = doc
    return fn


def _kernel(name, allowed, engine_op, kernels=None, **options):
    return binary_kernel(OpTypes(name, allowed, kernels), engine_op, **options)


def _integer_divisor_check(tf_op, error):
    message = ("Integer division by zero" if error is errors.InvalidArgumentError else
               "Unexpected error in binary operator (only integer div and mod should have errors)")

    def check(a, b):
        if b.dtype.kind in "iu" and not b.all():
            raise op_error(message, tf_op, error)

    return check


_add = _kernel("AddV2", "F I U C", "Add", fast=np.add)
_sub = _kernel("Sub", "F I U C", "Sub", fast=np.subtract)
_mul = _kernel("Mul", "F I U C", "Mul", fast=np.multiply)
_realdiv = _kernel("RealDiv", "F I U C", "Div", kernels="F C", fast=np.true_divide)
_floordiv_int = _kernel("FloorDiv", "F I U", "FloorDiv", differentiable=False,
                        check=_integer_divisor_check("FloorDiv", errors.InvalidArgumentError))
_FLOOR_DIV = _floordiv_int.types


def _floordiv(x, y):
    """FloorDiv on tensors: numpy's floor division for integers, ``floor(x / y)`` for floats (TF's kernel:
    ``1.0 // 0.1`` is 10, ``inf // 2`` is inf)."""
    if x.array.dtype.kind in "iu":
        return _floordiv_int(x, y)
    _FLOOR_DIV.check(x.array.dtype)
    if y.array.dtype != x.array.dtype:
        raise mismatch("FloorDiv", x.array.dtype, y.array.dtype)
    check_broadcast("FloorDiv", x.array, y.array)
    return call("Floor", call("Div", detached(x), detached(y), tf_op="FloorDiv"))  # no gradient in TF


_floordiv.types = _FLOOR_DIV
_floormod = _kernel("FloorMod", "F I U", "Mod", fmod=0,
                    check=_integer_divisor_check("FloorMod", errors.InvalidArgumentError))
_truncatediv_int = _kernel("TruncateDiv", "F I U", "Div", differentiable=False,
                           check=_integer_divisor_check("TruncateDiv", errors.InternalError))
_atan2 = _kernel("Atan2", "F", "Atan2")

subtract = raw_binary("Sub", _sub, "Elementwise ``x - y`` (broadcast).")
multiply = raw_binary("Mul", _mul, "Elementwise ``x * y`` (broadcast).")
realdiv = raw_binary("RealDiv", _realdiv, "Elementwise ``x / y`` for floats (TF's RealDiv: no kernel for integers).")
floordiv = raw_binary("FloorDiv", _floordiv,
                      "Elementwise ``x // y`` rounded toward -inf; integer division by zero raises.")
floormod = raw_binary("FloorMod", _floormod, "Elementwise remainder with the divisor's sign (Python's ``%``).")
mod = floormod
atan2 = raw_binary("Atan2", _atan2, "Elementwise ``atan2(y, x)``: the angle of the point ``(x, y)``, in [-pi, pi].")


def add(x, y, name=None):
    """Elementwise ``x + y`` (broadcast); ``y`` is converted preferring ``x``'s dtype."""
    if x.__class__ is not Tensor or y.__class__ is not Tensor:
        x = convert_to_tensor(x)
        exact = scalar_tensor(y, x.array.dtype) if y.__class__ in PY_NUMBERS else None
        y = convert_to_tensor(y, dtype_hint=x.array.dtype) if exact is None else exact
    if x.array.dtype.char == "O":
        return _concatenated(x, y)
    return _add(x, y)


def _concatenated(x, y):
    """``x + y`` on string tensors: TF's ``Add`` kernel (``AddV2`` has none for strings) concatenates them."""
    if y.array.dtype.char != "O":
        raise mismatch("Add", object, y.array.dtype)
    check_broadcast("Add", x.array, y.array)
    return host(lambda a, b: np.asarray(a + b, object), x, y)


# -- truncating division ------------------------------------------------------------------------
_TRUNCATE_DIV = OpTypes("TruncateDiv", "F I U")


def _truncatediv_float(x, y):
    return call("Trunc", call("Div", x, y, tf_op="TruncateDiv"), tf_op="TruncateDiv")


def truncatediv(x, y, name=None):
    """Elementwise ``x / y`` rounded toward zero (C division); integer division by zero raises."""
    x, y = matching("TruncateDiv", x, y, types=_TRUNCATE_DIV)
    if x.array.dtype.kind in "iu":
        return _truncatediv_int(x, y)
    check_broadcast("TruncateDiv", x.array, y.array)
    return _truncatediv_float(detached(x), detached(y))  # TF defines no gradient


_TRUNCATE_MOD = OpTypes("TruncateMod", "int32 int64 F", "int32 int64 float32 float64")
_truncatemod_check = _integer_divisor_check("TruncateMod", errors.InternalError)


def _no_gradient(tf_op):
    def backward(g, *inputs):
        raise LookupError(f"gradient registry has no entry for: {tf_op}")

    return backward


def truncatemod(x, y, name=None):
    """Elementwise remainder with the dividend's sign (C ``fmod``); integer division by zero raises."""
    x, y = matching("TruncateMod", x, y, types=_TRUNCATE_MOD)
    _truncatemod_check(x.array, y.array)
    check_broadcast("TruncateMod", x.array, y.array)
    return with_gradient(lambda a, b: call("Mod", a, b, fmod=1, tf_op="TruncateMod"), _no_gradient("TruncateMod"),
                         x, y)


# -- pow -----------------------------------------------------------------------------------------
_POW = OpTypes("Pow", "F I C")
_WIDENED = np.dtype(np.int32)


def _pow_values(x, y):
    if x.array.dtype.itemsize < 4 and x.array.dtype.kind == "i":  # int8/int16: the engine computes in int32
        wide = call("Pow", call("Cast", x, to=_WIDENED), call("Cast", y, to=_WIDENED), tf_op="Pow")
        return call("Cast", wide, to=x.array.dtype, tf_op="Pow")
    return call("Pow", x, y, tf_op="Pow")


def _pow_backward(g, x, y):
    # TF's formulas: d/dx = y * x**(y - 1) (NaN at x = y = 0), d/dy = z * log(x) where x > 0, else 0.
    one = scalar_like(1, x)
    zero = scalar_like(0, x)
    gx = call("Mul", g, call("Mul", y, call("Pow", x, call("Sub", y, one))))
    positive = call("Greater", x, zero)
    log_x = call("Where", positive, call("Log", call("Where", positive, x, one)), zero)
    gy = call("Mul", g, call("Mul", call("Pow", x, y), log_x))
    return gx, gy


def pow(x, y, name=None):  # noqa: A001  (tf.pow)
    """Elementwise ``x ** y``; integers to negative integer powers raise InvalidArgumentError."""
    x, y = matching("Pow", x, y, types=_POW)
    d = x.array.dtype
    check_broadcast("Pow", x.array, y.array)
    if d.kind == "i" and (y.array < 0).any():
        raise op_error("Integers to negative integer powers are not allowed", "Pow")
    if d.kind == "c":  # the engine's complex gradients are TF's: conj(y x**(y-1)) and conj(x**y log x)
        return call("Pow", x, y, tf_op="Pow")
    return with_gradient(_pow_values, _pow_backward, x, y)


# -- maximum / minimum ---------------------------------------------------------------------------
def _selector(tf_op, engine_op, compare):
    types = OpTypes(tf_op, "F I U")
    bound = op(engine_op)

    def backward(g, x, y):
        # TF's rule: the whole gradient goes to x where compare(x, y) holds (ties included), else to y.
        mask = call(compare, x, y)
        zero = scalar_like(0, g)
        return call("Where", mask, g, zero), call("Where", mask, zero, g)

    def forward(x, y):
        return call(bound, x, y, tf_op=tf_op)

    def fn(x, y, name=None):
        if x.__class__ is not Tensor or y.__class__ is not Tensor:
            x, y = matching(tf_op, x, y, types=types)
        a, b = x.array, y.array
        types.check(a.dtype)
        if b.dtype != a.dtype:
            raise mismatch(tf_op, a.dtype, b.dtype)
        if not (_tracing or x.requires_grad or y.requires_grad):
            try:
                result = bound.kernel(a, b)
            except ValueError:
                raise incompatible(tf_op, a, b) from None
            if _dispatch.numerics_hook is not None:
                _dispatch.numerics_hook(tf_op, (x, y), result, False)
            return wrap(result)
        check_broadcast(tf_op, a, b)
        return with_gradient(forward, backward, x, y)

    return fn


maximum = _selector("Maximum", "Max", "GreaterOrEqual")
maximum.__doc__ = "Elementwise maximum (NaN propagates; on ties the gradient goes to ``x``)."
minimum = _selector("Minimum", "Min", "LessOrEqual")
minimum.__doc__ = "Elementwise minimum (NaN propagates; on ties the gradient goes to ``x``)."


# -- squared difference, the no_nan and x*f(y) ops -----------------------------------------------
_SQUARED_DIFFERENCE = OpTypes("SquaredDifference", "F int32 int64 C")


def _conj(t):
    """The complex conjugate of ``t`` (``t`` itself when real)."""
    return call("Conj", t) if t.array.dtype.kind == "c" else t


def _squared_difference(x, y):
    difference = call("Sub", x, y, tf_op="SquaredDifference")
    return call("Mul", difference, _conj(difference), tf_op="SquaredDifference")


def _squared_difference_backward(g, x, y):
    # TF's gradient: 2 g (x - y) for x and its negative for y, the real formula also for complex values.
    gx = call("Mul", call("Mul", g, scalar_like(2, g)), call("Sub", x, y))
    return gx, call("Neg", gx)


def squared_difference(x, y, name=None):
    """Elementwise ``(x - y) ** 2``; for complex tensors ``(x - y) * conj(x - y)`` (``|x - y| ** 2``), as TF's."""
    x, y = matching("SquaredDifference", x, y, types=_SQUARED_DIFFERENCE)
    check_broadcast("SquaredDifference", x.array, y.array)
    if x.array.dtype.kind == "c":
        return with_gradient(_squared_difference, _squared_difference_backward, x, y)
    return _squared_difference(x, y)


def _where_zero(mask, value):
    """``value`` where ``mask`` is False, 0 where it is True."""
    return call("Where", mask, scalar_like(0, value), value)


def _is_zero(t):
    return call("Equal", t, scalar_like(0, t))


def _safe(t, mask):
    """``t`` with 1 where ``mask`` holds (a denominator that cannot produce NaN there)."""
    return call("Where", mask, scalar_like(1, t), t)


def _div_no_nan(x, y):
    zero = _is_zero(y)
    return _where_zero(zero, call("Div", x, _safe(y, zero)))


def _mul_no_nan(x, y):
    return _where_zero(_is_zero(y), call("Mul", x, y))


def _xlogy(x, y):
    return _where_zero(_is_zero(x), call("Mul", x, call("Log", y)))


def _xlog1py(x, y):
    return _where_zero(_is_zero(x), call("Mul", x, call("Log1p", y)))


def _xdivy(x, y):
    zero = _is_zero(x)
    return _where_zero(zero, call("Div", x, _safe(y, zero)))


def _nonzero(x):
    """1 where ``x != 0``, else 0, in x's dtype."""
    return call("Cast", call("Not", _is_zero(x)), to=x.array.dtype)


def _div_no_nan_backward(g, x, y):
    x, y = _conj(x), _conj(y)  # TF's: complex gradients take the conjugate derivatives
    return _div_no_nan(g, y), call("Mul", g, _div_no_nan(_div_no_nan(call("Neg", x), y), y))


def _mul_no_nan_backward(g, x, y):
    return _mul_no_nan(g, y), _mul_no_nan(x, g)


def _xlogy_backward(g, x, y):
    return call("Mul", g, _xlogy(_nonzero(x), y)), call("Mul", g, _xdivy(x, y))


def _xdivy_backward(g, x, y):
    return (call("Mul", g, _xdivy(_nonzero(x), y)),
            call("Mul", g, _xdivy(call("Neg", x), call("Mul", y, y))))


def _xlog1py_backward(g, x, y):
    return (call("Mul", g, _xlog1py(_nonzero(x), y)),
            call("Mul", g, _xdivy(x, call("Add", y, scalar_like(1, y)))))


def _guarded(tf_op, forward, backward, convert=None):
    """A float raw op computed by ``forward`` (engine ops) with TF's gradient ``backward``; ``convert(x, y)``
    replaces the raw op's operand conversion where TF's Python wrapper has its own."""
    types = OpTypes(tf_op, "F C")

    def fn(x, y, name=None):
        x, y = convert(x, y) if convert is not None else matching(tf_op, x, y, types=types)
        types.check(x.array.dtype)
        if y.array.dtype != x.array.dtype:
            raise mismatch(tf_op, x.array.dtype, y.array.dtype)
        check_broadcast(tf_op, x.array, y.array)
        return with_gradient(forward, backward, x, y)

    return fn


def _second_takes_first_dtype(x, y):
    """``multiply_no_nan``'s conversion: ``x`` as it is, ``y`` to x's dtype (ValueError for a tensor of another)."""
    x = convert_to_tensor(x)
    return x, convert_to_tensor(y, _dtypes.of_array(x.array))


multiply_no_nan = _guarded("MulNoNan", _mul_no_nan, _mul_no_nan_backward, _second_takes_first_dtype)
multiply_no_nan.__doc__ = "Elementwise ``x * y``, but 0 where ``y`` is 0 (even if ``x`` is inf or NaN)."
xlogy = _guarded("Xlogy", _xlogy, _xlogy_backward)
xlogy.__doc__ = "Elementwise ``x * log(y)``, 0 where ``x`` is 0."
xdivy = _guarded("Xdivy", _xdivy, _xdivy_backward)
xdivy.__doc__ = "Elementwise ``x / y``, 0 where ``x`` is 0."
xlog1py = _guarded("Xlog1py", _xlog1py, _xlog1py_backward)
xlog1py.__doc__ = "Elementwise ``x * log1p(y)``, 0 where ``x`` is 0."
raw_div_no_nan = _guarded("DivNoNan", _div_no_nan, _div_no_nan_backward)


# -- true division --------------------------------------------------------------------------------
# TF's true division casts integers to floats: 8/16-bit integers to float32, wider ones to float64.
_TRUEDIV_FLOAT = {np.dtype(n): np.dtype(np.float32 if n in ("int8", "int16", "uint8", "uint16") else np.float64)
                  for n in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}
_TRUEDIV_NAMES = ("uint8, int8, uint16, int16, uint32, int32, uint64, int64, bfloat16, float16, float32, float64, "
                  "complex64, complex128")


def _division_operands(x, y, fn_name, x_takes_y_dtype):
    """The operands of TF's true division: ``y`` prefers ``x``'s dtype; they must then share it; integers are
    cast to floats (see ``_TRUEDIV_FLOAT``)."""
    if not is_tensor_like(x):
        x = convert_to_tensor(x, tensor_of(y).array.dtype if x_takes_y_dtype and is_tensor_like(y) else None)
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=_dtypes.of_array(x.array))
    dx, dy = x.array.dtype, y.array.dtype
    if dx != dy:
        raise TypeError(f"`x` and `y` must have the same dtype, got {_dtypes.as_dtype(dx)!r} != "
                        f"{_dtypes.as_dtype(dy)!r}.")
    if dx in _TRUEDIV_FLOAT:
        return call("Cast", x, to=_TRUEDIV_FLOAT[dx]), call("Cast", y, to=_TRUEDIV_FLOAT[dx])
    if dx.kind not in "fc" and dx != _dtypes.bfloat16.np:
        raise TypeError(f"Invalid dtype {_dtypes.as_dtype(dx)!r} in {fn_name}. Expected one of {{{_TRUEDIV_NAMES}}}.")
    return x, y


def truediv(x, y, name=None):
    """Elementwise true division: integers are divided as floats (float32 up to 16 bits, float64 above)."""
    if x.__class__ is Tensor and y.__class__ is Tensor and x.array.dtype == y.array.dtype \
            and x.array.dtype.kind == "f":
        return _realdiv(x, y)
    return _realdiv(*_division_operands(x, y, "__truediv__", False))


def divide(x, y, name=None):
    """``x / y`` with TF's true division (a Python ``x`` takes ``y``'s dtype)."""
    if not is_tensor_like(x):
        x = convert_to_tensor(x, tensor_of(y).array.dtype if is_tensor_like(y) else None)
    return truediv_operator(x, y)


def truediv_operator(x, y):
    """``x / y`` for a tensor ``x`` (``Tensor.__truediv__``): ``y`` must convert to ``x``'s dtype."""
    x = convert_to_tensor(x)
    if not is_tensor_like(y):
        y = with_dtype(y, _dtypes.of_array(x.array))
    return truediv(x, y)


def divide_no_nan(x, y, name=None):
    """Elementwise ``x / y``, 0 where ``y`` is 0; integers are divided as floats, as ``truediv``."""
    x, y = _division_operands(x, y, "div_no_nan", True)
    return raw_div_no_nan(x, y)


def legacy_div(x, y):
    """TF's deprecated ``div`` (``Tensor.__div__``): floor division for integers, true division for floats."""
    x = convert_to_tensor(x)
    y = with_dtype(y, _dtypes.of_array(x.array))
    if x.array.dtype.kind in "iu":
        return floordiv(x, y)
    return truediv(x, y)


# -- n-ary and scalar ---------------------------------------------------------------------------
_ADD_N = OpTypes("AddN", "F I U C")


def add_n(inputs, name=None):
    """Elementwise sum of a list of tensors of one shape and dtype (no broadcasting).

    Parameters
    ----------
    inputs : list of Tensor (or a tensor, whose first dimension is summed over)
    """
    if not isinstance(inputs, (list, tuple)) and is_tensor_like(inputs):
        inputs = list(convert_to_tensor(inputs))
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and "
                         "shape.")
    # TF converts each input on its own (a Python int next to a float tensor is an int32 tensor) before AddN
    # compares their dtypes.
    ts = matching("AddN", *[convert_to_tensor(x) for x in inputs], types=_ADD_N)
    _ADD_N.check(ts[0].array.dtype)
    if len(ts) == 1:
        return ts[0]
    for i, t in enumerate(ts[1:], 1):
        if t.array.shape != ts[0].array.shape:
            raise op_error(f"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: "
                           f"[{','.join(map(str, ts[0].array.shape))}] != input {i}: "
                           f"[{','.join(map(str, t.array.shape))}]", "AddN")
    total = ts[0]
    for t in ts[1:]:
        total = call("Add", total, t, tf_op="AddN")
    return total


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``add_n`` with optional checks of the inputs' ``shape`` and ``tensor_dtype`` (deprecated in TF)."""
    ts = [convert_to_tensor(t) for t in inputs] if isinstance(inputs, (list, tuple)) else inputs
    if isinstance(ts, list):
        for t in ts:
            if shape is not None and not TensorShape(shape).is_compatible_with(t.array.shape):
                raise ValueError(f"Shapes {TensorShape(shape)} and {TensorShape(t.array.shape)} are not compatible")
            if tensor_dtype is not None and _dtypes.as_dtype(tensor_dtype) != _dtypes.of_array(t.array):
                raise TypeError(f"The `tensor_dtype` argument is {_dtypes.as_dtype(tensor_dtype)!r}, but `input` is "
                                f"of type {_dtypes.of_array(t.array)!r}. These must be equal. Try casting the input "
                                "to the desired type.")
    return add_n(ts)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-d ``scalar`` (converted to ``x``'s dtype)."""
    dtype = x.dtype if hasattr(x, "dtype") else None
    if dtype is None:
        raise AttributeError(f"'{type(x).__name__}' object has no attribute 'dtype'")
    s = convert_to_tensor(scalar, dtype)
    if s.array.ndim != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {tuple(s.array.shape)}.")
    return multiply(s, x)


NAMESPACES = {
    "tf": ["add", "subtract", "multiply", "divide", "truediv", "realdiv", "truncatediv", "truncatemod", "pow",
           "maximum", "minimum", "scalar_mul", "add_n", "atan2"],
    "math": ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "pow", "maximum",
             "minimum", "squared_difference", "divide_no_nan", "multiply_no_nan", "xlogy", "xdivy", "xlog1py",
             "atan2", "scalar_mul", "add_n", "accumulate_n"],
}
TENSOR_METHODS = {}
