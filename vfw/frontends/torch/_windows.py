"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``, ``bartlett_window``,
``blackman_window``, ``kaiser_window``.

A periodic window of length ``N`` is the symmetric window of length ``N + 1`` without its last
value (the form ``stft`` wants); values are computed in float64 and rounded once to ``dtype``.
"""

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._creation import _made

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


def _window(name, window_length, periodic, dtype, requires_grad, device, symmetric):
    """``symmetric(n)`` (float64 values of the symmetric window of length ``n`` >= 2) made periodic, checked and
    cast as torch does."""
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    np_dtype = _dtype.to_np(dtype) if dtype is not None else _dtype.default_float_np()
    if not _dtype.from_numpy_dtype(np_dtype).is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_dtype.from_numpy_dtype(np_dtype)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        values = symmetric(window_length + 1)[:-1] if periodic else symmetric(window_length)
    return _made(values.astype(np_dtype), requires_grad, device=device, name=name)


def _cosine_sum(*coefficients):
    """The symmetric window ``sum_k (-1)^k a_k cos(2 pi k n / (N - 1))``."""
    def symmetric(n):
        phase = 2 * np.pi * np.arange(n) / (n - 1)
        return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(coefficients))
    return symmetric


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window: ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``N`` one longer when ``periodic``).

    Parameters
    ----------
    window_length : int
    periodic : bool
        True: the window of length ``window_length + 1`` without its last value.
    dtype : torch.dtype, optional
        A floating point dtype (default: the default dtype).
    requires_grad : bool

    Returns
    -------
    Tensor
        Shape ``(window_length,)``.
    """
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device, _cosine_sum(0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Hamming window: ``alpha - beta cos(2 pi n / (N - 1))``; see :func:`hann_window` for the arguments."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device,
                   _cosine_sum(alpha, beta))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window: ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device,
                   _cosine_sum(0.42, 0.5, 0.08))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window: ``1 - |2 n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n: 1 - np.abs(2 * np.arange(n) / (n - 1) - 1))


def kaiser_window(window_length, periodic=None, beta=None, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """Kaiser window: ``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)`` (``I0``: the modified Bessel function
    of order 0); ``periodic`` defaults to True and ``beta`` to 12 (torch accepts ``beta`` only after ``periodic``)."""
    if beta is not None and periodic is None:
        raise TypeError("kaiser_window() received an invalid combination of arguments - got beta without periodic; "
                        "expected (int window_length, bool periodic, float beta, *, ...)")
    periodic = True if periodic is None else periodic
    beta = 12.0 if beta is None else beta
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device,
                   lambda n: np.i0(beta * np.sqrt(np.clip(1 - (2 * np.arange(n) / (n - 1) - 1) ** 2, 0, None)))
                   / np.i0(beta))
