"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``, ``bartlett_window``,
``blackman_window``, ``kaiser_window``.

Thin adapters of the engine's window ops (``vfw/core/ops/signal_windows.py``: HannWindow, BlackmanWindow,
CosineSumWindow for torch's Hamming coefficients, BartlettWindow, KaiserWindow), which compute in float64
and round once to ``dtype``; torch's argument checks, and its windows of one sample (``[1.]``, periodic or
not).
"""

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._creation import _made
from vfw.frontends.torch._pointwise import _op

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]


def _window(name, window_length, periodic, dtype, requires_grad, device, op_type, **attrs):
    """Engine window op ``op_type`` (with ``attrs``) of ``window_length`` samples, checked and typed as torch
    does."""
    if not isinstance(window_length, (int, np.integer)) or isinstance(window_length, bool):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    np_dtype = _dtype.to_np(dtype) if dtype is not None else _dtype.default_float_np()
    if not _dtype.from_numpy_dtype(np_dtype).is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_dtype.from_numpy_dtype(np_dtype)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length == 1:
        values = np.ones(1, np_dtype)
    else:
        window = _op(op_type, periodic=int(bool(periodic)), output_datatype=np_dtype, **attrs)
        values = window(np.asarray(window_length, np.int64))
    return _made(values, requires_grad, device=device, name=name)


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
    return _window("hann_window", window_length, periodic, dtype, requires_grad, device, "HannWindow")


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Hamming window: ``alpha - beta cos(2 pi n / (N - 1))``; see :func:`hann_window` for the arguments."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, device, "CosineSumWindow",
                   coefficients=(float(alpha), float(beta)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window: ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, device, "BlackmanWindow")


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window: ``1 - |2 n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, device, "BartlettWindow")


def kaiser_window(window_length, periodic=None, beta=None, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """Kaiser window: ``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)`` (``I0``: the modified Bessel function
    of order 0); ``periodic`` defaults to True and ``beta`` to 12 (torch accepts ``beta`` only after ``periodic``)."""
    if beta is not None and periodic is None:
        raise TypeError("kaiser_window() received an invalid combination of arguments - got beta without periodic; "
                        "expected (int window_length, bool periodic, float beta, *, ...)")
    periodic = True if periodic is None else periodic
    beta = 12.0 if beta is None else beta
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, device, "KaiserWindow",
                   beta=float(beta))
