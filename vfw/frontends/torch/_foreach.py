"""``torch._foreach_*``: one op applied to every tensor of a list (EMA updates, hand-written optimizers).

torch runs these on the CPU one tensor at a time through the ordinary ops, so each result here is the ordinary
op's result for that tensor (same dtypes, promotion, autograd and in-place checks). Out-of-place forms return a
tuple of new tensors; in-place forms (trailing ``_``) update the tensors and return the list they were given.
The second operand may be a number, a list of numbers (one per tensor), a list of tensors or one tensor.
"""

import numbers

import vfw.frontends.torch as _torch
from vfw.core.tensor import Tensor as CoreTensor

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
          "sinh", "sqrt", "tan", "tanh", "trunc")
_BINARY = ("add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow")

__all__ = ([f"_foreach_{name}{suffix}" for name in _UNARY + _BINARY for suffix in ("", "_")]
           + ["_foreach_addcmul", "_foreach_addcmul_", "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_lerp",
              "_foreach_lerp_", "_foreach_norm", "_foreach_max", "_foreach_copy_", "_foreach_zero_", "_foreach_clone"])


def _tensor_list(name, value, arg="self", pos=1):
    """``value`` as a list of tensors, or torch's TypeError / RuntimeError for ``name``."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, CoreTensor) for t in value):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be tuple of Tensors, not "
                        f"{type(value).__name__}")
    if not value:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return list(value)


def _per_tensor(name, tensors, other, arg="other", pos=2):
    """The second operand for each tensor: a number or tensor shared by all, or the matching list entry."""
    if isinstance(other, (numbers.Number, CoreTensor)):
        return [other] * len(tensors)
    if isinstance(other, (list, tuple)):
        if other and all(isinstance(o, CoreTensor) for o in other):
            if len(other) != len(tensors):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and "
                                   f"{len(other)}")
            return list(other)
        if all(isinstance(o, numbers.Number) for o in other):
            if len(other) != len(tensors):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            return list(other)
    raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be a number, a tensor, a tuple of numbers "
                    f"or a tuple of Tensors, not {type(other).__name__}")


def _scalars(name, tensors, value):
    """``value`` of addcmul/addcdiv: a number, a list of numbers or a 1-D tensor of them, one per tensor."""
    if isinstance(value, CoreTensor):
        if value.ndim != 1 or value.numel() != len(tensors):
            raise RuntimeError(f"{name}(): expected the scalars tensor to be 1-D with {len(tensors)} elements, got "
                               f"shape {list(value.shape)}")
        value = value.tolist()
    return _per_tensor(name, tensors, value, "scalars", 4)


def _unary(name, in_place):
    full = f"_foreach_{name}{'_' if in_place else ''}"

    def apply(self):
        tensors = _tensor_list(full, self)
        if in_place:
            for t in tensors:
                getattr(t, name + "_")()
            return self
        return tuple(getattr(t, name)() for t in tensors)

    apply.__name__ = full
    apply.__doc__ = f"``{name}{'_' if in_place else ''}`` of every tensor of ``self``."
    return apply


def _binary(name, in_place):
    full = f"_foreach_{name}{'_' if in_place else ''}"

    def one(t, o, alpha):
        if name in ("maximum", "minimum"):
            if not isinstance(o, CoreTensor):  # torch clamps by a number
                return getattr(t, ("clamp_min" if name == "maximum" else "clamp_max") + ("_" if in_place else ""))(o)
            if in_place:  # no Tensor.maximum_: written through out=, as torch's list kernel does
                return getattr(_torch, name)(t, o, out=t)
        method = getattr(t, name + ("_" if in_place else ""))
        return method(o) if alpha is None else method(o, alpha=alpha)

    def apply(self, other, *, alpha=None):
        if name == "pow" and isinstance(self, numbers.Number) and not in_place:  # a number to each tensor's power
            return tuple(_torch.pow(self, t) for t in _tensor_list(full, other, "exponent", 2))
        tensors = _tensor_list(full, self)
        others = _per_tensor(full, tensors, other)
        # alpha: add and sub of tensor lists, add of one tensor (torch's overloads)
        if alpha is not None and not (name == "add" and isinstance(other, CoreTensor)
                                      or name in ("add", "sub") and isinstance(others[0], CoreTensor)
                                      and not isinstance(other, CoreTensor)):
            raise TypeError(f"{full}() got an unexpected keyword argument 'alpha' for this combination of arguments")
        results = [one(t, o, alpha) for t, o in zip(tensors, others)]
        return self if in_place else tuple(results)

    apply.__name__ = full
    apply.__doc__ = (f"``{name}`` of every tensor of ``self`` with ``other`` (a number, numbers, tensors or one "
                     f"tensor){' in place' if in_place else ''}.")
    return apply


globals().update({f"_foreach_{name}{'_' if in_place else ''}": _unary(name, in_place)
                  for name in _UNARY for in_place in (False, True)})
globals().update({f"_foreach_{name}{'_' if in_place else ''}": _binary(name, in_place)
                  for name in _BINARY for in_place in (False, True)})


def _pointwise3(name, in_place):
    full = f"_foreach_{name}{'_' if in_place else ''}"

    def apply(self, tensor1, tensor2, *scalars, value=1):
        """``scalars`` (positional only): a number, numbers or a 1-D tensor of them; ``value=``: a number."""
        if len(scalars) > 1 or scalars and value != 1 or not isinstance(value, numbers.Number):
            raise TypeError(f"{full}() received an invalid combination of arguments: the scalars are a number "
                            f"(positional or value=), a list of numbers or a 1-D tensor (positional)")
        tensors = _tensor_list(full, self)
        firsts = _per_tensor(full, tensors, _tensor_list(full, tensor1, "tensor1", 2), "tensor1", 2)
        seconds = _per_tensor(full, tensors, _tensor_list(full, tensor2, "tensor2", 3), "tensor2", 3)
        values = _scalars(full, tensors, scalars[0] if scalars else value)
        method = name + ("_" if in_place else "")
        results = [getattr(t, method)(a, b, value=v) for t, a, b, v in zip(tensors, firsts, seconds, values)]
        return self if in_place else tuple(results)

    apply.__name__ = full
    apply.__doc__ = (f"``self[i] + value * tensor1[i] {'*' if name == 'addcmul' else '/'} tensor2[i]`` for every "
                     f"i{' in place' if in_place else ''} (the value: a number, numbers or a 1-D tensor).")
    return apply


def _lerp(in_place):
    full = "_foreach_lerp_" if in_place else "_foreach_lerp"

    def apply(self, tensors1, weight):
        tensors = _tensor_list(full, self)
        ends = _per_tensor(full, tensors, _tensor_list(full, tensors1, "tensors1", 2), "tensors1", 2)
        weights = _per_tensor(full, tensors, weight, "weight", 3)
        method = "lerp_" if in_place else "lerp"
        results = [getattr(t, method)(e, w) for t, e, w in zip(tensors, ends, weights)]
        return self if in_place else tuple(results)

    apply.__name__ = full
    apply.__doc__ = (f"``lerp`` of every tensor of ``self`` towards ``tensors1`` by ``weight`` (a number, numbers "
                     f"or tensors){' in place' if in_place else ''}.")
    return apply


_foreach_addcmul, _foreach_addcmul_ = _pointwise3("addcmul", False), _pointwise3("addcmul", True)
_foreach_addcdiv, _foreach_addcdiv_ = _pointwise3("addcdiv", False), _pointwise3("addcdiv", True)
_foreach_lerp, _foreach_lerp_ = _lerp(False), _lerp(True)


def _foreach_norm(self, ord=2, dtype=None):
    """tuple of Tensor: the vector norm (order ``ord``) of every tensor of ``self`` (0-d tensors)."""
    return tuple(_torch.linalg.vector_norm(t, ord, dtype=dtype) for t in _tensor_list("_foreach_norm", self))


def _foreach_max(self):
    """tuple of Tensor: the largest element of every tensor of ``self``."""
    return tuple(t.max() for t in _tensor_list("_foreach_max", self))


def _foreach_copy_(self, src, non_blocking=False):
    """Copy ``src[i]`` into ``self[i]`` (broadcast, converted to its dtype) for every i; returns ``self``."""
    tensors = _tensor_list("_foreach_copy_", self)
    sources = _per_tensor("_foreach_copy_", tensors, _tensor_list("_foreach_copy_", src, "src", 2), "src", 2)
    for t, s in zip(tensors, sources):
        t.copy_(s, non_blocking)
    return self


def _foreach_zero_(self):
    """Fill every tensor of ``self`` with zeros; returns ``self``."""
    for t in _tensor_list("_foreach_zero_", self):
        t.zero_()
    return self


def _foreach_clone(self):
    """tuple of Tensor: a copy of every tensor of ``self``."""
    return tuple(t.clone() for t in _tensor_list("_foreach_clone", self))
