"""torch.fft: discrete Fourier transforms over the engine's FFT, RFFT and IRFFT ops (``vfw/core/ops/fft.py``).

torch's rules: real inputs of a complex transform become complex (float32 -> complex64, float64 ->
complex128, integers and bools -> the default dtype's complex type); float16 and bfloat16 are refused
("Unsupported dtype Half", as torch on the CPU).  ``n``/``s`` crop or zero-pad the signal (``-1`` in ``s``
keeps a dim's size), ``norm`` is ``"backward"`` (default: the forward transform unscaled, the inverse
divided by the number of points), ``"ortho"`` or ``"forward"``.  ``hfft`` is the forward transform of a
Hermitian signal given by its first half (``irfft`` of the conjugate with the scaling reversed), ``ihfft``
its inverse.  Every transform is differentiable (the engine ops' gradients are their adjoints).
"""

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._creation import _made
from vfw.frontends.torch._dispatch import call, cast, finish, op, type_name
from vfw.frontends.torch._layout import roll
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._shape import wrap_dim, wrap_dims

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_REVERSED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_HALF = frozenset({np.dtype(np.float16), _dtype.bfloat16.np})


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _signal(input, fn, kind):
    """``input`` as the transform wants it: ``kind`` "complex" (real inputs converted) or "real" (complex
    refused, integers and bools made floating)."""
    x = tensor_arg(input, fn)
    d = x.array.dtype
    if d in _HALF:
        raise RuntimeError(f"Unsupported dtype {type_name(d)}")
    if d.kind == "c":
        if kind == "real":
            raise RuntimeError(f"{fn} expects a real input tensor, but got {type_name(d)}")
        return x
    if d.kind != "f":
        x = cast(x, _dtype.default_float_np())
    return cast(x, _dtype.from_numpy_dtype(x.array.dtype).to_complex().np) if kind == "complex" else x


def _checked_length(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _plan(x, s, dim, default_dims=None):
    """``(dims, lengths)`` of an n-dimensional transform: torch's rules for ``s`` and ``dim``."""
    ndim = x.array.ndim
    if dim is None:
        if s is None:
            dims = tuple(range(ndim)) if default_dims is None else wrap_dims(default_dims, ndim)
        else:
            if len(s) > ndim:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
            dims = tuple(range(ndim - len(s), ndim))
    else:
        dims = wrap_dims(dim, ndim)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    if s is None:
        return dims, None
    return dims, tuple(x.array.shape[d] if n == -1 else _checked_length(int(n)) for d, n in zip(dims, s))


def _one_dim(x, n, dim):
    """``(dims, lengths)`` of a one-dimensional transform along ``dim`` with signal length ``n``."""
    d = wrap_dim(dim, x.array.ndim)
    return (d,), (None if n is None else (_checked_length(int(n)),))


def _complex_transform(x, dims, lengths, inverse, norm, out, fn):
    result = call(op("FFT", axes=dims, lengths=lengths, inverse=inverse, norm=norm), x)
    return finish(result, out, fn)


def _real_to_half(x, dims, lengths, norm, out, fn, conjugate=False):
    result = call(op("RFFT", axes=dims, lengths=lengths, norm=norm), x)
    if conjugate:
        result = call(op("Conj"), result)
    return finish(result, out, fn)


def _half_to_real(x, dims, lengths, norm, out, fn, conjugate=False):
    lengths = _half_lengths(x, dims, lengths)
    if conjugate:
        x = call(op("Conj"), x)
    return finish(call(op("IRFFT", axes=dims, lengths=lengths, norm=norm), x), out, fn)


def _half_lengths(x, dims, lengths):
    """IRFFT lengths from torch's ``s`` (None: every dim kept, the last ``2 * (m - 1)``)."""
    if lengths is not None:
        return lengths
    return tuple(x.array.shape[d] for d in dims[:-1]) + (_checked_length(2 * (x.array.shape[dims[-1]] - 1)),)


# -- one-dimensional ---------------------------------------------------------------------------------
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The discrete Fourier transform along ``dim``.

    Parameters
    ----------
    input : Tensor
        Real or complex; real inputs are converted to complex.
    n : int, optional
        Signal length: ``input`` is cropped or zero-padded to it along ``dim``.
    dim : int
    norm : {"backward", "ortho", "forward"}, optional

    Returns
    -------
    Tensor
        Complex, ``n`` (or ``input``'s size) along ``dim``.
    """
    x = _signal(input, "fft", "complex")
    return _complex_transform(x, *_one_dim(x, n, dim), 0, _norm(norm), out, "fft")


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse discrete Fourier transform along ``dim`` (see :func:`fft`)."""
    x = _signal(input, "ifft", "complex")
    return _complex_transform(x, *_one_dim(x, n, dim), 1, _norm(norm), out, "ifft")


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a real signal along ``dim``: the ``n // 2 + 1`` non-negative frequencies.

    Parameters are those of :func:`fft`; ``input`` must be real.
    """
    x = _signal(input, "rfft", "real")
    return _real_to_half(x, *_one_dim(x, n, dim), _norm(norm), out, "rfft")


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default ``2 * (m - 1)`` for ``m``
    frequencies) along ``dim``."""
    x = _signal(input, "irfft", "complex")
    dims, lengths = _one_dim(x, n, dim)
    return _half_to_real(x, dims, lengths, _norm(norm), out, "irfft")


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian signal given by its first half: real, of length ``n`` (default
    ``2 * (m - 1)``) along ``dim``."""
    x = _signal(input, "hfft", "complex")
    dims, lengths = _one_dim(x, n, dim)
    return _half_to_real(x, dims, lengths, _REVERSED[_norm(norm)], out, "hfft",
                         conjugate=True)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`hfft`: the ``n // 2 + 1`` first values of the inverse transform of a real signal."""
    x = _signal(input, "ihfft", "real")
    return _real_to_half(x, *_one_dim(x, n, dim), _REVERSED[_norm(norm)], out, "ihfft", conjugate=True)


# -- n-dimensional -----------------------------------------------------------------------------------
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform over ``dim`` (default: the last ``len(s)`` dims, or all).

    Parameters
    ----------
    input : Tensor
    s : sequence of int, optional
        Signal lengths, one per transformed dim (``-1``: the dim's size).
    dim : sequence of int, optional
    norm : {"backward", "ortho", "forward"}, optional

    Returns
    -------
    Tensor
        Complex.
    """
    x = _signal(input, "fftn", "complex")
    return _complex_transform(x, *_plan(x, s, dim), 0, _norm(norm), out, "fftn")


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional inverse transform (see :func:`fftn`)."""
    x = _signal(input, "ifftn", "complex")
    return _complex_transform(x, *_plan(x, s, dim), 1, _norm(norm), out, "ifftn")


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a real signal, one-sided along the last transformed dim."""
    x = _signal(input, "rfftn", "real")
    return _real_to_half(x, *_plan(x, s, dim), _norm(norm), out, "rfftn")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`rfftn` (the last dim's default length is ``2 * (m - 1)``)."""
    x = _signal(input, "irfftn", "complex")
    dims, lengths = _plan(x, s, dim)
    return _half_to_real(x, dims, lengths, _norm(norm), out, "irfftn")


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a Hermitian signal given by its half along the last dim (real)."""
    x = _signal(input, "hfftn", "complex")
    dims, lengths = _plan(x, s, dim)
    return _half_to_real(x, dims, lengths, _REVERSED[_norm(norm)], out, "hfftn",
                         conjugate=True)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`hfftn`."""
    x = _signal(input, "ihfftn", "real")
    return _real_to_half(x, *_plan(x, s, dim), _REVERSED[_norm(norm)], out, "ihfftn", conjugate=True)


def _two_dim(fn_n):
    def fn(input, s=None, dim=(-2, -1), norm=None, *, out=None):
        return fn_n(input, s, dim, norm, out=out)

    name = fn_n.__name__[:-1] + "2"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{fn_n.__name__} over two dims (default the last two)."
    return fn


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = map(_two_dim, (fftn, ifftn, rfftn, irfftn, hfftn, ihfftn))


# -- frequencies and shifts ----------------------------------------------------------------------------
def _frequencies(name, n, d, dtype, requires_grad, device, integers):
    np_dtype = _dtype.to_np(dtype) if dtype is not None else _dtype.default_float_np()
    values = integers.astype(np_dtype) * np_dtype.type(1.0 / (n * d))
    return _made(np.asarray(values, np_dtype), requires_grad, device=device, name=name)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``: ``[0, 1, ..., -1] / (d n)``."""
    k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return finish(_frequencies("fftfreq", n, d, dtype, requires_grad, device, k), out, "fftfreq")


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an ``n``-point real transform: ``[0, ..., n // 2] / (d n)``."""
    return finish(_frequencies("rfftfreq", n, d, dtype, requires_grad, device, np.arange(n // 2 + 1)), out,
                  "rfftfreq")


def _shift(input, dim, sign, fn):
    x = tensor_arg(input, fn)
    dims = tuple(range(x.array.ndim)) if dim is None else wrap_dims(dim, x.array.ndim)
    if not dims:
        return x
    return roll(x, [sign * (x.array.shape[d] // 2) for d in dims], list(dims))


def fftshift(input, dim=None):
    """``input`` with the zero frequency moved to the centre of each of ``dim`` (default all)."""
    return _shift(input, dim, 1, "fftshift")


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`."""
    return _shift(input, dim, -1, "ifftshift")
