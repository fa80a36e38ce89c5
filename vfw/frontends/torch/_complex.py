"""Complex tensors: complex, polar, view_as_real, view_as_complex, real, imag, conj, conj_physical,
resolve_conj, angle (and the ``.real``/``.imag`` properties).

Over the engine's ComplexMake, Real, Imag, Conj and Angle ops (``vfw/core/ops/complex_parts.py``), so all
of it is differentiable with torch's convention for complex gradients.  Differences from torch: the
results of ``real``, ``imag``, ``view_as_real``, ``view_as_complex`` and ``conj`` are copies, not views
(writing into them leaves the source unchanged), so ``conj`` sets no conjugate bit (``is_conj()`` is False)
and ``resolve_conj`` returns its input.
"""

import math

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._comparison import where
from vfw.frontends.torch._dispatch import call, cast, finish, op, type_name
from vfw.frontends.torch._joining import stack
from vfw.frontends.torch._layout import select
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["complex", "polar", "view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical",
           "resolve_conj", "angle"]

_PARTS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def _is_complex(x):
    return x.array.dtype.kind == "c"


def complex(real, imag, *, out=None):  # noqa: A001  (torch's name)
    """The complex tensor ``real + i imag`` (broadcast; float32 parts give complex64, float64 complex128).

    Parameters
    ----------
    real, imag : Tensor
        Floating point tensors of one dtype.

    Returns
    -------
    Tensor
    """
    re, im = tensor_arg(real, "complex", "real", 1), tensor_arg(imag, "complex", "imag", 2)
    dr, di = re.array.dtype, im.array.dtype
    if dr != di or dr.kind != "f" or dr == _dtype.bfloat16.np:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {type_name(dr)} and "
                           f"{type_name(di)}")
    if dr not in _PARTS:  # torch's complex32 has no engine type
        raise NotImplementedError(f"complex: {type_name(dr)} parts (complex32) are not supported by vfw")
    return finish(call(op("ComplexMake"), re, im), out, "complex")


def polar(abs, angle, *, out=None):  # noqa: A002  (torch's names)
    """The complex tensor with modulus ``abs`` and argument ``angle``: ``abs (cos(angle) + i sin(angle))``."""
    r, theta = tensor_arg(abs, "polar", "abs", 1), tensor_arg(angle, "polar", "angle", 2)
    if r.array.dtype != theta.array.dtype or r.array.dtype not in _PARTS:
        raise RuntimeError(f"Expected both inputs to be Float or Double tensors but got "
                           f"{type_name(r.array.dtype)} and {type_name(theta.array.dtype)}")
    return finish(complex(r * theta.cos(), r * theta.sin()), out, "polar")


def view_as_real(input):
    """A real tensor with a last dim of 2 holding the real and imaginary parts of complex ``input`` (a copy)."""
    x = tensor_arg(input, "view_as_real")
    if not _is_complex(x):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return stack([call(op("Real"), x), call(op("Imag"), x)], -1)


def view_as_complex(input):
    """The complex tensor whose real and imaginary parts are the last dim (of size 2) of ``input`` (a copy)."""
    x = tensor_arg(input, "view_as_complex")
    d = x.array.dtype
    if d not in _PARTS:
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {type_name(d)}")
    if x.array.ndim == 0 or x.array.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return call(op("ComplexMake"), select(x, -1, 0), select(x, -1, 1))


def real(input):
    """The real part of a complex tensor (a copy); a real tensor itself."""
    x = tensor_arg(input, "real")
    return call(op("Real"), x) if _is_complex(x) else x


def imag(input):
    """The imaginary part of a complex tensor (a copy); refused for real tensors, as torch."""
    x = tensor_arg(input, "imag")
    if not _is_complex(x):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return call(op("Imag"), x)


def conj(input):
    """The complex conjugate (a copy; real tensors are returned as they are)."""
    x = tensor_arg(input, "conj")
    return call(op("Conj"), x) if _is_complex(x) else x


def conj_physical(input, *, out=None):
    """The complex conjugate in new memory (real tensors: the tensor itself)."""
    return finish(conj(input), out, "conj_physical")


def resolve_conj(input):
    """``input`` itself: vfw's ``conj`` already materializes the conjugate."""
    return tensor_arg(input, "resolve_conj")


def angle(input, *, out=None):
    """The argument ``atan2(imag, real)`` of each element; for real tensors ``pi`` for negative values, 0 for
    others and NaN for NaN (integers give the default float dtype)."""
    x = tensor_arg(input, "angle")
    if _is_complex(x):
        return finish(call(op("Angle"), x), out, "angle")
    if x.array.dtype.kind != "f" and x.array.dtype != _dtype.bfloat16.np:
        x = cast(x, _dtype.default_float_np())
    result = where(x.isnan(), x, where(x < 0, math.pi, 0.0).to(_dtype.from_numpy_dtype(x.array.dtype)))
    return finish(result, out, "angle")


def _real_property(self):
    return real(self)


def _imag_property(self):
    return imag(self)


TENSOR_METHODS = {
    "real": property(_real_property, doc="The real part (a copy for complex tensors; the tensor itself otherwise)."),
    "imag": property(_imag_property, doc="The imaginary part of a complex tensor (a copy)."),
    "conj": conj, "conj_physical": conj_physical, "resolve_conj": resolve_conj,
    "angle": angle,
}
