"""The base of ``torch.distributions``: shapes, parameter checks, ``sample`` / ``rsample`` and the repr."""

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size

EMPTY_SHAPE = Size()  # the default sample shape: one draw per distribution of the batch


class Distribution:
    """A family of probability distributions with batched parameters.

    Subclasses set ``arg_constraints`` (parameter name -> a check, see :class:`Constraint`), ``support`` and
    ``has_rsample``, and implement ``rsample`` or ``sample``, ``log_prob``, ``entropy``, ``mean``, ``variance``.

    Parameters
    ----------
    batch_shape : torch.Size
        The shape of the batch of independent distributions.
    event_shape : torch.Size
        The shape of one draw of one distribution.
    validate_args : bool, optional
        Check parameters (and the values given to ``log_prob``); default :meth:`set_default_validate_args`'s
        setting (on, as in torch).
    """

    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    support = None
    _validate_default = True

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions created afterwards."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_default = value

    def __init__(self, batch_shape=EMPTY_SHAPE, event_shape=EMPTY_SHAPE, validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        self._validate_args = self._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                if name not in self.__dict__:
                    continue  # given the other way (probs for logits), derived lazily
                value = self.__dict__[name]
                if not constraint.check(value).all():
                    raise ValueError(f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of "
                                     f"distribution {self!r} to satisfy the constraint {constraint!r}, but found "
                                     f"invalid values:\n{value}")

    @property
    def batch_shape(self):
        """torch.Size: the shape of the batch of distributions."""
        return self._batch_shape

    @property
    def event_shape(self):
        """torch.Size: the shape of one draw."""
        return self._event_shape

    @property
    def stddev(self):
        """Tensor: the standard deviation."""
        return self.variance.sqrt()

    def _extended_shape(self, sample_shape=EMPTY_SHAPE):
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=EMPTY_SHAPE):
        """A draw of shape ``sample_shape + batch_shape + event_shape``, without autograd history."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """A reparameterized draw (differentiable in the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    def sample_n(self, n):
        """``sample((n,))``."""
        return self.sample(Size((n,)))

    def perplexity(self):
        """``exp(entropy())``."""
        return torch.exp(self.entropy())

    def _validate_sample(self, value):
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        if not self.support.check(value).all():
            raise ValueError(f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be within the "
                             f"support ({self.support!r}) of the distribution {self!r}, but found invalid values:"
                             f"\n{value}")

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                # torch formats the tensor: a number when 0-d, the tensor when it has one element, else its size
                text = value.item() if value.ndim == 0 else value if value.numel() == 1 else value.size()
                shown.append(f"{name}: {text}")
        return f"{type(self).__name__}({', '.join(shown)})"


class Constraint:
    """A check on values, shown as torch names it (``GreaterThan(lower_bound=0.0)``)."""

    def __init__(self, text, check):
        self._text, self._check = text, check

    def check(self, value):
        """Tensor: per value (per event for simplices), whether it satisfies the constraint."""
        return self._check(value)

    def __repr__(self):
        return self._text


real = Constraint("Real()", lambda v: v == v)
positive = Constraint("GreaterThan(lower_bound=0.0)", lambda v: v > 0)
unit_interval = Constraint("Interval(lower_bound=0.0, upper_bound=1.0)", lambda v: (v >= 0) & (v <= 1))
boolean = Constraint("Boolean()", lambda v: (v == 0) | (v == 1))
simplex = Constraint("Simplex()", lambda v: (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6))


def integer_interval(upper):
    """The integers ``0 .. upper``."""
    return Constraint(f"IntegerInterval(lower_bound=0, upper_bound={upper})",
                      lambda v: (v % 1 == 0) & (v >= 0) & (v <= upper))


def half_open_interval(low, high):
    """``low <= v < high``."""
    return Constraint(f"Interval(lower_bound={low}, upper_bound={high})", lambda v: (low <= v) & (v < high))


def broadcast_all(*values):
    """Parameters as tensors of one shape: numbers become tensors of the default dtype (or of the tensors')."""
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    dtype = tensors[0].dtype if tensors else torch.get_default_dtype()
    converted = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*converted)
