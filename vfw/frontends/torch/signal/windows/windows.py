"""``torch.signal.windows`` functions: windows of ``M`` samples, symmetric (``sym=True``) or periodic (the
first ``M`` samples of the symmetric window of ``M + 1``), in float32 / float64.

The cosine-sum family, Bartlett and Kaiser run the engine's window ops (``vfw/core/ops/signal_windows.py``,
float64 rounded once to ``dtype``); ``cosine``, ``exponential`` and ``gaussian`` compose torch functions in
float64.  Argument errors are torch's ``ValueError`` / ``TypeError`` naming the function torch names.
"""

import math

import numpy as np

from vfw.frontends.torch import _config, _dtype
from vfw.frontends.torch._creation import _made, arange
from vfw.frontends.torch._pointwise import _op
from vfw.frontends.torch.autograd.grad_mode import no_grad

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]

_NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)
_BLACKMAN = (0.42, 0.5, 0.08)


def _checked(name, M, dtype, layout):
    """The numpy dtype of a window, after torch's checks of ``M``, ``dtype`` and ``layout``."""
    if not isinstance(M, (int, np.integer)) or isinstance(M, bool):
        raise TypeError(f"{name}(): argument 'M' must be int, not {type(M).__name__}")
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not _config.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    chosen = dtype if dtype is not None else _dtype.get_default_dtype()
    np_dtype = _dtype.to_np(chosen)
    if np_dtype not in (np.float32, np.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {chosen}")
    return np_dtype


def _engine_window(name, M, sym, dtype, layout, device, requires_grad, op_type, **attrs):
    """Engine window op ``op_type`` of ``M`` samples (torch's one-sample window is ``[1.]``)."""
    np_dtype = _checked(name, M, dtype, layout)
    if M <= 1:
        values = np.ones(M, np_dtype)
    else:
        values = _op(op_type, periodic=int(not sym), output_datatype=np_dtype, **attrs)(np.asarray(M, np.int64))
    return _made(values, requires_grad, device=device, name=name)


def _composed_window(name, M, sym, dtype, layout, device, requires_grad, shape, single_sample_is_one=True):
    """A window ``shape(n, length)`` of the float64 sample positions ``n`` (``length``: ``M``, one more when
    periodic), cast to ``dtype``; ``[1.]`` for one sample if ``single_sample_is_one`` (torch computes it only
    for an exponential window with a given center)."""
    np_dtype = _checked(name, M, dtype, layout)
    if M == 0 or (M == 1 and single_sample_is_one):
        return _made(np.ones(M, np_dtype), requires_grad, device=device, name=name)
    with no_grad():
        values = shape(arange(M, dtype=_dtype.float64), M if sym else M + 1)
    return _made(values.numpy().astype(np_dtype), requires_grad, device=device, name=name)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Cosine-sum window ``w[n] = sum_k (-1)^k a[k] cos(2 pi k n / (M - 1))``.

    Parameters
    ----------
    M : int
        Number of samples (0 gives an empty window, 1 gives ``[1.]``).
    a : list or tuple of float
        The coefficients.
    sym : bool
        True: symmetric (for filter design); False: periodic (for spectral analysis).
    dtype : torch.dtype, optional
        float32 or float64 (default: the default dtype).
    layout, device, requires_grad
        torch's factory keywords (strided layout, the CPU).

    Returns
    -------
    Tensor
        ``(M,)``.
    """
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _engine_window("general_cosine", M, sym, dtype, layout, device, requires_grad, "CosineSumWindow",
                          coefficients=tuple(float(c) for c in a))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))`` (arguments as
    :func:`general_cosine`)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window ``0.5 - 0.5 cos(2 pi n / (M - 1))`` (arguments as :func:`general_cosine`)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hamming window ``0.54 - 0.46 cos(2 pi n / (M - 1))`` (arguments as :func:`general_cosine`)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Minimum 4-term Blackman-Harris window of Nuttall (arguments as :func:`general_cosine`)."""
    return general_cosine(M, a=_NUTTALL, sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))`` (arguments as
    :func:`general_cosine`)."""
    return _engine_window("blackman", M, sym, dtype, layout, device, requires_grad, "CosineSumWindow",
                          coefficients=_BLACKMAN)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window ``1 - |2 n / (M - 1) - 1|`` (arguments as :func:`general_cosine`)."""
    return _engine_window("bartlett", M, sym, dtype, layout, device, requires_grad, "BartlettWindow")


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Kaiser window ``I0(beta sqrt(1 - (2 n / (M - 1) - 1)^2)) / I0(beta)``.

    Parameters
    ----------
    beta : float
        Shape parameter, non-negative (larger: narrower main lobe in time).
    M, sym, dtype, layout, device, requires_grad
        As for :func:`general_cosine`.
    """
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _engine_window("kaiser", M, sym, dtype, layout, device, requires_grad, "KaiserWindow", beta=float(beta))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Cosine (sine) window ``sin(pi (n + 0.5) / M)`` (arguments as :func:`general_cosine`)."""
    return _composed_window("cosine", M, sym, dtype, layout, device, requires_grad,
                            lambda n, length: ((n + 0.5) * (math.pi / length)).sin())


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Gaussian window ``exp(-(n - (M - 1) / 2)^2 / (2 std^2))``.

    Parameters
    ----------
    std : float
        Standard deviation in samples, positive.
    M, sym, dtype, layout, device, requires_grad
        As for :func:`general_cosine`.
    """
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _composed_window("gaussian", M, sym, dtype, layout, device, requires_grad,
                            lambda n, length: (-((n - (length - 1) / 2) ** 2) / (2 * std * std)).exp())


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Exponential (Poisson) window ``exp(-|n - center| / tau)``.

    Parameters
    ----------
    center : float, optional
        Where the window peaks; only for periodic windows (default: the middle, ``(M - 1) / 2`` when
        symmetric, ``M / 2`` when periodic).
    tau : float
        Decay, positive.
    M, sym, dtype, layout, device, requires_grad
        As for :func:`general_cosine`.
    """
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")

    def shape(n, length):
        peak = (length - 1) / 2 if center is None else center
        return (-(n - peak).abs() / tau).exp()

    return _composed_window("exponential", M, sym, dtype, layout, device, requires_grad, shape,
                            single_sample_is_one=center is None)
