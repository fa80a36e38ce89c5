"""Dropout: dropout, dropout1d/2d/3d (whole channels), alpha_dropout and feature_alpha_dropout.

As torch's CPU kernels do: in training a noise tensor of 0/1 values (1 with probability
``1 - p``) is drawn as ``bernoulli_`` draws it from the default generator (so a seed gives
torch's masks, in the memory order of a transposed input too), scaled by ``1 / (1 - p)``, and
multiplied into the input; the gradient is the same noise.  Channel-wise variants draw one
value per (batch, channel).  Alpha dropout keeps the mean and variance of SELU activations:
dropped values go to SELU's negative saturation before an affine correction.  In evaluation,
with ``p == 0`` or an empty input, the input itself is returned.  Under a graph trace the
draw is a PyFunc op (``_traced.replayed``): each run of the graph draws anew from the same
generator, so a traced training step gives the masks the eager steps give.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._dispatch import inplace, scalar_array, type_name
from vfw.frontends.torch._pointwise import _op, _run, tensor_arg
from vfw.frontends.torch._random_draws import bernoulli_scalar
from vfw.frontends.torch._traced import replayed
from vfw.frontends.torch.nn.functional._activation import SELU_ALPHA, SELU_SCALE
from vfw.frontends.torch.random import default_generator

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# SELU's value at -inf (scale * alpha): where alpha dropout sends dropped activations.
_SATURATION = SELU_ALPHA * SELU_SCALE


def check_probability(p):
    """torch's ValueError for a dropout probability outside [0, 1]."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _memory_axes(a):
    """``a``'s axes from the largest stride to the smallest when ``a`` is dense but not C-ordered (a
    permuted layout, which torch's ``empty_like`` keeps), else None."""
    if a.ndim < 2 or a.flags.c_contiguous:
        return None
    axes = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    step = a.itemsize
    for i in reversed(axes):
        if a.shape[i] != 1 and a.strides[i] != step:
            return None
        step *= a.shape[i]
    return axes


def _noise(x, shape, keep):
    """0/1 values of ``x``'s dtype and ``shape``, 1 with probability ``keep`` (torch's draws).

    The draw is ``replayed``: under a graph trace every run of the graph draws anew from the generator.
    """
    a = x.array
    axes = _memory_axes(a) if shape == a.shape else None
    if axes is None:
        return replayed(lambda: bernoulli_scalar(default_generator, shape, keep).astype(a.dtype))
    drawn_shape, order = tuple(shape[i] for i in axes), np.argsort(axes)
    return replayed(lambda: bernoulli_scalar(default_generator, drawn_shape, keep).transpose(order).astype(a.dtype))


def _k(value, x):
    return scalar_array(value, x.array.dtype)


def _drop(input, p, training, in_place, fn, feature=False, alpha=False):
    """torch's dropout kernel: ``input * noise`` (``+ shift`` for alpha dropout), or ``input`` itself."""
    x = tensor_arg(input, fn)
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"{fn}(): argument 'train' (position 3) must be bool, not {type(training).__name__}")
    p = float(p)
    a = x.array
    if p == 0 or not training or a.size == 0:
        return x
    shift = None
    if p == 1:
        noise = _k(0, x)
    else:
        if feature and a.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = _noise(x, a.shape[:2] + (1,) * (a.ndim - 2) if feature else a.shape, 1 - p)
        if a.dtype not in dt.FLOATS:  # torch draws, then cannot scale the noise in the input's dtype
            raise RuntimeError(f"result type Float can't be cast to the desired output type {type_name(a.dtype)}")
        if alpha:
            scale = 1 / math.sqrt((_SATURATION ** 2 * p + 1) * (1 - p))
            # Kept: scale * x + scale * alpha' * p; dropped: -scale * alpha' * (1 - p) (alpha' the saturation).
            drop = _run(_op("Sub"), noise, _k(1, x))
            shift = _run(_op("Add"), _run(_op("Mul"), drop, _k(_SATURATION * scale, x)),
                         _k(_SATURATION * scale * p, x))
            noise = _run(_op("Mul"), noise, _k(scale, x))
        else:
            noise = _run(_op("Div"), noise, _k(1 - p, x))

    def apply(t):
        y = _run(_op("Mul"), t, noise)
        return y if shift is None else _run(_op("Add"), y, shift)

    return inplace(apply, x, name=fn + "_") if in_place else apply(x)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (in training).

    Parameters
    ----------
    input : Tensor
    p : float
        Drop probability in [0, 1].
    training : bool
        Identity when False.
    inplace : bool
        Write the result into ``input``.
    """
    check_probability(p)
    return _drop(input, p, training, inplace, "dropout")


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance (dropped values go to SELU's saturation,
    then an affine map restores the moments). Arguments as :func:`dropout` (``training`` defaults to False)."""
    check_probability(p)
    return _drop(input, p, training, inplace, "alpha_dropout", alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """:func:`alpha_dropout` of whole channels (dim 1); the input needs at least 2 dims."""
    check_probability(p)
    return _drop(input, p, training, inplace, "feature_alpha_dropout", feature=True, alpha=True)


def _channel_dropout(input, p, training, inplace, batched):
    """Channel dropout of a batched input, or of an unbatched one given a batch dim of 1 for the draw."""
    if batched:
        return _drop(input, p, training, inplace, "feature_dropout", feature=True)
    if inplace:
        return _drop(input.unsqueeze_(0), p, training, True, "feature_dropout", feature=True).squeeze_(0)
    return _drop(input.unsqueeze(0), p, training, False, "feature_dropout", feature=True).squeeze(0)


def _channel_note(n):
    spatial = {1: "1 spatial dimension", 2: "2 spatial dimensions", 3: "3 spatial dimensions"}[n]
    return (f"Note that dropout{n}d exists to provide channel-wise dropout on inputs with {spatial}, a channel "
            f"dimension, and an optional batch dimension (i.e. {n + 1}D or {n + 2}D inputs).")


def _deprecated_rank(n, ndim):
    warn_for_user(f"dropout{n}d: Received a {ndim}-D input to dropout{n}d, which is deprecated and will result in an "
                  f"error in a future release. To retain the behavior and silence this warning, please use dropout "
                  f"instead. {_channel_note(n)}")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` inputs with probability ``p`` (others scaled by
    ``1 / (1 - p)``). Arguments as :func:`dropout`."""
    check_probability(p)
    ndim = input.dim()  # a non-tensor raises AttributeError here, as in torch
    if ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {ndim}D input. {_channel_note(1)}")
    return _channel_dropout(input, p, training, inplace, ndim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` inputs with probability ``p`` (others scaled by ``1 / (1 - p)``).

    A 3-D input is read as ``(N, C, L)`` (with torch's warning); other ranks warn as deprecated.
    Arguments as :func:`dropout`.
    """
    check_probability(p)
    ndim = input.dim()  # a non-tensor raises AttributeError here, as in torch
    if ndim not in (3, 4):
        _deprecated_rank(2, ndim)
    if ndim == 3:
        warn_for_user("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.")
    return _channel_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs with probability ``p`` (others
    scaled by ``1 / (1 - p)``); other ranks warn as deprecated. Arguments as :func:`dropout`."""
    check_probability(p)
    ndim = input.dim()  # a non-tensor raises AttributeError here, as in torch
    if ndim not in (4, 5):
        _deprecated_rank(3, ndim)
    return _channel_dropout(input, p, training, inplace, ndim == 5)
