"""Activation modules (ReLU, GELU, PReLU, Softmax...): thin wrappers over ``nn.functional``.

Each module stores its arguments under torch's attribute names and calls the functional
of the same name; ``extra_repr`` prints what torch prints.  The softmax family and GLU
live in ``_activation_softmax``; MultiheadAttention lives in ``attention``.
"""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation
from vfw.frontends.torch.nn.functional import _activation as F
from vfw.frontends.torch.nn.init import constant_
from vfw.frontends.torch.nn.modules._activation_softmax import (  # noqa: F401  (public here)
    GLU,
    LogSoftmax,
    Softmax,
    Softmax2d,
    Softmin,
)
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
           "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _inplace_note(inplace, first=False):
    """torch's repr suffix for ``inplace=True`` (alone when it is the only argument shown)."""
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class _Stateless(Module):
    """An activation without arguments: ``forward`` applies ``function`` (constructor arguments are ignored)."""

    function = None

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return type(self).function(input)


class _InPlace(Module):
    """An activation whose only argument is ``inplace``: ``forward`` applies ``function``."""

    function = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).function(input, inplace=self.inplace)


class Threshold(Module):
    """``value`` where ``input <= threshold``, else ``input``.

    Parameters
    ----------
    threshold, value : float
    inplace : bool

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_note(self.inplace)}"


class ReLU(_InPlace):
    """``max(0, input)``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.relu)

    def extra_repr(self):
        return _inplace_note(self.inplace, first=True)


class RReLU(Module):
    """Randomized leaky ReLU: negative inputs scaled by a slope from ``U(lower, upper)`` in training,
    ``(lower + upper) / 2`` in evaluation.

    Parameters
    ----------
    lower, upper : float
    inplace : bool

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_note(self.inplace)}"


class Hardtanh(Module):
    """``input`` clamped to ``[min_val, max_val]``.

    Parameters
    ----------
    min_val, max_val : float
        ``max_val`` must be greater than ``min_val``.
    inplace : bool
    min_value, max_value : float, optional
        Deprecated names of ``min_val`` / ``max_val`` (FutureWarning).

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warn_for_user("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning)
            min_val = min_value
        if max_value is not None:
            warn_for_user("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_note(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(0, input), 6)``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_note(self.inplace, first=True)


class Sigmoid(_Stateless):
    """``1 / (1 + exp(-input))``. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.sigmoid)


class Tanh(_Stateless):
    """Hyperbolic tangent. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.tanh)


class LogSigmoid(_Stateless):
    """``log(sigmoid(input))``. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.logsigmoid)


class Softsign(_Stateless):
    """``input / (1 + |input|)``. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.softsign)


class Tanhshrink(_Stateless):
    """``input - tanh(input)``. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.tanhshrink)


class Hardsigmoid(_InPlace):
    """``relu6(input + 3) / 6``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.hardsigmoid)


class Hardswish(_InPlace):
    """``input * relu6(input + 3) / 6``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.hardswish)


class SiLU(_InPlace):
    """``input * sigmoid(input)``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.silu)

    def extra_repr(self):
        return _inplace_note(self.inplace, first=True)


class Mish(_InPlace):
    """``input * tanh(softplus(input))``. Parameters: ``inplace`` (bool). Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.mish)

    def extra_repr(self):
        return _inplace_note(self.inplace, first=True)


class SELU(_InPlace):
    """Scaled ELU with torch's self-normalizing constants. Parameters: ``inplace``. Shape: ``(*)`` -> ``(*)``."""

    function = staticmethod(F.selu)

    def extra_repr(self):
        return _inplace_note(self.inplace, first=True)


class ELU(Module):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``.

    Parameters
    ----------
    alpha : float
    inplace : bool

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_note(self.inplace)}"


class CELU(ELU):
    """``max(0, input) + min(0, alpha * (exp(input / alpha) - 1))`` (same arguments as :class:`ELU`)."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    """``input * Phi(input)``.

    Parameters
    ----------
    approximate : str
        ``'none'`` (exact) or ``'tanh'``.

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """``input`` where ``|input| > lambd``, else 0.

    Parameters
    ----------
    lambd : float

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``input -+ lambd`` where ``|input| > lambd``, else 0 (``lambd >= 0``)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """``input`` where positive, else ``negative_slope * input``.

    Parameters
    ----------
    negative_slope : float
    inplace : bool

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_note(self.inplace)}"


class Softplus(Module):
    """``log(1 + exp(beta * input)) / beta``, linear where ``beta * input > threshold``.

    Parameters
    ----------
    beta, threshold : float

    Shape: input ``(*)``, output ``(*)``.
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """``input`` where positive, else ``weight * input`` with a learned slope (one, or one per channel).

    Parameters
    ----------
    num_parameters : int
        1, or the number of channels (dim 1 of the input).
    init : float
        Initial slope.
    device, dtype : optional

    Shape: input ``(*)`` (channels at dim 1 when ``num_parameters > 1``), output ``(*)``.

    Attributes
    ----------
    weight : Parameter
        ``(num_parameters,)``, filled with ``init``.
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Fill the slopes with ``init``."""
        constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"

