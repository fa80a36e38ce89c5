"""Discrete Fourier transforms (engine ops, not ONNX): ``FFT``, ``RFFT`` and ``IRFFT``.

- ``FFT(input)``: the complex transform of a complex tensor over ``axes`` (``inverse=1``: the inverse).
- ``RFFT(input)``: the transform of a real tensor over ``axes``, one-sided on the last of them
  (``n // 2 + 1`` frequencies); float32 gives complex64, float64 complex128.
- ``IRFFT(input)``: the inverse of ``RFFT``: a Hermitian spectrum, one-sided on the last axis, to a real
  tensor (the imaginary parts of the zero and Nyquist frequencies are ignored).

``lengths`` (one per axis) is the signal length of each transformed axis: the input is cropped or
zero-padded to it before the transform (for IRFFT it is the output length; by default
``2 * (m - 1)`` on the last axis of ``m`` frequencies).  ``norm`` scales as numpy and torch do:
``"backward"`` leaves the forward transform unscaled and divides the inverse by the number of
points, ``"forward"`` the other way round, ``"ortho"`` divides both by its square root.

Every transform is linear, so its gradient is its adjoint (torch's convention for complex
gradients, ``dL/dRe + i dL/dIm``): the transform of the other direction with the ``"backward"`` and
``"forward"`` scalings swapped, cropped or zero-padded back to the input's size.  RFFT's adjoint
zero-pads the one-sided gradient to the full spectrum and keeps the real part; IRFFT's is the RFFT
of the gradient with the frequencies that stand for a conjugate pair doubled.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpAttributeError
from vfw.core.ops._common import array_of, execute, int64s, normalize_axes, positive, require
from vfw.core.ops.complex_parts import complex_of, real_of
from vfw.core.registry import Attr, TensorInfo, defop

_REALS = frozenset({dt.float32, dt.float64})
_NORMS = ("backward", "ortho", "forward")
_ADJOINT_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _attrs(inverse=False):
    attrs = {"axes": Attr("ints"), "lengths": Attr("ints", None, check=positive),
             "norm": Attr("string", "backward", choices=_NORMS)}
    if inverse:
        attrs["inverse"] = Attr("int", 0, choices=(0, 1))
    return attrs


def _plan(op_type, shape, axes, lengths):
    """Normalized ``axes`` and the signal length along each (``lengths`` or the input's sizes)."""
    require(op_type, len(axes) > 0, "axes must name at least one axis", error=OpAttributeError)
    axes = normalize_axes(op_type, axes, len(shape))
    if lengths is None:
        return axes, None
    require(op_type, len(lengths) == len(axes),
            f"lengths {tuple(lengths)} must have one entry per axis of axes {tuple(axes)}", error=OpAttributeError)
    return axes, tuple(lengths)


def _infer(op_type, out_dtype, out_length):
    """Shape inference: the transformed axes get ``out_length(axis_index, size, length)``."""

    def infer(attrs, infos):
        x = infos[0]
        dtype = out_dtype(x.dtype)
        if x.shape is None:
            return [TensorInfo(None, dtype)]
        axes, lengths = _plan(op_type, x.shape, attrs["axes"], attrs["lengths"])
        shape = list(x.shape)
        for k, axis in enumerate(axes):
            last = k == len(axes) - 1
            shape[axis] = out_length(last, shape[axis], None if lengths is None else lengths[k])
        return [TensorInfo(tuple(shape), dtype)]

    return infer


def _same_length(last, size, length):
    return size if length is None else length


def _one_sided_length(last, size, length):
    n = _same_length(last, size, length)
    return n // 2 + 1 if last and n is not None else n


def _irfft_length(last, size, length):
    if length is not None:
        return length
    return 2 * (size - 1) if last and size is not None else size


@defop("FFT", inputs="input:T", outputs="output:T", types={"T": dt.COMPLEX}, attrs=_attrs(inverse=True),
       infer=_infer("FFT", lambda d: d, _same_length))
def fft(axes, lengths, norm, inverse):
    """The complex discrete Fourier transform over ``axes`` (the inverse when ``inverse=1``)."""
    transform = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(x, out=None):
        ax, s = _plan("FFT", x.shape, axes, lengths)
        return transform(x, s=s, axes=ax, norm=norm)

    return kernel


@defop("RFFT", inputs="input:T1", outputs="output:T2", types={"T1": _REALS, "T2": dt.COMPLEX}, attrs=_attrs(),
       infer=_infer("RFFT", complex_of, _one_sided_length))
def rfft(axes, lengths, norm):
    """The discrete Fourier transform of a real tensor, one-sided on the last of ``axes``."""

    def kernel(x, out=None):
        ax, s = _plan("RFFT", x.shape, axes, lengths)
        return np.fft.rfftn(x, s=s, axes=ax, norm=norm)

    return kernel


@defop("IRFFT", inputs="input:T1", outputs="output:T2", types={"T1": dt.COMPLEX, "T2": _REALS}, attrs=_attrs(),
       infer=_infer("IRFFT", real_of, _irfft_length))
def irfft(axes, lengths, norm):
    """The inverse of RFFT: a spectrum one-sided on the last of ``axes`` to a real tensor."""

    def kernel(x, out=None):
        ax, s = _plan("IRFFT", x.shape, axes, lengths)
        if s is None:
            s = tuple(x.shape[a] for a in ax[:-1]) + (2 * (x.shape[ax[-1]] - 1),)
        require("IRFFT", s[-1] >= 1, f"an output length of {s[-1]} along axis {ax[-1]} (input shape {x.shape}); "
                "give lengths", error=OpAttributeError)
        return np.fft.irfftn(x, s=s, axes=ax, norm=norm)

    return kernel


# -- gradients -----------------------------------------------------------------------------------
def resize_axes(t, axes, sizes):
    """``t`` cropped or zero-padded at the end of each of ``axes`` to ``sizes`` (engine ops, differentiable)."""
    shape = array_of(t).shape
    crop = [(a, n) for a, n in zip(axes, sizes) if shape[a] > n]
    if crop:
        t = execute("Slice", t, int64s([0] * len(crop)), int64s([n for _, n in crop]), int64s([a for a, _ in crop]))
    pad = [(a, n - shape[a]) for a, n in zip(axes, sizes) if shape[a] < n]
    if pad:
        pads = [0] * (2 * len(shape))
        for a, extra in pad:
            pads[len(shape) + a] = extra
        t = execute("Pad", t, int64s(pads))
    return t


def _node_plan(node):
    x = array_of(node.inputs[0])
    axes, _ = _plan(node.op.schema.op_type, x.shape, node.attrs["axes"], node.attrs["lengths"])
    return x.shape, axes


@register_gradient("FFT")
def _fft_grad(node, g):
    shape, axes = _node_plan(node)
    adjoint = execute("FFT", g, axes=axes, inverse=1 - node.attrs["inverse"], norm=_ADJOINT_NORM[node.attrs["norm"]])
    return (resize_axes(adjoint, axes, [shape[a] for a in axes]),)


@register_gradient("RFFT")
def _rfft_grad(node, g):
    shape, axes = _node_plan(node)
    lengths = node.attrs["lengths"] or [shape[a] for a in axes]
    full = resize_axes(g, axes[-1:], lengths[-1:])  # the one-sided spectrum's missing half contributes 0
    adjoint = execute("FFT", full, axes=axes, inverse=1, norm=_ADJOINT_NORM[node.attrs["norm"]])
    return (resize_axes(execute("Real", adjoint), axes, [shape[a] for a in axes]),)


def _pair_weights(n, ndim, axis, dtype):
    """Weights of a one-sided spectrum of a real signal of length ``n``: 2 for frequencies that stand
    for a conjugate pair, 1 for the zero frequency and (``n`` even) the Nyquist frequency; shaped to
    broadcast along ``axis`` of an ``ndim``-d tensor."""
    weights = np.ones(n // 2 + 1, dtype)
    weights[1:(n + 1) // 2] = 2
    shape = [1] * ndim
    shape[axis] = weights.size
    return weights.reshape(shape)


@register_gradient("IRFFT")
def _irfft_grad(node, g):
    shape, axes = _node_plan(node)
    n = node.output_shape(0)[axes[-1]]
    adjoint = execute("RFFT", g, axes=axes, norm=_ADJOINT_NORM[node.attrs["norm"]])
    weighted = execute("Mul", adjoint, _pair_weights(n, len(shape), axes[-1], adjoint.array.dtype))
    return (resize_axes(weighted, axes, [shape[a] for a in axes]),)
