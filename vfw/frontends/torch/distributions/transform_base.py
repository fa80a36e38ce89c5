"""The base of ``torch.distributions.transforms``: ``Transform``, its inverse and ``ComposeTransform``.

A transform maps ``x`` (in ``domain``) to ``y`` (in ``codomain``); ``inv`` maps back, and
``log_abs_det_jacobian(x, y)`` gives ``log |dy/dx|`` summed over the transform's ``event_dim`` rightmost dims.
"""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints


def sum_rightmost(value, dims):
    """``value`` summed over its ``dims`` rightmost dims (``value`` itself when ``dims`` is 0)."""
    if dims == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dims] + (-1,)).sum(-1)


class Transform:
    """An invertible (or at least forward-computable) map between constrained spaces.

    Parameters
    ----------
    cache_size : int
        0: no cache; 1: remember the last ``(x, y)`` pair, so that ``inv(self(x))`` returns ``x`` itself.
    """

    bijective = False
    domain = constraints.real
    codomain = constraints.real
    sign = 1

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None
        self._inverse = None

    @property
    def event_dim(self):
        """int: the number of rightmost dims that form one event (those of the domain and codomain agree)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """Transform: the inverse map (``inv.inv`` is this transform)."""
        if self._inverse is None:
            self._inverse = _InverseTransform(self)
        return self._inverse

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        if self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse_call(y)
        if self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse_call(y)
        self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse_call(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """Tensor: ``log |dy/dx|`` for ``y = self(x)``."""
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of ``self(x)`` for ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The shape of ``inv(y)`` for ``y`` of ``shape``."""
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: forward and inverse swapped."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inverse = transform

    @property
    def domain(self):
        return self._inverse.codomain

    @property
    def codomain(self):
        return self._inverse.domain

    @property
    def bijective(self):
        return self._inverse.bijective

    @property
    def sign(self):
        return self._inverse.sign

    @property
    def inv(self):
        return self._inverse

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inverse == other._inverse

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._inverse._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inverse.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inverse.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inverse.forward_shape(shape)

    def __repr__(self):
        return f"_InverseTransform({self._inverse!r})"


class ComposeTransform(Transform):
    """``parts`` applied in order (an empty list is the identity)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim  # the event dims the whole chain needs at its input
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        return constraints.independent(domain, event_dim - domain.event_dim) if event_dim > domain.event_dim \
            else domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        return constraints.independent(codomain, event_dim - codomain.event_dim) \
            if event_dim > codomain.event_dim else codomain

    @property
    def bijective(self):
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        if self._inverse is None:
            self._inverse = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inverse._inverse = self
        return self._inverse

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = 0.0
        event_dim = self.domain.event_dim
        for part, here, there in zip(self.parts, xs[:-1], xs[1:]):
            total = total + sum_rightmost(part.log_abs_det_jacobian(here, there), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(part) for part in self.parts) + "\n)"


identity_transform = ComposeTransform([])
