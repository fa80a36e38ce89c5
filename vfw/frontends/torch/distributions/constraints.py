"""``torch.distributions.constraints``: the sets parameters and values must lie in, each with ``check``.

A constraint's ``check(value)`` returns a bool tensor over the batch: one entry per value, or per event for
constraints whose ``event_dim`` is positive (a simplex checks whole vectors, a Cholesky factor whole matrices).
"""

import vfw.frontends.torch as torch

__all__ = [
    "Constraint", "MixtureSameFamilyConstraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "lower_triangular", "multinomial", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer", "positive_semidefinite",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """A region of values; ``is_discrete`` for integer-valued sets, ``event_dim`` the dims one check covers."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Tensor (bool): whether each value (each event when ``event_dim > 0``) satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: it cannot be checked on its own."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=False, event_dim=0):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent (uncheckable) constraint."""
    return isinstance(constraint, _Dependent)


class dependent_property(property, _Dependent):  # noqa: N801  (named as torch's decorator)
    """A property whose value is a constraint computed from the distribution's parameters."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _Elementwise(Constraint):
    """A constraint checked value by value with ``_test(value)``; ``_fields`` name its bounds (and its repr's
    fields).  Each kind is a class, as torch's are: ``isinstance(positive, greater_than)`` holds."""

    _fields = ()

    def __init__(self, *bounds):
        for key, bound in zip(self._fields, bounds):
            setattr(self, key, bound)

    def check(self, value):
        return self._test(value)

    def __repr__(self):
        fields = ", ".join(f"{key}={getattr(self, key)}" for key in self._fields)
        return f"{type(self).__name__.lstrip('_')}({fields})"


def _is_integer(value):
    return value % 1 == 0


class _Real(_Elementwise):
    """Every value but NaN."""

    def _test(self, v):
        return v == v


class _Boolean(_Elementwise):
    """``0`` or ``1``."""

    is_discrete = True

    def _test(self, v):
        return (v == 0) | (v == 1)


class _LowerBounded(_Elementwise):
    """The kinds with a ``lower_bound`` (siblings, not subclasses of one another, as torch's are)."""

    _fields = ("lower_bound",)

    def __init__(self, lower_bound):
        super().__init__(lower_bound)


class _GreaterThan(_LowerBounded):
    """``value > lower_bound``."""

    def _test(self, v):
        return self.lower_bound < v


class _GreaterThanEq(_LowerBounded):
    """``value >= lower_bound``."""

    def _test(self, v):
        return self.lower_bound <= v


class _IntegerGreaterThan(_LowerBounded):
    """The integers ``>= lower_bound``."""

    is_discrete = True

    def _test(self, v):
        return _is_integer(v) & (v >= self.lower_bound)


class _LessThan(_Elementwise):
    """``value < upper_bound``."""

    _fields = ("upper_bound",)

    def __init__(self, upper_bound):
        super().__init__(upper_bound)

    def _test(self, v):
        return v < self.upper_bound


class _TwoBounded(_Elementwise):
    """The kinds with a ``lower_bound`` and an ``upper_bound`` (siblings, as torch's are)."""

    _fields = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        super().__init__(lower_bound, upper_bound)

    def _within(self, v):
        return (self.lower_bound <= v) & (v <= self.upper_bound)


class _Interval(_TwoBounded):
    """``lower_bound <= value <= upper_bound``."""

    def _test(self, v):
        return self._within(v)


class _HalfOpenInterval(_TwoBounded):
    """``lower_bound <= value < upper_bound``."""

    def _test(self, v):
        return (self.lower_bound <= v) & (v < self.upper_bound)


class _IntegerInterval(_TwoBounded):
    """The integers ``lower_bound .. upper_bound``."""

    is_discrete = True

    def _test(self, v):
        return _is_integer(v) & self._within(v)


# the parametrised kinds are their classes, as in torch
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan
interval, half_open_interval, integer_interval = _Interval, _HalfOpenInterval, _IntegerInterval


class _IndependentConstraint(Constraint):
    """``base_constraint`` over the last ``reinterpreted_batch_ndims`` dims as one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return result.reshape(result.shape[:result.dim() - self.reinterpreted_batch_ndims] + (-1,)).all(-1)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Multinomial(Constraint):
    """Count vectors: nonnegative entries summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return torch.full(value.shape[:-2], value.shape[-2] == value.shape[-1], dtype=torch.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not square.all():
            return square
        return torch.isclose(value, value.mT, atol=1e-6).all(-1).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return torch.linalg.cholesky_ex(value).info.eq(0)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not symmetric.all():
            return symmetric
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10
        unit_rows = (torch.linalg.norm(value.detach(), dim=-1) - 1).abs().le(tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _Cat(Constraint):
    """Constraints on consecutive pieces of ``dim`` (``lengths`` long, default 1 each)."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq, self.dim = list(cseq), dim
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)

    def check(self, value):
        pieces, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            pieces.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return torch.cat(pieces, self.dim)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)


class _Stack(Constraint):
    """Constraints on the slices of ``dim``, one each."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = list(cseq), dim

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    def check(self, value):
        return torch.stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim)


class MixtureSameFamilyConstraint(Constraint):
    """A mixture's support: its components' support, checked with the component dim put back in."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint
        self.is_discrete, self.event_dim = base_constraint.is_discrete, base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        kept = value.dim() - self.event_dim
        return result.reshape(result.shape[:kept] + (-1,)).all(-1)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


dependent = _Dependent()
boolean = _Boolean()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
simplex = _Simplex()
one_hot = _OneHot()
multinomial = _Multinomial
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveSemidefinite()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
independent = _IndependentConstraint
cat = _Cat
stack = _Stack
