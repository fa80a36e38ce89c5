"""Comparisons, logic and bit operations, predicates, maximum/minimum, clamp and where.

Comparisons promote their operands (``int_tensor < 2.5`` compares in float32) and
return bool tensors; the logical ops read any dtype as ``x != 0``; bitwise ops take
integers and bools only.  ``equal``, ``allclose`` and ``isclose`` compute on the
arrays directly: their results are bool (or Python bool) and never need gradients.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch._dispatch import (
    as_torch,
    cast,
    finish,
    inplace,
    promoted,
    result_dtype,
    scalar_array,
    type_name,
)
from vfw.frontends.torch._grad_fn_names import clamp_name, names_grad_fn
from vfw.frontends.torch._pointwise import (
    _BOOL,
    _FLOATS,
    _INT64_END,
    _INT64_MIN,
    _NATIVE_FLOATS,
    _binary,
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
    tensor_arg,
)
from vfw.frontends.torch._searching import nonzero
from vfw.frontends.torch._tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_I64 = np.dtype(np.int64)
_U8 = np.dtype(np.uint8)


def _comparable(x, y):
    """A float tensor with a Python number, or an int64 tensor with an int: numpy compares them as torch."""
    d = x.array.dtype
    t = type(y)
    if d in _NATIVE_FLOATS:
        return t is float or (t is int and _INT64_MIN <= y < _INT64_END)
    return d == _I64 and t is int and _INT64_MIN <= y < _INT64_END


# -- comparisons ----------------------------------------------------------------------------------
_COMPARISONS = {"eq": ("Equal", np.equal), "ne": ("Equal", np.not_equal), "lt": ("Less", np.less),
                "le": ("LessOrEqual", np.less_equal), "gt": ("Greater", np.greater),
                "ge": ("GreaterOrEqual", np.greater_equal)}


def _comparison(name):
    op_type, ufunc = _COMPARISONS[name]
    ordering = op_type != "Equal"

    def general(input, other):
        a, b, d = _binary(name, tensor_arg(input, name), other)
        if ordering and d.kind == "c":  # complex numbers have no order (numpy's lexicographic one is not torch's)
            raise not_implemented(f"{name}_cpu", d)
        if d == _BOOL and ordering:  # the engine orders numbers: False < True as 0 < 1
            a, b = (cast(as_torch(v), _U8) if isinstance(v, CoreTensor) else v.astype(_U8) for v in (a, b))
        r = _run(_op(op_type), a, b)
        return _run(_op("Not"), r) if name == "ne" else r

    def fast(input, other):
        """The ufunc on the arrays when no trace records (bool results never need gradients)."""
        if not _tracing and type(input) is Tensor:
            a = input.array
            if type(other) is Tensor:
                b = other.array
                if a.dtype is b.dtype and not (ordering and a.dtype.kind == "c"):
                    try:
                        return _result(ufunc(a, b))
                    except ValueError:  # shapes that do not broadcast: the engine path words torch's error
                        pass
            elif _comparable(input, other):
                return _result(ufunc(a, other))
        return general(input, other)

    return general, fast


def _comparison_function(name):
    _, fast = _comparison(name)

    def fn(input, other, *, out=None):
        return finish(fast(input, other), out, name)

    return _public(fn, name, f"Elementwise ``{name}`` after type promotion (bool result).")


def _comparison_operator(name):
    _, fast = _comparison(name)

    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        return fast(self, other)

    return method


_PUBLIC = {name: _comparison_function(name) for name in _COMPARISONS}
for _alias, _name in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
                      ("not_equal", "ne")):
    _PUBLIC[_alias] = _PUBLIC[_name]


def equal(input, other):
    """bool: whether both tensors have the same shape and values (NaN never equals NaN)."""
    a = tensor_arg(input, "equal").array
    b = tensor_arg(other, "equal", "other", 2).array
    return a.shape == b.shape and bool(np.array_equal(a, b))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (equal infinities are close)."""
    a = tensor_arg(input, "isclose").array
    b = tensor_arg(other, "isclose", "other", 2).array
    if a.dtype != b.dtype:
        raise RuntimeError(f"{type_name(a.dtype)} did not match {type_name(b.dtype)}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value}")
    if a.dtype == _BOOL:
        return _result(np.equal(a, b))
    try:
        if a.dtype.kind in "iu":  # integer differences computed exactly enough in float64 (complex: |a - b|)
            a, b = a.astype(np.float64), b.astype(np.float64)
        return _result(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan)))
    except ValueError:
        raise RuntimeError(f"The size of tensor a {list(a.shape)} must match the size of tensor b "
                           f"{list(b.shape)}") from None


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """bool: whether every element of ``input`` is close to ``other`` (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).array.all())


# -- predicates -----------------------------------------------------------------------------------
def _predicate(name, compute, otherwise, on_complex=None):
    """``name(input)``: ``compute(x)`` for float tensors, ``on_complex(x)`` for complex ones (None: torch's
    refusal), ``otherwise`` (False/True) everywhere for the rest."""
    def fn(input, *, out=None):
        x = tensor_arg(input, name)
        if x.array.dtype in _FLOATS:
            return finish(compute(x), out, name)
        if x.array.dtype.kind == "c":
            if on_complex is None:
                raise RuntimeError(f"{name} does not support complex inputs.")
            return finish(on_complex(x), out, name)
        return finish(_result(np.full(x.array.shape, otherwise)), out, name)

    return _public(fn, name, f"``{name}`` elementwise (bool result).")


def _isinf(positive, negative):
    def compute(x):
        return _run(_op("IsInf", detect_positive=positive, detect_negative=negative), x)

    return compute


def _isfinite(x):
    return _run(_op("Not"), _run(_op("Or"), _run(_op("IsNaN"), x), _isinf(1, 1)(x)))


def _on_parts(compute, combine):
    """A complex tensor's predicate: ``compute`` of its real and imaginary parts joined by ``combine``."""
    def on_complex(z):
        return _run(_op(combine), compute(_run(_op("Real"), z)), compute(_run(_op("Imag"), z)))

    return on_complex


def _isnan(x):
    return _run(_op("IsNaN"), x)


def _real_valued(z):
    imag = _run(_op("Imag"), z)
    return _run(_op("Equal"), imag, scalar_array(0, imag.array.dtype))


_PUBLIC.update(
    isnan=_predicate("isnan", _isnan, False, _on_parts(_isnan, "Or")),
    isinf=_predicate("isinf", _isinf(1, 1), False, _on_parts(_isinf(1, 1), "Or")),
    isposinf=_predicate("isposinf", _isinf(1, 0), False),
    isneginf=_predicate("isneginf", _isinf(0, 1), False),
    isfinite=_predicate("isfinite", _isfinite, True, _on_parts(_isfinite, "And")),
    isreal=_predicate("isreal", lambda x: _result(np.ones(x.array.shape, _BOOL)), True, _real_valued),
)


# -- logic ----------------------------------------------------------------------------------------
def _truth(x):
    """``x != 0`` as an engine input (tensors cast to bool, numbers become 0-d bool arrays)."""
    if isinstance(x, CoreTensor):
        return x if x.array.dtype == _BOOL else cast(as_torch(x), _BOOL)
    return np.asarray(bool(x))


def _logical(name, op_type):
    def fn(input, other, *, out=None):
        a = _truth(tensor_arg(input, name))
        b = _truth(tensor_arg(other, name, "other", 2))
        return finish(_run(_op(op_type), a, b), out, name)

    return _public(fn, name, f"Elementwise ``{name}`` of the truth values (``x != 0``).")


def logical_not(input, *, out=None):
    """Elementwise not of the truth values (``x == 0``)."""
    return finish(_run(_op("Not"), _truth(tensor_arg(input, "logical_not"))), out, "logical_not")


_PUBLIC.update(logical_and=_logical("logical_and", "And"), logical_or=_logical("logical_or", "Or"),
               logical_xor=_logical("logical_xor", "Xor"), logical_not=logical_not)


# -- bits -----------------------------------------------------------------------------------------
_BITWISE = {"bitwise_and": ("BitwiseAnd", "And", "bitwise_and_cpu"),
            "bitwise_or": ("BitwiseOr", "Or", "bitwise_or_cpu"),
            "bitwise_xor": ("BitwiseXor", "Xor", "bitwise_xor_cpu"),
            "bitwise_left_shift": ("BitShift", None, "lshift_cpu"),
            "bitwise_right_shift": ("BitShift", None, "rshift_cpu")}


def _bitwise_values(name):
    op_type, bool_op, kernel = _BITWISE[name]
    attrs = {} if op_type != "BitShift" else {"direction": "LEFT" if "left" in name else "RIGHT"}

    def compute(input, other):
        input = operand(input, name, "input", 1)
        if not isinstance(input, CoreTensor) and not isinstance(other, CoreTensor):
            raise TypeError(f"{name}(): at least one of 'input' and 'other' must be a Tensor")
        a, b, d = _binary(name, input, other)
        if d in _FLOATS or (d == _BOOL and bool_op is None):
            raise not_implemented(kernel, d)
        return _run(_op(bool_op if d == _BOOL else op_type, **attrs), a, b)

    return compute


def _bitwise(name):
    compute = _bitwise_values(name)

    def fn(input, other, *, out=None):
        return finish(compute(input, other), out, name)

    return _public(fn, name, f"Elementwise ``{name}`` of integer or bool tensors.")


def bitwise_not(input, *, out=None):
    """Elementwise bit inversion (logical not for bool tensors)."""
    x = tensor_arg(input, "bitwise_not")
    d = x.array.dtype
    if d in _FLOATS:
        raise not_implemented("bitwise_not_cpu", d)
    return finish(_run(_op("Not" if d == _BOOL else "BitwiseNot"), x), out, "bitwise_not")


_PUBLIC.update({name: _bitwise(name) for name in _BITWISE})
_PUBLIC["bitwise_not"] = bitwise_not


def _invert(self):
    if self.array.dtype in _FLOATS:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


# -- maximum / minimum ----------------------------------------------------------------------------
def _extremum(name, engine_op, bool_op, nan_skipping):
    def fn(input, other, *, out=None):
        x = tensor_arg(input, name)
        tensor_arg(other, name, "other", 2)
        a, b, d = _binary(name, x, other)
        if d == _BOOL:
            return finish(_run(_op(bool_op), a, b), out, name)
        if nan_skipping and d in _FLOATS:
            # torch's fmax/fmin: the first operand wins ties and stands against a NaN second one
            # (Where routes the gradient the same way).
            keep = _run(_op("Or"), _run(_op(nan_skipping), a, b), _run(_op("IsNaN"), b))
            return finish(_run(_op("Where"), keep, a, b), out, name)
        return finish(_run(_op(engine_op), a, b), out, name)

    doc = "ignoring NaN unless both are NaN" if nan_skipping else "NaN propagates"
    return _public(fn, name, f"Elementwise ``{name}`` of two tensors ({doc}).")


_PUBLIC.update(maximum=names_grad_fn("MaximumBackward0")(_extremum("maximum", "Max", "Or", None)),
               minimum=names_grad_fn("MinimumBackward0")(_extremum("minimum", "Min", "And", None)),
               fmax=_extremum("fmax", "Max", "Or", "GreaterOrEqual"),
               fmin=_extremum("fmin", "Min", "And", "LessOrEqual"))


# -- clamp ----------------------------------------------------------------------------------------
def _bound_value(value, np_dtype, fn):
    value = operand(value, fn, "min")
    if np_dtype.kind in "iu" and not isinstance(value, (float, np.floating)):
        info = np.iinfo(np_dtype)
        # torch lets negative values wrap into unsigned types (-1 is 255 for uint8), down to -max
        low = -info.max if np_dtype.kind == "u" else info.min
        if not low <= int(value) <= info.max:
            raise RuntimeError(f"value cannot be converted to type {np_dtype.name}_t without overflow")
    return _scalar(value, np_dtype)


@names_grad_fn(clamp_name)
def clamp(input, min=None, max=None, *, out=None):  # noqa: A002  (torch's argument names)
    """Limit values to ``[min, max]`` (numbers or broadcast tensors); ``min > max`` gives ``max``."""
    x = tensor_arg(input, "clamp")
    lo, hi = min, max
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if out is None and type(x) is Tensor and not (x.requires_grad or _tracing) and x.array.dtype in _NATIVE_FLOATS \
            and _plain_number(lo) and _plain_number(hi):
        # The Clip kernel's two passes on the arrays: nothing records, the values are the engine's.
        # numpy takes a Python number in a's dtype (NEP 50), as scalar_array does.
        if lo is None:
            return _result(np.minimum(x.array, hi))
        r = np.maximum(x.array, lo)
        if hi is not None:
            r = np.minimum(r, hi, out=r) if type(r) is _ndarray else np.minimum(r, hi)  # 0-d: a numpy scalar
        return _result(r)
    tensors = [isinstance(v, CoreTensor) for v in (lo, hi) if v is not None]
    if any(tensors):
        if not all(tensors):
            raise TypeError("clamp(): received an invalid combination of arguments - min and max must both be "
                            "Tensors or both be numbers")
        return finish(_clamp_tensors(x, lo, hi), out, "clamp")
    d = result_dtype(x, lo, hi)
    exact_out(out, d)
    if d == _BOOL:
        raise not_implemented("clamp_scalar_cpu", d)
    x = cast(as_torch(x), d)
    lo = None if lo is None else _bound_value(lo, d, "clamp")
    hi = None if hi is None else _bound_value(hi, d, "clamp")
    return finish(_run(_op("Clip"), x, lo, hi), out, "clamp")


def _plain_number(v):
    """None, a Python float or an int64-range int: a bound a float tensor takes in its own dtype."""
    t = type(v)
    return v is None or t is float or (t is int and _INT64_MIN <= v < _INT64_END)


def _clamp_tensors(x, lo, hi):
    args = [v for v in (x, lo, hi) if v is not None]
    values, d = promoted(*args)
    x, rest = values[0], list(values[1:])
    lo = rest.pop(0) if lo is not None else None
    hi = rest.pop(0) if hi is not None else None
    if d == _BOOL:
        raise not_implemented("clamp_cpu", d)
    if not any(v is not None and v.requires_grad for v in (x, lo, hi)):
        value = x
        if lo is not None:
            value = _run(_op("Max"), value, lo)
        return value if hi is None else _run(_op("Min"), value, hi)
    # torch routes the gradient to x where lo <= x <= hi, to lo where x < lo < hi, to hi where x > hi or
    # hi < lo; elsewhere (NaNs, x < lo == hi) to nobody.  Where chains route it so over the values (taken,
    # detached, from max then min).
    value = x.array
    if lo is not None:
        value = np.maximum(value, lo.array)
    result = _result(value if hi is None else np.minimum(value, hi.array))
    if hi is not None:
        to_hi = _run(_op("Greater"), x, hi)
        if lo is not None:
            to_hi = _run(_op("Or"), to_hi, _run(_op("Less"), hi, lo))
        result = _run(_op("Where"), to_hi, hi, result)
    if lo is not None:
        to_lo = _run(_op("Less"), x, lo)
        if hi is not None:
            to_lo = _run(_op("And"), to_lo, _run(_op("Less"), lo, hi))
        result = _run(_op("Where"), to_lo, lo, result)
    keep = None
    for cmp, bound in (("GreaterOrEqual", lo), ("LessOrEqual", hi)):
        if bound is not None:
            inside = _run(_op(cmp), x, bound)
            keep = inside if keep is None else _run(_op("And"), keep, inside)
    return _run(_op("Where"), keep, x, result)


def clamp_min(input, min, *, out=None):  # noqa: A002
    """``clamp(input, min=min)``."""
    return clamp(input, min, None, out=out)


def clamp_max(input, max, *, out=None):  # noqa: A002
    """``clamp(input, max=max)``."""
    return clamp(input, None, max, out=out)


_PUBLIC.update(equal=equal, isclose=isclose, allclose=allclose, clamp=clamp, clip=clamp, clamp_min=clamp_min,
               clamp_max=clamp_max)


# -- where ----------------------------------------------------------------------------------------
def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (numbers allowed, promoted).

    With only ``condition``: the indices of its non-zero elements, one int64 tensor per dimension.
    """
    cond = tensor_arg(condition, "where", "condition", 1)
    if input is None and other is None:
        return nonzero(cond, as_tuple=True)
    if cond.array.dtype != _BOOL:
        if cond.array.dtype != _U8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{type_name(cond.array.dtype)}")
        cond = cast(as_torch(cond), _BOOL)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - input and other must both be given")
    (x, y), d = promoted(operand(input, "where", "input", 2), operand(other, "where", "other", 3))
    exact_out(out, d, "Expected out type to be {want} but got {got}")
    return finish(_run(_op("Where"), cond, x, y), out, "where")


_PUBLIC["where"] = where


def _where_method(self, condition, y):
    return where(condition, self, y)


def _inplace_operator(compute, name):
    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        return inplace(compute, self, other, name=name)

    return method


def _bitwise_operator(name, reflected=False):
    compute = _bitwise_values(name)

    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        return compute(other, self) if reflected else compute(self, other)

    return method


_INPLACE_NAMES = """eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or
    logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift
    clamp clip clamp_min clamp_max""".split()

TENSOR_METHODS = {name: fn for name, fn in _PUBLIC.items() if name != "where"}
TENSOR_METHODS["where"] = _where_method
_INPLACE = {f"{name}_": inplace_method(_PUBLIC[name], f"{name}_") for name in _INPLACE_NAMES}
TENSOR_METHODS.update(_INPLACE)

# torch.clamp_ and friends exist at namespace level too.
_TORCH_INPLACE = {name: _INPLACE[name] for name in ("clamp_", "clip_", "clamp_min_", "clamp_max_")}
globals().update(_PUBLIC)
globals().update(_TORCH_INPLACE)
__all__ = sorted(_PUBLIC) + sorted(_TORCH_INPLACE)
TENSOR_METHODS.update({f"__{name}__": _comparison_operator(name) for name in _COMPARISONS})
TENSOR_METHODS.update(__invert__=_invert)
for _name, _dunder in (("bitwise_and", "and"), ("bitwise_or", "or"), ("bitwise_xor", "xor"),
                       ("bitwise_left_shift", "lshift"), ("bitwise_right_shift", "rshift")):
    TENSOR_METHODS[f"__{_dunder}__"] = _bitwise_operator(_name)
    TENSOR_METHODS[f"__r{_dunder}__"] = _bitwise_operator(_name, reflected=True)
    TENSOR_METHODS[f"__i{_dunder}__"] = _inplace_operator(_bitwise_values(_name), f"{_name}_")
