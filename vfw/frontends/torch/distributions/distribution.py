"""The base of ``torch.distributions``: shapes, parameter and value checks, ``sample`` / ``rsample``, ``expand``
and the repr."""

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["Distribution"]

EMPTY_SHAPE = Size()  # the default sample shape: one draw per distribution of the batch


class Distribution:
    """A family of probability distributions with batched parameters.

    Subclasses set ``arg_constraints`` (parameter name -> constraint), ``support`` and ``has_rsample``, and
    implement ``rsample`` or ``sample``, ``log_prob``, ``entropy``, ``mean``, ``variance``.

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
    _expanded_extras = ()  # tensor attributes besides the parameters that ``expand`` broadcasts

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
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked on its own
                if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                    continue  # given the other way (probs for logits), derived only when used
                value = getattr(self, name)
                if not constraint.check(value).all():
                    raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        """torch.Size: the shape of the batch of distributions."""
        return self._batch_shape

    @property
    def event_shape(self):
        """torch.Size: the shape of one draw."""
        return self._event_shape

    @property
    def mean(self):
        """Tensor: the mean."""
        raise NotImplementedError

    @property
    def mode(self):
        """Tensor: the mode."""
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        """Tensor: the variance."""
        raise NotImplementedError

    @property
    def stddev(self):
        """Tensor: the standard deviation."""
        return self.variance.sqrt()

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with its parameters broadcast to ``batch_shape`` (no copy).

        Parameters
        ----------
        batch_shape : tuple of int
            The new batch shape; the current one must broadcast to it.
        """
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        names = set(self.arg_constraints) | {"_param"} | set(self._expanded_extras)
        for name in names & set(self.__dict__):
            value = self.__dict__[name]
            if isinstance(value, torch.Tensor):
                new.__dict__[name] = value.expand(batch_shape + value.shape[len(self._batch_shape):])
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

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

    def log_prob(self, value):
        """Tensor: the log density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """Tensor: ``P(X <= value)``."""
        raise NotImplementedError

    def icdf(self, value):
        """Tensor: the quantile function at ``value``."""
        raise NotImplementedError

    def entropy(self):
        """Tensor: the entropy, over the batch."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Tensor: every value of a discrete distribution along dim 0."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return torch.exp(self.entropy())

    def _validate_sample(self, value):
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for have, want in zip(reversed(value.size()), reversed(expected)):
            if have != 1 and want != 1 and have != want:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {value.size()} vs "
                                 f"{expected}.")
        support = self.support
        if not support.check(value).all():
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def __repr__(self):
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                # torch formats the tensor: a number when 0-d, the tensor when it has one element, else its size
                text = value.item() if value.ndim == 0 else value if value.numel() == 1 else value.size()
                shown.append(f"{name}: {text}")
        return f"{type(self).__name__}({', '.join(shown)})"


def broadcast_all(*values):
    """Parameters as tensors of one shape: numbers become tensors of the default dtype (or of the tensors')."""
    tensors = [v for v in values if isinstance(v, torch.Tensor)]
    for v in values:
        if not isinstance(v, (torch.Tensor, int, float)):
            raise ValueError(f"Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                             f"implementing __torch_function__, got {type(v).__name__}.")
    dtype = tensors[0].dtype if tensors else torch.get_default_dtype()
    converted = [v if isinstance(v, torch.Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*converted)


class lazy_property:  # noqa: N801  (used as a decorator, like property)
    """A parameter computed from the other one on first use, then kept in the instance's ``__dict__`` (where
    the repr finds it, as torch's lists the parameters computed so far)."""

    def __init__(self, compute):
        self._compute, self.__doc__ = compute, compute.__doc__

    def __get__(self, instance, owner):
        if instance is None:
            return self
        value = instance.__dict__[self._compute.__name__] = self._compute(instance)
        return value


def clamp_probs(probs):
    """Probabilities kept in ``[eps, 1 - eps]`` so that their logarithms are finite."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Log-odds (``is_binary``) or log probabilities of clamped ``probs``."""
    clamped = clamp_probs(probs)
    return torch.log(clamped) - torch.log1p(-clamped) if is_binary else torch.log(clamped)


def logits_to_probs(logits, is_binary=False):
    """``sigmoid(logits)`` (``is_binary``) or ``softmax`` over the last dim."""
    return torch.sigmoid(logits) if is_binary else torch.softmax(logits, dim=-1)


def one_param(probs, logits):
    """Check that exactly one of ``probs`` / ``logits`` is given, as torch does."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
