"""Modified Bessel functions of the first and second kind, orders 0 and 1:
``torch.special.i0e / i1 / i1e / modified_bessel_i0 / i1 / k0 / k1 / scaled_modified_bessel_k0 / k1``.

Thin adapters of the engine's Bessel ops (``vfw/core/ops/special_bessel.py``, which holds the numerics):
torch's dtype rules (integers give the default float; the ``modified_bessel_*`` kernels refuse half
precision) and gradients: ``i0e``, ``i1`` and ``i1e`` are differentiable (the engine ops' gradients); the
``modified_bessel_*`` functions are not (torch has no derivative for them either).
"""

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _floating, _op, tensor_arg

__all__ = ["i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]


def _bessel(op_type, name, input, out):
    """Engine op ``op_type`` on ``input`` as a float tensor (integers: the default dtype)."""
    result = run(_op(op_type), _floating(input, name))
    return result if out is None else _dispatch.finish(result, out, "special")


def i0e(input, *, out=None):
    """Exponentially scaled modified Bessel function of the first kind, order 0: ``e^-|x| I_0(x)``."""
    return _bessel("BesselI0e", "special_i0e", input, out)


def i1(input, *, out=None):
    """Modified Bessel function of the first kind, order 1."""
    return _bessel("BesselI1", "special_i1", input, out)


def i1e(input, *, out=None):
    """Exponentially scaled modified Bessel function of the first kind, order 1: ``e^-|x| I_1(x)``."""
    return _bessel("BesselI1e", "special_i1e", input, out)


def _full_precision(name, input):
    """``input`` without autograd history (torch defines no derivative), refused in half precision (torch has
    these kernels for float32/float64 and integers only)."""
    tensor_arg(input, name)
    dtype = input.array.dtype
    if dtype.kind == "f" and dtype.itemsize < 4 or dtype.name == "bfloat16":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(dtype)}'")
    return input.detach()


def modified_bessel_i0(input, *, out=None):
    """``I_0(x)`` (not differentiable, as in torch)."""
    return _bessel("BesselI0", "modified_bessel_i0", _full_precision("modified_bessel_i0", input), out)


def modified_bessel_i1(input, *, out=None):
    """``I_1(x)`` (not differentiable, as in torch)."""
    return _bessel("BesselI1", "modified_bessel_i1", _full_precision("modified_bessel_i1", input), out)


def modified_bessel_k0(input, *, out=None):
    """``K_0(x)``: inf at 0, NaN for negative x (not differentiable, as in torch)."""
    return _bessel("BesselK0", "modified_bessel_k0", _full_precision("modified_bessel_k0", input), out)


def modified_bessel_k1(input, *, out=None):
    """``K_1(x)``: inf at 0, NaN for negative x (not differentiable, as in torch)."""
    return _bessel("BesselK1", "modified_bessel_k1", _full_precision("modified_bessel_k1", input), out)


def scaled_modified_bessel_k0(input, *, out=None):
    """``e^x K_0(x)`` (not differentiable, as in torch)."""
    return _bessel("BesselK0e", "scaled_modified_bessel_k0", _full_precision("scaled_modified_bessel_k0", input),
                   out)


def scaled_modified_bessel_k1(input, *, out=None):
    """``e^x K_1(x)`` (not differentiable, as in torch)."""
    return _bessel("BesselK1e", "scaled_modified_bessel_k1", _full_precision("scaled_modified_bessel_k1", input),
                   out)
