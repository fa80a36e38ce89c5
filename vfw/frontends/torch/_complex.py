"""Complex tensors: complex, polar, view_as_real, view_as_complex, real, imag, conj, conj_physical(_),
resolve_conj, angle (the ``.real``/``.imag`` properties, and ``Tensor.cfloat``/``cdouble``/``chalf``).

Over the engine's ComplexMake, Real, Imag, Conj and Angle ops (``vfw/core/ops/complex_parts.py``), so all
of it is differentiable with torch's convention for complex gradients.  ``view_as_real`` and
``view_as_complex`` return views sharing the input's memory, as torch's (under autograd the engine ops
record the history and the result holds the view).  Differences from torch: the results of ``real``,
``imag`` and ``conj`` are copies, not views (writing into them leaves the source unchanged), so ``conj``
sets no conjugate bit (``is_conj()`` is False) and ``resolve_conj`` returns its input; complex32 (``chalf``)
has no engine type and is refused.
"""

import math

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._comparison import where
from vfw.frontends.torch._dispatch import call, cast, convert, finish, inplace, op, type_name, view_of
from vfw.frontends.torch._joining import stack
from vfw.frontends.torch._layout import select
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._shape import as_view, recording

__all__ = ["complex", "polar", "view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical",
           "conj_physical_", "resolve_conj", "angle"]

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


def _parts_view(arr):
    """The numpy view of complex ``arr`` as its real parts with a last dim of 2 (any strides)."""
    return np.lib.stride_tricks.as_strided(arr.real, arr.shape + (2,), arr.strides + (arr.itemsize // 2,),
                                           writeable=arr.flags.writeable)


def view_as_real(input):
    """A view of complex ``input`` as a real tensor with a last dim of 2 (real and imaginary parts).

    Parameters
    ----------
    input : Tensor
        A complex tensor of shape ``S``.

    Returns
    -------
    Tensor
        Shape ``S + (2,)``, sharing ``input``'s memory (float32 for complex64, float64 for complex128).
    """
    x = tensor_arg(input, "view_as_real")
    if not _is_complex(x):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    view = _parts_view(x.array)
    if not recording(x):
        return as_view(x, view)
    out = stack([call(op("Real"), x), call(op("Imag"), x)], -1)
    out.array = view  # same values; the recorded ops' backward reads no output
    return view_of(x, out)


def _complex_view(x):
    """The numpy view of ``x`` (last dim 2, stride 1) as complex numbers, with torch's layout errors."""
    arr = x.array
    if arr.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if arr.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    item = arr.itemsize
    if arr.strides[-1] != item:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * item) for n, s in zip(arr.shape[:-1], arr.strides[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if x.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return arr.view(np.dtype(np.complex64 if arr.dtype == np.float32 else np.complex128))[..., 0]


def view_as_complex(input):
    """A view of ``input`` (last dim of size 2 holding real and imaginary parts) as a complex tensor.

    Parameters
    ----------
    input : Tensor
        float32 or float64, shape ``S + (2,)``, last dim of stride 1, other strides and the storage offset even.

    Returns
    -------
    Tensor
        Shape ``S`` (complex64 for float32, complex128 for float64), sharing ``input``'s memory.
    """
    x = tensor_arg(input, "view_as_complex")
    d = x.array.dtype
    if d not in _PARTS:
        if d == np.float16:  # complex32 has no engine type
            raise NotImplementedError("view_as_complex: half tensors (complex32) are not supported by vfw")
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {type_name(d)}")
    view = _complex_view(x)
    if not recording(x):
        return as_view(x, view)
    out = call(op("ComplexMake"), select(x, -1, 0), select(x, -1, 1))
    out.array = view  # same values; ComplexMake's backward reads no output
    return view_of(x, out)


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


def conj_physical_(input):
    """Conjugate ``input`` in place (real tensors are left as they are); returns ``input``."""
    x = tensor_arg(input, "conj_physical_")
    return inplace(conj, x, name="conj_physical_") if _is_complex(x) else x


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


def cfloat(self):
    """This tensor as complex64 (real values get a zero imaginary part)."""
    return convert(self, np.dtype(np.complex64))


def cdouble(self):
    """This tensor as complex128 (real values get a zero imaginary part)."""
    return convert(self, np.dtype(np.complex128))


def chalf(self):
    """torch's complex32 conversion: refused (the engine has no complex32 type)."""
    raise NotImplementedError(f"chalf: complex32 (ComplexHalf) tensors are not supported by vfw; got a "
                              f"{type_name(self.array.dtype)} tensor (use cfloat())")


TENSOR_METHODS = {
    "real": property(_real_property, doc="The real part (a copy for complex tensors; the tensor itself otherwise)."),
    "imag": property(_imag_property, doc="The imaginary part of a complex tensor (a copy)."),
    "conj": conj, "conj_physical": conj_physical, "conj_physical_": conj_physical_, "resolve_conj": resolve_conj,
    "angle": angle, "cfloat": cfloat, "cdouble": cdouble, "chalf": chalf,
}
