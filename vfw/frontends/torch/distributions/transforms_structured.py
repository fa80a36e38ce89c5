"""Transforms that act on pieces, shapes or matrices: ``CatTransform``, ``StackTransform``,
``ReshapeTransform``, ``IndependentTransform``, ``LowerCholeskyTransform``, ``PositiveDefiniteTransform``,
``CorrCholeskyTransform`` and ``CumulativeDistributionTransform``."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.transform_base import Transform, sum_rightmost
from vfw.frontends.torch.nn import functional as F


def _check_pieces(name, value, dim, expected, what):
    """torch's AssertionError when ``dim`` is not a dim of ``value`` or its size there is not ``expected``."""
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {value.dim()} dimensions")
    if value.size(dim) != expected:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {what} {expected}")


def _check_transforms(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the ``i``-th piece (``lengths[i]`` long, default 1) of ``dim`` and concatenates.

    Parameters
    ----------
    tseq : list of Transform
        One transform per piece.
    dim : int
        The dim cut into pieces.
    lengths : list of int, optional
        The pieces' lengths.
    cache_size : int
        0 or 1 (see :class:`Transform`).
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        """int: the size of ``dim`` the transform expects."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else CatTransform(self.transforms, self.dim, self.lengths,
                                                                         cache_size)

    def _pieces(self, value, name):
        _check_pieces(name, value, self.dim, self.length, "length")
        starts = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        return [value.narrow(self.dim, start, length) for start, length in zip(starts, self.lengths)]

    def _call(self, x):
        return torch.cat([t(piece) for t, piece in zip(self.transforms, self._pieces(x, "x"))], dim=self.dim)

    def _inverse_call(self, y):
        return torch.cat([t.inv(piece) for t, piece in zip(self.transforms, self._pieces(y, "y"))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [sum_rightmost(t.log_abs_det_jacobian(xp, yp), self.event_dim - t.event_dim)
                 for t, xp, yp in zip(self.transforms, self._pieces(x, "x"), self._pieces(y, "y"))]
        # the cut dim survives in the Jacobian term unless it is one of the event dims (then pieces add up)
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return torch.cat(terms, dim=dim) if dim < 0 else sum(terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to the ``i``-th slice of ``dim`` and stacks the results.

    Parameters
    ----------
    tseq : list of Transform
        One transform per slice.
    dim : int
        The dim sliced.
    cache_size : int
        0 or 1 (see :class:`Transform`).
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value, name):
        _check_pieces(name, value, self.dim, len(self.transforms), "len(transforms)")
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _call(self, x):
        return torch.stack([t(s) for t, s in zip(self.transforms, self._slices(x, "x"))], dim=self.dim)

    def _inverse_call(self, y):
        return torch.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y, "y"))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return torch.stack([t.log_abs_det_jacobian(xs, ys)
                            for t, xs, ys in zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))],
                           dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (a volume-preserving bijection).

    Parameters
    ----------
    in_shape, out_shape : torch.Size
        The event shapes before and after; same number of elements.
    cache_size : int
        0 or 1 (see :class:`Transform`).
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ReshapeTransform(self.in_shape, self.out_shape,
                                                                             cache_size=cache_size)

    def _call(self, x):
        return x.reshape(x.shape[:x.dim() - len(self.in_shape)] + self.out_shape)

    def _inverse_call(self, y):
        return y.reshape(y.shape[:y.dim() - len(self.out_shape)] + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    @staticmethod
    def _swap_event(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {Size(shape[cut:])} but got {old}")
        return Size(shape[:cut]) + new

    def forward_shape(self, shape):
        return self._swap_event(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_event(shape, self.out_shape, self.in_shape)


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dims taken as the event (its
    log |det Jacobian| summed over them).

    Parameters
    ----------
    base_transform : Transform
        The transform applied.
    reinterpreted_batch_ndims : int
        How many extra rightmost dims form the event.
    cache_size : int
        0 or 1 (see :class:`Transform`).
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse_call(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with positive diagonal: the strict lower triangle kept, the
    diagonal exponentiated (not bijective: the upper triangle is dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse_call(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones: ``L L^T`` of their :class:`LowerCholeskyTransform`."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse_call(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


def _strict_lower_positions(n):
    """Row-major flat positions of the strict lower triangle of an ``n x n`` matrix."""
    rows, cols = torch.tril_indices(n, n, offset=-1)
    return rows * n + cols


def _tril_to_vector(matrix, diag):
    """The lower triangle (below diagonal ``diag`` included, ``diag <= 0``) of each matrix, row by row."""
    n = matrix.shape[-1]
    rows, cols = torch.tril_indices(n, n, offset=diag)
    return matrix.reshape(matrix.shape[:-2] + (n * n,)).index_select(-1, rows * n + cols)


def _vector_to_strict_tril(vector):
    """``n x n`` matrices with ``vector`` (length ``n (n - 1) / 2``) in the strict lower triangle, row by row."""
    n = round((0.25 + 2 * vector.shape[-1]) ** 0.5 + 0.5)
    # every flat position reads its entry from the vector with a 0 in front (positions above the diagonal read it)
    source = torch.zeros(n * n, dtype=torch.int64)
    source[_strict_lower_positions(n)] = torch.arange(1, vector.shape[-1] + 1)
    padded = F.pad(vector, [1, 0], value=0.0)
    return padded.index_select(-1, source).reshape(vector.shape[:-1] + (n, n))


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length ``D (D - 1) / 2`` to Cholesky factors of ``D x D`` correlation matrices:
    ``tanh`` maps each entry into ``(-1, 1)``, then each row is scaled by stick breaking so that it has unit
    norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = torch.finfo(x.dtype).eps
        r = _vector_to_strict_tril(torch.tanh(x).clamp(min=-1 + eps, max=1 - eps))
        left = (1 - r ** 2).sqrt().cumprod(-1)  # the stick left after each entry of a row
        r = r + torch.eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(left[..., :-1], [1, 0], value=1)

    def _inverse_call(self, y):
        left = 1 - torch.cumsum(y * y, dim=-1)
        left_before = F.pad(left[..., :-1], [1, 0], value=1)
        t = _tril_to_vector(y, -1) / _tril_to_vector(left_before, -1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y):
        left = 1 - (y * y).cumsum(dim=-1)
        stick_breaking = 0.5 * _tril_to_vector(left, -2).log().sum(-1)
        tanh_term = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking + tanh_term

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return Size(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return Size(shape[:-2]) + (d * (d - 1) // 2,)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: maps the distribution's support onto the unit interval (a copula's
    marginals); log |det Jacobian| is the log density.

    Parameters
    ----------
    distribution : Distribution
        A distribution with ``cdf``, ``icdf`` and ``log_prob``.
    cache_size : int
        0 or 1 (see :class:`Transform`).
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse_call(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
