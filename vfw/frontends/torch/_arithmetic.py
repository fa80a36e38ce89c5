"""Binary arithmetic: add/sub/mul/div and their roundings, remainders, powers, atan2, hypot, copysign, xlogy,
heaviside, lerp, addcmul/addcdiv, and the arithmetic operators of Tensor (``+``, ``-=``, ``**``...).

torch's rules kept here: ``/`` always gives a float; Python numbers promote weakly
(``int_tensor * 2.5`` is float32, ``float16_tensor * 2.5`` float16); integer
division or modulo by zero raises; ``int_tensor ** -1`` raises; bool tensors cannot
be subtracted.  ``x + y``, ``x * 2.0`` and friends call the numpy ufunc directly
when nothing records (the engine kernels of Add, Sub, Mul, Div, FloorDiv, Mod and
Pow are those ufuncs); in-place forms write into the tensor's memory the same way.
"""

import builtins

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import is_grad_enabled
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dtype
from vfw.frontends.torch._dispatch import (
    as_torch,
    bump_version,
    cast,
    finish,
    inplace,
    promoted,
    result_dtype,
    scalar_array,
    type_name,
)
from vfw.frontends.torch._pointwise import (
    _BOOL,
    _FLOATS,
    _INT64_END,
    _INT64_MIN,
    _INTS,
    _NATIVE_FLOATS,
    _NUMBERS,
    _binary,
    _float_result_dtype,
    _is_bool,
    _op,
    _public,
    _result,
    _run,
    _scalar,
    exact_out,
    inplace_method,
    is_operand,
    not_implemented,
    operand,
    promote2,
    tensor_arg,
)
from vfw.frontends.torch._tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_PUBLIC = {}


def _int_divisor(b):
    """torch refuses integer division (and modulo) by zero; the engine would give 0."""
    if not np.all(b.array if isinstance(b, CoreTensor) else b):
        raise RuntimeError("ZeroDivisionError")


def _check_alpha(alpha, np_dtype, fn):
    if not isinstance(alpha, _NUMBERS):
        raise TypeError(f"{fn}(): argument 'alpha' must be Number, not {type(alpha).__name__}")
    if isinstance(alpha, (bool, np.bool_)) and np_dtype != _BOOL:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if np_dtype not in _FLOATS and isinstance(alpha, (float, np.floating)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _add_sub(input, other, alpha=1, fn="add"):
    input = operand(input, fn, "input", 1)
    other = operand(other, fn)
    sub = fn == "sub"
    if sub and (_is_bool(input) or _is_bool(other)):
        what = "two bool tensors" if _is_bool(input) and _is_bool(other) else "a bool tensor"
        hint = ("Use the `^` or `logical_xor()` operator instead." if what == "two bool tensors" else
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        raise RuntimeError(f"Subtraction, the `-` operator, with {what} is not supported. {hint}")
    a, b, d = promote2(input, other)
    if not (type(alpha) is int and alpha == 1):
        _check_alpha(alpha, d, fn)
        if _opmath(d) == _F32:  # a + alpha * b (alpha in d) rounded once in float32, as torch's fused kernel
            a, b, w = _fused_operands(_F32, cast(as_torch(a), _F32) if isinstance(a, CoreTensor) else a.astype(_F32),
                                      cast(as_torch(b), _F32) if isinstance(b, CoreTensor) else b.astype(_F32),
                                      _scalar(alpha, d).astype(_F32))
            result = _run(_op("Sub" if sub else "Add"), a, _run(_op("Mul"), b, w))
            return cast(cast(result, _F32), d)
        if d != _BOOL:
            b = _run(_op("Mul"), b, _scalar(alpha, d))
        elif not alpha:  # a False alpha adds nothing (but still broadcasts)
            b = _run(_op("And"), b, np.asarray(False))
    if d == _BOOL:
        return _run(_op("Or"), a, b)
    return _run(_op("Sub" if sub else "Add"), a, b)


def _sub(input, other):
    return _add_sub(input, other, 1, "sub")


def _mul(input, other, fn="mul"):
    a, b, d = _binary(fn, input, other)
    if d in _HALVES and (_scalar_like(input) or _scalar_like(other)):
        return _scaled_in_float32("Mul", input, other, d)
    return _run(_op("And" if d == _BOOL else "Mul"), a, b)


def _scalar_like(x):
    """A number, or a 0-d tensor: what torch's CPU kernels read as a scalar."""
    return not isinstance(x, CoreTensor) or x.array.ndim == 0


def _scaled_in_float32(op_type, input, other, d):
    """A half-precision product or quotient with a scalar: torch multiplies (divides) in float32 by the scalar as
    given, not first rounded to ``d``, and rounds the result once to ``d``."""
    operands = [cast(as_torch(x), _F32) if isinstance(x, CoreTensor) else scalar_array(x, _F32)
                for x in (input, other)]
    return cast(_run(_op(op_type), *operands), d)


def _div(input, other, rounding_mode=None, fn="div"):
    input = operand(input, fn, "input", 1)
    other = operand(other, fn)
    if rounding_mode is None:
        (a, b), d = promoted(input, other, np_dtype=_float_result_dtype(input, other))
        if d in _HALVES and (_scalar_like(input) or _scalar_like(other)):
            return _scaled_in_float32("Div", input, other, d)
        return _run(_op("Div"), a, b)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    floor = rounding_mode == "floor"
    a, b, d = promote2(input, other)
    if d == _BOOL:
        raise not_implemented("div_floor_cpu" if floor else "div_trunc_cpu", d)
    if d in _FLOATS:
        return _run(_op("FloorDiv"), a, b) if floor else _run(_op("Trunc"), _run(_op("Div"), a, b))
    _int_divisor(b)
    return _run(_op("FloorDiv" if floor else "Div"), a, b)


def _reflected_div(other, input):
    """``other / input`` for a non-tensor ``other``: torch computes ``input.reciprocal() * other`` (so its numbers
    and its graph, MulBackward0 over ReciprocalBackward0, differ from a true division's)."""
    return _mul(input.reciprocal(), other)


def _times_reciprocal(other, a):
    return _scaled(np.multiply, np.reciprocal(a), other)


_SCALED_UFUNCS = (np.multiply, np.divide)


def _scaled(ufunc, a, number, reflected=False):
    """``ufunc(a, number)`` (``ufunc(number, a)`` when ``reflected``) for a float array and a Python number; a float16
    array is multiplied or divided in float32 by the number as given and rounded once (torch's kernels), where
    numpy would round the number to float16 first."""
    if a.dtype == _F16 and ufunc in _SCALED_UFUNCS:
        return (ufunc(number, a, dtype=_F32) if reflected else ufunc(a, number, dtype=_F32)).astype(_F16)
    return ufunc(number, a) if reflected else ufunc(a, number)


def _floor_divide(input, other):
    return _div(input, other, "floor", "floor_divide")


def _mod(fn, fmod):
    def compute(input, other):
        a, b, d = _binary(fn, input, other)
        if d == _BOOL:
            raise not_implemented(f"{fn}_cpu", d)
        if d not in _FLOATS:
            _int_divisor(b)
        return _run(_op("Mod", fmod=fmod), a, b)

    return compute


_remainder = _mod("remainder", 0)
_fmod_values = _mod("fmod", 1)


def _fmod(input, other):
    return _fmod_values(tensor_arg(input, "fmod"), other)


_ENGINE_POW_INTS = frozenset(np.dtype(d) for d in (np.int32, np.int64))


def _pow(input, exponent, fn="pow"):
    input = operand(input, fn, "input", 1)
    exponent = operand(exponent, fn, "exponent", 2)
    if not isinstance(input, CoreTensor) and not isinstance(exponent, CoreTensor):
        raise TypeError(f"{fn}(): at least one of 'input' and 'exponent' must be a Tensor")
    a, b, d = promote2(input, exponent)
    if d == _BOOL:
        if isinstance(input, CoreTensor) and isinstance(exponent, bool):  # x ** True is x, x ** False is 1
            return _result(input.array.copy() if exponent else np.ones(input.array.shape, _BOOL))
        raise not_implemented("pow", d)
    if d in _FLOATS or d in _ENGINE_POW_INTS or d.kind == "c":
        if d.kind == "i" and not isinstance(exponent, CoreTensor) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if d == dt.bfloat16 and isinstance(input, CoreTensor) and not isinstance(exponent, CoreTensor) \
                and exponent in (3, -2):
            # torch's bfloat16 kernel rounds each step of x * x * x and 1 / (x * x) (other powers round once)
            square = _run(_op("Mul"), a, a)
            return _run(_op("Mul"), square, a) if exponent == 3 else _run(_op("Reciprocal"), square)
        return _run(_op("Pow"), a, b)
    if not isinstance(exponent, CoreTensor) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    # Narrow integers: int64 powers wrap to the same low bits as the narrow type's would.
    wide = np.dtype(np.int64)
    a = cast(a, wide) if isinstance(a, CoreTensor) else a.astype(wide)
    b = cast(b, wide) if isinstance(b, CoreTensor) else b.astype(wide)
    return cast(_run(_op("Pow"), a, b), d)


def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in float64."""
    input = operand(input, "float_power", "input", 1)
    exponent = operand(exponent, "float_power", "exponent", 2)
    exact_out(out, np.dtype(np.float64), "the output given to float_power has dtype {got} but the operation's "
                                         "result requires dtype {want}")
    (a, b), _ = promoted(input, exponent, np_dtype=np.dtype(np.float64))
    return finish(_run(_op("Pow"), a, b), out, "float_power")


def _float_binary(fn, op_type, input, other, both_tensors=True, **attrs):
    input = tensor_arg(input, fn)
    if both_tensors:
        tensor_arg(other, fn, "other", 2)
    a, b, _ = _binary(fn, input, other, _float_result_dtype(input, operand(other, fn)))
    return _run(_op(op_type, **attrs), a, b)


def atan2(input, other, *, out=None):
    """The angle of the point ``(other, input)``, in [-pi, pi] (float result)."""
    # torch's gradient is 0, not NaN, where input^2 + other^2 is 0
    return finish(_float_binary("atan2", "Atan2", input, other, zero_at_origin=1), out, "atan2")


def hypot(input, other, *, out=None):
    """``sqrt(input**2 + other**2)`` without overflow (floating inputs only)."""
    d = result_dtype(tensor_arg(input, "hypot"), tensor_arg(other, "hypot", "other", 2))
    if d not in _FLOATS:
        raise not_implemented("hypot_cpu", d)
    return finish(_float_binary("hypot", "Hypot", input, other), out, "hypot")


def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (float result; ``other`` may be a number)."""
    return finish(_float_binary("copysign", "Copysign", input, other, both_tensors=False), out, "copysign")


def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN)."""
    input = operand(input, "xlogy", "input", 1)
    other = operand(other, "xlogy")
    if not isinstance(input, CoreTensor) and not isinstance(other, CoreTensor):
        raise TypeError("xlogy(): at least one of 'input' and 'other' must be a Tensor")
    (x, y), d = promoted(input, other, np_dtype=_float_result_dtype(input, other))
    zero = _scalar(0, d)
    skip = _run(_op("And"), _run(_op("Equal"), x, zero), _run(_op("Not"), _run(_op("IsNaN"), y)))
    value = _run(_op("Mul"), x, _run(_op("Log"), y))
    return finish(_run(_op("Where"), skip, zero, value), out, "xlogy")


def heaviside(input, values, *, out=None):
    """Step function: 0 where ``input < 0``, ``values`` where it is 0, 1 where positive (no gradient)."""
    x = tensor_arg(input, "heaviside")
    v = tensor_arg(values, "heaviside", "values", 2)
    if x.array.dtype != v.array.dtype or isinstance(out, CoreTensor) and out.array.dtype != x.array.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    a, d = x.array, x.array.dtype
    positive = a if d == _BOOL else (a > 0).astype(d)  # a step has no useful gradient: detached arrays
    return finish(_run(_op("Where"), a == 0, v.array, positive), out, "heaviside")


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)`` (computed from ``end`` where ``|weight| >= 0.5``, as torch)."""
    start = tensor_arg(input, "lerp")
    end = tensor_arg(end, "lerp", "end", 2)
    d = start.array.dtype
    if d not in _FLOATS:
        raise not_implemented("lerp_kernel_scalar", d)
    for what, t in (("end", end), ("weight", weight)):
        if isinstance(t, CoreTensor) and t.array.dtype != d and (what == "end" or t.array.ndim):
            raise RuntimeError(f"expected dtype {_dtype._FROM_NP[d].name} for `{what}` but got dtype "
                               f"{_dtype._FROM_NP[t.array.dtype].name}")
    wide = _opmath(d)
    start, end = cast(as_torch(start), wide), cast(as_torch(end), wide)
    diff = _run(_op("Sub"), end, start)
    if isinstance(weight, CoreTensor):
        w = cast(as_torch(weight), wide)
        near_start = _run(_op("Less"), _run(_op("Abs"), w), _scalar(0.5, wide))
        y = _run(_op("Where"), near_start, _lerp_from_start(start, diff, w),
                 _lerp_from_end(end, diff, _run(_op("Sub"), _scalar(1, wide), w)))
    else:
        operand(weight, "lerp", "weight", 3)
        w = _scalar(weight, wide)
        if builtins.abs(weight) < 0.5:
            y = _lerp_from_start(start, diff, w)
        else:  # 1 - w in the compute dtype, as torch (not 1 - weight in Python's float64, then rounded)
            y = _lerp_from_end(end, diff, _scalar(1, wide) - w)
    # the fused result rounds to the compute dtype first, then to a half-precision input's (as torch's float kernel)
    return finish(cast(cast(y, wide), d), out, "lerp")


_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_HALVES = frozenset({np.dtype(np.float16), np.dtype(dt.bfloat16)})


def _opmath(np_dtype):
    """The dtype torch computes fused ops in: float32 for the 2-byte floats (rounded once at the end)."""
    return _F32 if np_dtype in _HALVES else np_dtype


def _lerp_from_start(start, diff, w):
    start, diff, w = _fused_operands(start.array.dtype, start, diff, w)
    return _run(_op("Add"), start, _run(_op("Mul"), w, diff))


def _lerp_from_end(end, diff, one_minus_w):
    end, diff, one_minus_w = _fused_operands(end.array.dtype, end, diff, one_minus_w)
    return _run(_op("Sub"), end, _run(_op("Mul"), diff, one_minus_w))


def _fused_operands(np_dtype, *operands):
    """Operands (tensors or arrays) of dtype ``np_dtype``, in float64 where that is float32: their product is exact
    there, so a multiply-add rounded to float32 afterwards rounds once, as torch's fused multiply-add (its lerp
    and add/sub-with-alpha kernels use one)."""
    if np_dtype != _F32:
        return operands
    return [cast(as_torch(x), _F64) if isinstance(x, CoreTensor) else np.asarray(x, _F64) for x in operands]


def _addc(fn, op_type):
    def compute(input, tensor1, tensor2, *, value=1, out=None):
        args = (tensor_arg(input, fn), tensor_arg(tensor1, fn, "tensor1", 2), tensor_arg(tensor2, fn, "tensor2", 3))
        if op_type == "Div" and tensor1.array.dtype not in _FLOATS and tensor2.array.dtype not in _FLOATS:
            raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release "
                               "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                               "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
                               ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
                               "float inputs. The future addcdiv behavior is just the latter implementation: "
                               "(input + value * tensor1 / tensor2), for all dtypes.")
        d = result_dtype(*args)
        if d == _BOOL:
            raise not_implemented(f"{fn}_cpu_out", d)
        wide = _opmath(d)
        (x, t1, t2), _ = promoted(*args, np_dtype=wide)
        if not (type(value) is int and value == 1):  # value (in the compute dtype) * tensor1 first, as torch
            t1 = _run(_op("Mul"), _scalar(operand(value, fn, "value", 4), wide), t1)
        if op_type == "Div":
            return finish(cast(_run(_op("Add"), x, _run(_op("Div"), t1, t2)), d), out, fn)
        x, t1, t2 = _fused_operands(wide, x, t1, t2)  # addcmul's multiply-add is fused: one rounding
        return finish(cast(cast(_run(_op("Add"), x, _run(_op("Mul"), t1, t2)), wide), d), out, fn)

    return _public(compute, fn, f"``input + value * tensor1 {'*' if op_type == 'Mul' else '/'} tensor2``.")


addcmul = _addc("addcmul", "Mul")
addcdiv = _addc("addcdiv", "Div")


# -- public functions with fast paths -------------------------------------------------------------
def _with_out(general, name, doc):
    """Function ``name(input, other, *, out=None)`` over ``general(input, other)``."""
    def fn(input, other, *, out=None):
        return finish(general(input, other), out, name)

    return _public(fn, name, doc)


def _fast_function(ufunc, dtypes, general, name, doc):
    """``name(input, other, *, out=None)``: ``ufunc`` on the arrays for two same-dtype tensors when nothing
    records; ``general(input, other)`` otherwise."""
    def fn(input, other, *, out=None):
        if out is None and type(input) is Tensor and type(other) is Tensor and \
                not (input.requires_grad or other.requires_grad or _tracing):
            a = input.array
            b = other.array
            if a.dtype is b.dtype and a.dtype in dtypes:
                try:
                    r = ufunc(a, b)
                except ValueError:  # shapes that do not broadcast: the engine path words torch's error
                    pass
                else:
                    t = _new(Tensor)
                    t.array = r if type(r) is _ndarray else _asarray(r)
                    t.requires_grad = False
                    t.grad_node = None
                    return t
        return finish(general(input, other), out, name)

    return _public(fn, name, doc)


_ARITH_DTYPES = _FLOATS | _INTS


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` (bool tensors: logical or)."""
    if type(alpha) is int and alpha == 1:
        return _add_fn(input, other, out=out)
    return finish(_add_sub(input, other, alpha, "add"), out, "add")


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (bool tensors are refused)."""
    if type(alpha) is int and alpha == 1:
        return _sub_fn(input, other, out=out)
    return finish(_add_sub(input, other, alpha, "sub"), out, "sub")


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return _add_sub(other, input, alpha, "sub")


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``: true division (float result), or rounded by ``rounding_mode`` 'trunc' / 'floor'."""
    if rounding_mode is None:
        return _true_divide_fn(input, other, out=out)
    return finish(_div(input, other, rounding_mode), out, "div")


_add_fn = _fast_function(np.add, _ARITH_DTYPES | {_BOOL}, _add_sub, "add", add.__doc__)
_sub_fn = _fast_function(np.subtract, _ARITH_DTYPES, _sub, "sub", sub.__doc__)
_true_divide_fn = _fast_function(np.divide, _FLOATS, _div, "true_divide", "``input / other`` (float result).")
_PUBLIC.update(
    add=add, sub=sub, subtract=sub, rsub=rsub, div=div, divide=div, true_divide=_true_divide_fn,
    mul=_fast_function(np.multiply, _ARITH_DTYPES | {_BOOL}, _mul, "mul", "``input * other`` (bool: logical and)."),
    floor_divide=_with_out(_floor_divide, "floor_divide", "``input // other``, rounded toward -inf."),
    remainder=_with_out(_remainder, "remainder", "Python's ``%``: the remainder has the sign of ``other``."),
    fmod=_with_out(_fmod, "fmod", "C's ``fmod``: the remainder has the sign of ``input``."),
)
_PUBLIC["multiply"] = _PUBLIC["mul"]


def _pow_function(input, exponent, *, out=None):
    if out is None and type(input) is Tensor and _scalar_ok(exponent) and not (input.requires_grad or _tracing):
        a = input.array
        if a.dtype in _NATIVE_FLOATS:  # the Pow kernel's ufunc, the exponent taken in a's dtype
            return _result(np.power(a, exponent))
    return finish(_pow(input, exponent), out, "pow")


_PUBLIC["pow"] = _public(_pow_function, "pow", "``input ** exponent`` (tensors or numbers on either side).")


# -- operators and in-place variants --------------------------------------------------------------
def _scalar_ok(other):
    """A Python float or in-range int: numpy takes it in a float tensor's own precision, as torch."""
    t = type(other)
    return t is float or (t is int and _INT64_MIN <= other < _INT64_END)


def fast_operator(ufunc, dtypes, general, reflected=False):
    """``Tensor.__op__`` (``__rop__`` when ``reflected``): ``ufunc`` on the arrays when nothing records and the
    operands are two tensors of one dtype in ``dtypes`` or a float tensor and a Python number; otherwise
    ``general(self, other)`` (operands swapped when reflected), or NotImplemented for non-operands."""
    def method(self, other):
        if type(other) is Tensor:
            if not (self.requires_grad or other.requires_grad or _tracing):
                a = self.array
                b = other.array
                if a.dtype is b.dtype and a.dtype in dtypes:
                    try:
                        r = ufunc(b, a) if reflected else ufunc(a, b)
                    except ValueError:  # shapes that do not broadcast: the engine path words torch's error
                        pass
                    else:
                        t = _new(Tensor)
                        t.array = r if type(r) is _ndarray else _asarray(r)
                        t.requires_grad = False
                        t.grad_node = None
                        return t
        elif _scalar_ok(other):
            a = self.array
            if a.dtype in _NATIVE_FLOATS and not (self.requires_grad or _tracing):
                r = _scaled(ufunc, a, other, reflected)
                t = _new(Tensor)
                t.array = r if type(r) is _ndarray else _asarray(r)
                t.requires_grad = False
                t.grad_node = None
                return t
        elif not is_operand(other):
            return NotImplemented
        return general(other, self) if reflected else general(self, other)

    return method


def fast_inplace(ufunc, dtypes, general, name):
    """``x.op_(other)`` / ``x.__iop__(other)``: ``ufunc`` writes into x's memory when nothing records and the
    operands are as :func:`fast_operator` takes them; otherwise ``inplace(general, ...)``."""
    def method(self, other):
        if not _tracing and (not (self.requires_grad or getattr(other, "requires_grad", False))
                             or not is_grad_enabled()):
            a = self.array
            if type(other) is Tensor:
                b = other.array
                fast = a.dtype is b.dtype and a.dtype in dtypes
            else:
                b = other
                fast = a.dtype in _NATIVE_FLOATS and _scalar_ok(other)
            if fast:
                try:
                    if a.dtype == _F16 and ufunc in _SCALED_UFUNCS and type(other) is not Tensor:
                        a[...] = _scaled(ufunc, a, b)
                    else:
                        ufunc(a, b, out=a)
                except ValueError:  # a larger broadcast shape, a read-only array: the general path decides
                    pass
                else:
                    bump_version(self)
                    return self
        if not is_operand(other):
            return NotImplemented
        return inplace(general, self, other, name=name)

    return method


_iadd = fast_inplace(np.add, _ARITH_DTYPES, _add_sub, "add_")
_isub = fast_inplace(np.subtract, _ARITH_DTYPES, _sub, "sub_")
_imul = fast_inplace(np.multiply, _ARITH_DTYPES, _mul, "mul_")
_idiv = fast_inplace(np.divide, _FLOATS, _div, "div_")


def _add_(self, other, *, alpha=1):
    if type(alpha) is int and alpha == 1:
        return _iadd(self, other)
    return inplace(add, self, other, alpha=alpha, name="add_")


def _sub_(self, other, *, alpha=1):
    if type(alpha) is int and alpha == 1:
        return _isub(self, other)
    return inplace(sub, self, other, alpha=alpha, name="sub_")


def _div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _idiv(self, other)
    return inplace(div, self, other, rounding_mode=rounding_mode, name="div_")


def _float_power_(self, exponent):
    if self.array.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {type_name(self.array.dtype)} but the "
                           "operation's result requires dtype Double")
    return inplace(float_power, self, exponent, name="float_power_")


_PUBLIC.update(float_power=float_power, atan2=atan2, arctan2=atan2, hypot=hypot, copysign=copysign, xlogy=xlogy,
               heaviside=heaviside, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv)
_TORCH_INPLACE = ["xlogy"]
_METHOD_INPLACE = """xlogy pow mul multiply subtract true_divide floor_divide remainder fmod atan2 arctan2 hypot lerp
    addcmul addcdiv heaviside copysign""".split()
_INPLACE = {f"{name}_": inplace_method(_PUBLIC[name], f"{name}_") for name in _METHOD_INPLACE}
_INPLACE.update(add_=_add_, sub_=_sub_, div_=_div_, divide_=_div_, float_power_=_float_power_,
                mul_=lambda self, other: _imul(self, other), multiply_=lambda self, other: _imul(self, other))

globals().update(_PUBLIC)
xlogy_ = _INPLACE["xlogy_"]
__all__ = sorted(_PUBLIC) + ["xlogy_"]

TENSOR_METHODS = dict(_PUBLIC)
TENSOR_METHODS.update(_INPLACE)
TENSOR_METHODS.update(
    __add__=fast_operator(np.add, _ARITH_DTYPES | {_BOOL}, _add_sub),
    __radd__=fast_operator(np.add, _ARITH_DTYPES | {_BOOL}, _add_sub, reflected=True),
    __iadd__=_iadd,
    __sub__=fast_operator(np.subtract, _ARITH_DTYPES, _sub),
    __rsub__=fast_operator(np.subtract, _ARITH_DTYPES, _sub, reflected=True),
    __isub__=_isub,
    __mul__=fast_operator(np.multiply, _ARITH_DTYPES | {_BOOL}, _mul),
    __rmul__=fast_operator(np.multiply, _ARITH_DTYPES | {_BOOL}, _mul, reflected=True),
    __imul__=_imul,
    __truediv__=fast_operator(np.divide, _FLOATS, _div),
    __rtruediv__=fast_operator(_times_reciprocal, _FLOATS, _reflected_div, reflected=True),
    __itruediv__=_idiv,
    __floordiv__=fast_operator(np.floor_divide, _FLOATS, _floor_divide),
    __rfloordiv__=fast_operator(np.floor_divide, _FLOATS, _floor_divide, reflected=True),
    __ifloordiv__=fast_inplace(np.floor_divide, _FLOATS, _floor_divide, "floor_divide_"),
    __mod__=fast_operator(np.remainder, _FLOATS, _remainder),
    __rmod__=fast_operator(np.remainder, _FLOATS, _remainder, reflected=True),
    __imod__=fast_inplace(np.remainder, _FLOATS, _remainder, "remainder_"),
    __pow__=fast_operator(np.power, _FLOATS, _pow),
    __rpow__=fast_operator(np.power, _FLOATS, _pow, reflected=True),
    __ipow__=fast_inplace(np.power, _FLOATS, _pow, "pow_"),
)
