"""Elementwise unary math and activations, and the helpers the elementwise families share.

torch's rules kept here: unary float functions of integer/bool tensors return the
default float dtype; ``abs``, ``neg``, ``square``, ``sign`` and the roundings keep
integer dtypes.  Binary arithmetic and the arithmetic operators live in
``_arithmetic.py``; comparisons, logic, bitwise ops, ``where`` and ``clamp`` in
``_comparison.py``.

Hot paths (``torch.exp(x)``, ``relu``, and in the sibling modules ``x + y``,
``x * 2.0``...) call the kernel (for most, the numpy ufunc) straight away when
nothing records (no input requires grad and no graph trace is open): the values
are the engine path's.  Everything else runs engine ops through ``_run``.
"""

import builtins
import math

import ml_dtypes
import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dtype, _half_steps
from vfw.frontends.torch._dispatch import (
    as_torch,
    call,
    cast,
    finish,
    inplace,
    op,
    promoted,
    result_dtype,
    scalar_array,
    to_tensor,
    translate,
    type_name,
)
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch._traced import own_memory

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_FLOATS = frozenset(dt.FLOATS)
# Floats whose numpy ufuncs take Python numbers in the tensor's own precision (NEP 50), as torch does.
_NATIVE_FLOATS = frozenset(np.dtype(d) for d in (np.float16, np.float32, np.float64))
_INTS = frozenset(np.dtype(d) for d in (np.uint8, np.int8, np.int16, np.int32, np.int64))
_NUMBERS = (int, float, complex, np.number, np.bool_)
_SAME_WIDTH_INT = {n: np.dtype(f"int{8 * n}") for n in (2, 4, 8)}
_INT64_MIN, _INT64_END = -2 ** 63, 2 ** 63


def _default_float():
    return _dtype.default_float_np()


# -- running engine ops ---------------------------------------------------------------------------
def _result(array):
    """A new grad-free torch tensor around a kernel result (0-d numpy scalars become arrays)."""
    t = _new(Tensor)
    t.array = array if type(array) is _ndarray else _asarray(array)
    t.requires_grad = False
    t.grad_node = None
    return t


def _run(bound, *inputs):
    """Run a bound engine op on tensors/arrays; the kernel is called directly when nothing can record
    (no input requires grad and no trace is open), else through the executor."""
    if _tracing:
        return call(bound, *inputs)
    for x in inputs:
        if isinstance(x, CoreTensor) and x.requires_grad:
            return call(bound, *inputs)
    try:
        return _result(bound(*[x.array if isinstance(x, CoreTensor) else x for x in inputs]))
    except VfwError as e:
        raise translate(e, bound=bound, inputs=inputs) from None


_PLAIN_OPS = {}
_ATTR_OPS = {}


def _op(op_type, **attrs):
    """A bound engine op, cached here (ops without attributes by type alone: the hot case)."""
    if not attrs:
        bound = _PLAIN_OPS.get(op_type)
        if bound is None:
            bound = _PLAIN_OPS[op_type] = op(op_type)
        return bound
    key = (op_type, tuple(sorted(attrs.items())))
    bound = _ATTR_OPS.get(key)
    if bound is None:
        bound = _ATTR_OPS[key] = op(op_type, **attrs)
    return bound


def _scalar(value, np_dtype):
    return scalar_array(value, np_dtype)


# -- arguments ------------------------------------------------------------------------------------
def tensor_arg(x, fn, arg="input", pos=1):
    """``x`` if it is a tensor, else torch's TypeError for ``fn``."""
    if isinstance(x, CoreTensor):
        return x
    raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def operand(x, fn, arg="other", pos=2):
    """A tensor or Python/numpy number for ``fn`` (numpy arrays become tensors); TypeError otherwise."""
    if isinstance(x, CoreTensor):
        return x
    if isinstance(x, _NUMBERS):
        if isinstance(x, np.generic):  # torch reads numpy scalars as Python numbers (numpy bools as floats)
            x = int(x) if x.dtype.kind in "iu" else complex(x) if x.dtype.kind == "c" else float(x)
        if type(x) is int and not _INT64_MIN <= x < _INT64_END:
            raise OverflowError("int too big to convert")
        return x
    if isinstance(x, np.ndarray):
        return to_tensor(x)
    raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor or Number, not {type(x).__name__}")


def is_operand(x):
    """Whether a Python operator can take ``x`` (others make the operator return NotImplemented)."""
    return isinstance(x, (CoreTensor, np.ndarray) + _NUMBERS)


def _is_bool(x):
    return (x.array.dtype == _BOOL) if isinstance(x, CoreTensor) else isinstance(x, (bool, np.bool_))


def not_implemented(fn, np_dtype):
    """torch's error for a dtype a kernel does not support."""
    return NotImplementedError(f'"{fn}" not implemented for \'{type_name(np_dtype)}\'')


def _floating(x, fn, complex_ok=False):
    """``x`` as a float tensor: integer and bool tensors become the default float dtype; complex tensors
    pass where ``complex_ok`` (the engine op has a complex kernel), else torch's NotImplementedError."""
    x = tensor_arg(x, fn)
    if x.array.dtype in _FLOATS:
        return x
    if x.array.dtype.kind == "c":
        if complex_ok:
            return x
        raise not_implemented(fn, x.array.dtype)
    return cast(as_torch(x), _default_float())


def promote2(a, b):
    """``(x, y, dtype)``: two checked operands promoted to one dtype (see ``promoted``), with the common
    cases short: same-dtype tensors, a float tensor with a Python number, an int64 tensor with an int."""
    if isinstance(a, CoreTensor):
        d = a.array.dtype
        if isinstance(b, CoreTensor):
            if b.array.dtype is d:
                return a, b, d
        elif (type(b) is float and d in _FLOATS) or (type(b) is int and (d in _FLOATS or d == _I64)):
            return a, scalar_array(b, d), d
    elif isinstance(b, CoreTensor):
        d = b.array.dtype
        if (type(a) is float and d in _FLOATS) or (type(a) is int and (d in _FLOATS or d == _I64)):
            return scalar_array(a, d), b, d
    (x, y), d = promoted(a, b)
    return x, y, d


def _binary(fn, input, other, np_dtype=None):
    """The two operands of ``fn`` checked and promoted: ``(a, b, dtype)`` (``dtype`` forced when given)."""
    input = operand(input, fn, "input", 1)
    other = operand(other, fn)
    if np_dtype is None:
        return promote2(input, other)
    (a, b), np_dtype = promoted(input, other, np_dtype=np_dtype)
    return a, b, np_dtype


def _float_result_dtype(*args):
    d = result_dtype(*args)
    return d if d in _FLOATS or d.kind == "c" else _default_float()


def exact_out(out, np_dtype, message="Found dtype {got} but expected {want}"):
    """Refuse an ``out=`` tensor whose dtype differs from ``np_dtype`` (torch's same-dtype kernels)."""
    if isinstance(out, CoreTensor) and out.array.dtype != np_dtype:
        raise RuntimeError(message.format(got=type_name(out.array.dtype), want=type_name(np_dtype)))


def _public(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# -- unary functions ------------------------------------------------------------------------------
_FLOAT_UNARY = {
    "exp": "Exp", "expm1": "Expm1", "log": "Log", "log2": "Log2", "log10": "Log10", "log1p": "Log1p",
    "sqrt": "Sqrt", "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
    "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh",
    "sigmoid": "Sigmoid", "erf": "Erf", "erfc": "Erfc", "erfinv": "Erfinv", "lgamma": "Lgamma",
    "digamma": "Digamma", "reciprocal": "Reciprocal",
}


# The unary functions whose engine ops also take complex input (the others refuse it, naming the dtype).
_COMPLEX_UNARY = frozenset("""exp expm1 log log2 log10 log1p sqrt sin cos tan asin acos atan sinh cosh tanh asinh acosh
    atanh sigmoid reciprocal rsqrt exp2""".split())


def _float_unary(name, op_type):
    bound = _op(op_type)
    kernel = bound.kernel  # every float dtype (and complex one, where passed) is valid: no schema check
    complex_ok = name in _COMPLEX_UNARY

    def fn(input, *, out=None):
        x = _floating(input, name, complex_ok)
        if out is None and not (x.requires_grad or _tracing):
            return _result(kernel(x.array))
        return finish(_run(bound, x), out, name)

    return _public(fn, name, f"Elementwise ``{name}``; integer and bool inputs give the default float dtype.")


_HALF_FLOATS = frozenset({np.dtype(np.float16), np.dtype(dt.bfloat16)})


def in_opmath(x, compute):
    """``compute(x)`` (a float tensor) as torch's CPU kernels compute a function made of several steps on
    float16/bfloat16: in float32, rounded once to ``x``'s dtype (rounding each step would differ)."""
    d = x.array.dtype
    if d not in _HALF_FLOATS:
        return compute(x)
    return cast(compute(cast(x, np.dtype(np.float32))), d)


def _composed_unary(name, compute, doc):
    complex_ok = name in _COMPLEX_UNARY

    def fn(input, *, out=None):
        return finish(in_opmath(_floating(input, name, complex_ok), compute), out, name)

    return _public(fn, name, doc)


def _exp2(x):
    return _run(_op("Pow"), _scalar(2, x.array.dtype), x)


def _rsqrt(x):
    return _run(_op("Reciprocal"), _run(_op("Sqrt"), x))


def _scaled(factor):
    def compute(x):
        return _run(_op("Mul"), x, _scalar(factor, x.array.dtype))

    return compute


_PUBLIC = {name: _float_unary(name, op_type) for name, op_type in _FLOAT_UNARY.items()}
_PUBLIC.update(
    exp2=_composed_unary("exp2", _exp2, "Elementwise ``2 ** input``."),
    rsqrt=names_grad_fn("RsqrtBackward0")(_composed_unary("rsqrt", _rsqrt, "Elementwise ``1 / sqrt(input)``.")),
    deg2rad=_composed_unary("deg2rad", _scaled(math.pi / 180.0), "Degrees to radians."),
    rad2deg=_composed_unary("rad2deg", _scaled(180.0 / math.pi), "Radians to degrees."),
)


def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]``."""
    x = _floating(input, "logit")
    d = x.array.dtype
    if eps is not None:  # torch's clamp here: x < eps -> eps, else x > 1 - eps -> 1 - eps (also for eps > 0.5)
        lo, hi = _scalar(eps, d), _scalar(1.0 - eps, d)
        above = _run(_op("Where"), _run(_op("Greater"), x, hi), hi, x)
        x = _run(_op("Where"), _run(_op("Less"), x, lo), lo, above)
    ratio = _run(_op("Div"), x, _run(_op("Sub"), _scalar(1, d), x))
    return finish(_run(_op("Log"), ratio), out, "logit")


# -- integer-keeping unary functions (their out= must have the input's dtype, as torch's) --
def _neg(x):
    d = x.array.dtype
    if d == _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if d.kind == "u":  # wraps around, as torch's unsigned negation
        return _run(_op("Sub"), _scalar(0, d), x)
    return _run(_op("Neg"), x)


def _abs(x):
    if x.array.dtype == _BOOL:
        raise not_implemented("abs_cpu", _BOOL)
    return _run(_op("ComplexAbs" if x.array.dtype.kind == "c" else "Abs"), x)


def _square(x):
    if x.array.dtype == _BOOL:
        x = cast(x, np.dtype(np.int64))
    return _run(_op("Mul"), x, x)


def _copied(x):
    """A new tensor holding ``x``'s values (a graph trace knows it for ``x``'s value)."""
    return own_memory(_result(x.array))


def _sign(x):
    d = x.array.dtype
    if d == _BOOL:
        return _copied(x)
    if d.kind == "c":
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    y = _run(_op("Sign"), x)
    if d in _FLOATS:  # torch's sign(nan) is 0
        y = _run(_op("Where"), _run(_op("IsNaN"), x), _scalar(0, d), y)
    return y


def _sgn(x):
    return _run(_op("Sign"), x) if x.array.dtype.kind == "c" else _sign(x)


def _rounding(op_type, fn):
    def compute(x):
        d = x.array.dtype
        if d in _FLOATS:
            return _run(_op(op_type), x)
        if d == _BOOL:
            raise not_implemented(fn, d)
        if d.kind == "c":
            raise NotImplementedError(f"{op_type.lower()} is not supported for complex inputs")
        return _copied(x)  # integers are already whole

    return compute


def _frac(x):
    if x.array.dtype not in _FLOATS:
        raise not_implemented("frac_cpu", x.array.dtype)
    return _run(_op("Sub"), x, _run(_op("Trunc"), x))


_INT_UNARY = {
    "abs": (_abs, "Absolute value (integer dtypes kept)."),
    "neg": (_neg, "``-input`` (integer dtypes kept; unsigned values wrap around)."),
    "square": (_square, "``input * input`` (integer dtypes kept, bool gives int64)."),
    "sign": (_sign, "-1, 0 or 1 by the sign of each element (0 for NaN)."),
    "sgn": (_sgn, "``sign`` of real tensors; ``z / |z|`` (0 at 0) of complex ones."),
    "floor": (_rounding("Floor", "floor_vml_cpu"), "Round toward -inf (integers unchanged)."),
    "ceil": (_rounding("Ceil", "ceil_vml_cpu"), "Round toward +inf (integers unchanged)."),
    "trunc": (_rounding("Trunc", "trunc_vml_cpu"), "Round toward zero (integers unchanged)."),
    "frac": (_frac, "The fractional part ``input - trunc(input)`` (floats only)."),
}


def _int_unary(name, compute, doc):
    def fn(input, *, out=None):
        x = tensor_arg(input, name)
        if name != "square":
            exact_out(out, x.array.dtype)
        return finish(compute(x), out, name)

    return _public(fn, name, doc)


for _name, (_compute, _doc) in _INT_UNARY.items():
    _PUBLIC[_name] = _int_unary(_name, _compute, _doc)


@names_grad_fn(lambda input, *, decimals=0, out=None: "RoundBackward1" if decimals else None)
def round(input, *, decimals=0, out=None):  # noqa: A001  (torch's name)
    """Round half to even; with ``decimals``, to that many decimal places (negative: tens, hundreds...)."""
    x = tensor_arg(input, "round")
    exact_out(out, x.array.dtype)
    if type(decimals) is not int:
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if decimals == 0:
        return finish(_rounding("Round", "round_cpu")(x), out, "round")
    d = x.array.dtype
    if d not in _FLOATS:
        raise not_implemented("round_cpu", d)
    scale = _scalar(10.0 ** builtins.abs(decimals), d)
    # torch's formula: rint(x * 10^d) / 10^d, or rint(x / 10^-d) * 10^-d for negative d.
    there, back = ("Mul", "Div") if decimals > 0 else ("Div", "Mul")
    y = _run(_op(back), _run(_op("Round"), _run(_op(there), x, scale)), scale)
    return finish(y, out, "round")


def positive(input):
    """``input`` itself (bool tensors are refused, as torch's unary ``+``)."""
    x = tensor_arg(input, "positive")
    if x.array.dtype == _BOOL:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return x


def signbit(input, *, out=None):
    """True where the sign bit is set (``-0.0`` and negative NaN included)."""
    x = tensor_arg(input, "signbit")
    if isinstance(out, CoreTensor) and out.array.dtype != _BOOL:
        raise RuntimeError("signbit does not support non-boolean outputs.")
    d = x.array.dtype
    if not _tracing or d.kind in "bu":  # a bool result never needs a gradient: numpy directly
        return finish(_result(np.signbit(x.array)), out, "signbit")
    # Under a graph trace with engine ops: the sign bit is the sign of the same bits read as an integer.
    if d in _FLOATS:
        x = _run(_op("BitCast", to=dt.onnx_code(_SAME_WIDTH_INT[d.itemsize])), x)
    return finish(_run(_op("Less"), x, _scalar(0, x.array.dtype)), out, "signbit")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN -> ``nan``, +inf -> ``posinf`` (the dtype's max), -inf -> ``neginf`` (its lowest value)."""
    x = tensor_arg(input, "nan_to_num")
    d = x.array.dtype
    exact_out(out, d, "nan_to_num: dtype of out: {got} should be same as input: {want}")
    if d not in _FLOATS:
        return finish(_copied(x), out, "nan_to_num")
    info = ml_dtypes.finfo(d)
    nan = 0.0 if nan is None else nan
    if posinf is None and neginf is None:
        # Clip sends +-inf to the dtype's extremes and leaves finite values alone (grad 0 at inf, as torch).
        y = _run(_op("Clip"), x, _scalar(info.min, d), _scalar(info.max, d))
    else:
        y = x
        for sign, value, default in ((1, posinf, info.max), (-1, neginf, info.min)):
            hit = _run(_op("IsInf", detect_positive=int(sign > 0), detect_negative=int(sign < 0)), x)
            y = _run(_op("Where"), hit, _scalar(default if value is None else value, d), y)
    y = _run(_op("Where"), _run(_op("IsNaN"), x), _scalar(nan, d), y)
    return finish(y, out, "nan_to_num")


# -- activations ----------------------------------------------------------------------------------
_RELU_ZEROS = {d: np.zeros((), d) for d in _FLOATS | _INTS}
_RELU = _op("Relu")
_maximum = np.maximum


def relu(input):
    """``max(input, 0)`` (integer dtypes kept; bool refused)."""
    if type(input) is Tensor and not (input.requires_grad or _tracing):
        a = input.array
        zero = _RELU_ZEROS.get(a.dtype)
        if zero is not None:  # the engine's Relu kernel is this very ufunc call
            r = _maximum(a, zero)
            t = _new(Tensor)
            t.array = r if type(r) is _ndarray else _asarray(r)
            t.requires_grad = False
            t.grad_node = None
            return t
    x = tensor_arg(input, "relu")
    d = x.array.dtype
    if d == _BOOL:
        raise RuntimeError("Boolean inputs not supported for relu")
    if d.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")
    if d.kind == "u":
        return _copied(x)
    return _run(_RELU, x)


def _softmax(op_type, fn):
    def compute(input, dim=None, dtype=None, *, _stacklevel=3):
        x = tensor_arg(input, fn)
        if dim is None or isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"{fn}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
        if dtype is not None:
            x = cast(as_torch(x), _dtype.to_np(dtype))
        d = x.array.dtype
        if d not in _FLOATS:
            raise not_implemented("softmax_lastdim_kernel_impl", d)
        ndim = x.array.ndim
        n = max(ndim, 1)
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        if ndim == 0:  # one element along the only "dim": run it as shape (1,)
            one = _run(_op("Reshape"), x, np.ones(1, np.int64))
            return _run(_op("Reshape"), _run(_op(op_type, axis=0), one), np.zeros(0, np.int64))
        axis = int(dim) % ndim
        if _half_steps.applies(x):  # torch's kernels round some steps to half
            if op_type == "LogSoftmax" and axis == ndim - 1:
                return _half_steps.log_softmax_last_dim(x)
            if op_type == "Softmax" and axis != ndim - 1:
                return _half_steps.softmax_inner_dim(x, axis)
        return _run(_op(op_type, axis=axis), x)

    return _public(compute, fn, f"``{fn}`` along ``dim`` (computed in ``dtype`` when given).")


_PUBLIC["softmax"] = _softmax("Softmax", "softmax")
_PUBLIC["log_softmax"] = _softmax("LogSoftmax", "log_softmax")


def inplace_method(fn, name):
    def method(self, *args, **kwargs):
        return inplace(fn, self, *args, name=name, **kwargs)

    return _public(method, name, f"In-place ``{name[:-1]}``: the result is written into ``self``.")


_PUBLIC.update(logit=logit, round=round, positive=positive, signbit=signbit, nan_to_num=nan_to_num, relu=relu)
for _alias, _name in (("absolute", "abs"), ("negative", "neg"), ("arcsin", "asin"), ("arccos", "acos"),
                      ("arctan", "atan"), ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh"),
                      ("fix", "trunc")):
    _PUBLIC[_alias] = _PUBLIC[_name]

# torch.X_ functions (in-place, at namespace level) and Tensor.X_ methods torch has.
_TORCH_INPLACE = """abs neg negative exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square sin cos tan asin arcsin acos
    arccos atan arctan sinh cosh tanh asinh arcsinh acosh arccosh atanh arctanh sigmoid logit erf erfc floor ceil
    round trunc fix frac reciprocal nan_to_num relu deg2rad rad2deg""".split()
_METHOD_INPLACE = _TORCH_INPLACE + "absolute erfinv lgamma digamma sign sgn".split()
_INPLACE = {f"{name}_": inplace_method(_PUBLIC[name], f"{name}_") for name in _METHOD_INPLACE}

globals().update(_PUBLIC)
globals().update({f"{name}_": _INPLACE[f"{name}_"] for name in _TORCH_INPLACE})
__all__ = sorted(_PUBLIC) + [f"{name}_" for name in _TORCH_INPLACE]

TENSOR_METHODS = dict(_PUBLIC)
TENSOR_METHODS.update(_INPLACE)
TENSOR_METHODS.update(__neg__=_PUBLIC["neg"], __pos__=positive, __abs__=_PUBLIC["abs"])
