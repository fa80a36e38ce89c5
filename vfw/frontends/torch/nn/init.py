"""torch.nn.init: in-place parameter initializers.

Each initializer draws through the tensor's own random methods (``uniform_``,
``normal_``...) in the order torch does, so with the same seed the weights are torch's.
"""

import math

from vfw.core import autograd
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _linalg_decomp, _random

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation function.

    Parameters
    ----------
    nonlinearity : str
        ``'linear'``, ``'conv*'``, ``'sigmoid'``, ``'tanh'``, ``'relu'``, ``'leaky_relu'`` or ``'selu'``.
    param : float, optional
        The negative slope of ``'leaky_relu'`` (default 0.01).

    Returns
    -------
    float
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with values drawn from U(a, b); returns it."""
    with autograd.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with values drawn from N(mean, std^2); returns it."""
    with autograd.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with N(mean, std^2) values truncated to [a, b]; returns it.

    Drawn by rejection as torch 2.13 draws them (same seed, same numbers): when [a, b] holds more
    than 30% of the distribution, values outside it are redrawn from the normal until none is
    left; otherwise uniform proposals on [a, b] are accepted with probability pdf(x) / pdf(mode).
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warn_for_user("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.")
    with autograd.no_grad():
        if _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std) > 0.3:
            _redraw_outside(tensor, mean, std, a, b, generator)
        else:
            _accept_uniform_proposals(tensor, mean, std, a, b, generator)
    return tensor


def _normal_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_outside(tensor, mean, std, a, b, generator):
    """Normal draws; each round redraws a whole tensor and keeps its values where the last were outside [a, b]."""
    low, high = (tensor.new_tensor(bound).item() for bound in (a, b))  # the bounds in the tensor's precision
    tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (tensor < low) | (tensor > high)
        if not outside.any():
            return
        tensor.copy_(tensor.new_empty(tensor.shape).normal_(mean, std, generator=generator).where(outside, tensor))


def _accept_uniform_proposals(tensor, mean, std, a, b, generator):
    """Uniform proposals on [a, b], each accepted when log(u) <= log(pdf(x) / pdf(mode)) for a fresh uniform u;
    every round draws whole tensors of proposals and of u and updates the places still pending."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(proposals):
        log_ratio = proposals.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return tensor.new_empty(tensor.shape).uniform_(generator=generator).log_() > log_ratio

    tensor.uniform_(a, b, generator=generator)
    pending = rejected(tensor)
    while pending.any():
        proposals = tensor.new_empty(tensor.shape).uniform_(a, b, generator=generator)
        tensor.copy_(proposals.where(pending, tensor))
        pending = rejected(proposals).where(pending, pending)


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``; returns it."""
    with autograd.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill ``tensor`` with ones; returns it."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros; returns it."""
    with autograd.no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix; returns it."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with autograd.no_grad():
        tensor.zero_()
        tensor.fill_diagonal_(1)
    return tensor


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D ``tensor`` with the Dirac delta (convolutions that keep their input); returns it."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    channels = min(out_per_group, tensor.shape[1])
    with autograd.no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in tensor.shape[2:])
        for g in range(groups):
            for d in range(channels):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``; returns ``tensor``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``; returns ``tensor``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def _is_empty(tensor):
    if 0 in tensor.shape:
        warn_for_user("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-b, b) with ``b = gain * sqrt(3 / fan)``; returns ``tensor``.

    Parameters
    ----------
    tensor : Tensor
        At least 2-D.
    a : float
        Negative slope of the rectifier after this layer (for ``'leaky_relu'``).
    mode : str
        ``'fan_in'`` (keeps the forward variance) or ``'fan_out'`` (the backward's).
    nonlinearity : str
        See :func:`calculate_gain`.
    generator : Generator, optional
    """
    if _is_empty(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan)``; returns ``tensor`` (arguments: ``kaiming_uniform_``)."""
    if _is_empty(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (at least 2-D, viewed as rows x rest) with a (semi-)orthogonal matrix; returns it."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flat = flat.t()
    with autograd.no_grad():
        q, r = _linalg_decomp.qr(flat)
        q = q * r.diagonal().sign()  # a unique (Haar-distributed) factorization
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D ``tensor`` with N(0, std^2) values and zero a ``sparsity`` fraction of each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    n_zeros = int(math.ceil(sparsity * rows))
    with autograd.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # The default generator, as torch (``generator`` only draws the values).
            rows_to_zero = _random.randperm(rows)[:n_zeros]
            tensor[rows_to_zero, col] = 0
    return tensor


def _deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def deprecated(*args, **kwargs):
        warn_for_user(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning)
        return fn(*args, **kwargs)

    deprecated.__name__ = old_name
    deprecated.__doc__ = f"Deprecated alias of :func:`{new_name}`."
    return deprecated


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
