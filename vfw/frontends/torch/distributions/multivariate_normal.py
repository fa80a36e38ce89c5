"""``MultivariateNormal``, parameterized by a covariance, a precision or a lower Cholesky factor."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, lazy_property

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["MultivariateNormal"]


def _scale_tril_of_precision(precision):
    """The lower Cholesky factor ``L`` of ``precision^-1`` without forming the inverse: with ``J`` the reversal
    permutation and ``chol(J P J) = R``, ``P^-1 = (J R^-T J)(J R^-T J)^T`` and ``J R^-T J`` is lower triangular."""
    flipped = torch.linalg.cholesky(torch.flip(precision, (-2, -1)))
    eye = torch.eye(precision.shape[-1], dtype=precision.dtype)
    inverse = torch.linalg.solve_triangular(flipped, eye.expand(flipped.shape), upper=False)
    return torch.flip(inverse.mT, (-2, -1))


def _mahalanobis(scale_tril, diff):
    """``|L^-1 diff|^2`` over the last dim, broadcasting the batch dims of ``L`` and ``diff``."""
    batch = torch.broadcast_shapes(scale_tril.shape[:-2], diff.shape[:-1])
    n = diff.shape[-1]
    solved = torch.linalg.solve_triangular(scale_tril.expand(batch + (n, n)), diff.expand(batch + (n,)).unsqueeze(-1),
                                           upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """The normal distribution over vectors: ``loc + L z`` for standard normal ``z``.

    Parameters
    ----------
    loc : Tensor
        Mean, shape ``(*batch, n)``.
    covariance_matrix, precision_matrix, scale_tril : Tensor, optional
        Exactly one: the covariance, its inverse, or the covariance's lower Cholesky factor (positive
        diagonal), shape ``(*batch, n, n)``.
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: matrix for name, matrix in (("covariance_matrix", covariance_matrix),
                                                   ("precision_matrix", precision_matrix),
                                                   ("scale_tril", scale_tril)) if matrix is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            described = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{described} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = torch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        self.__dict__[name] = matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _scale_tril_of_precision(matrix)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(batch_shape + self._event_shape * 2)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        """Tensor: the covariance's lower Cholesky factor."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """Tensor: ``L L^T``."""
        tril = self._unbroadcasted_scale_tril
        return torch.matmul(tril, tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """Tensor: the inverse covariance."""
        return torch.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``loc + L eps`` with ``eps`` from torch's ``normal_`` draws."""
        eps = torch.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).normal_()
        return self.loc + torch.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        distance = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + distance) - self._half_log_det()

    def entropy(self):
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)


class LowRankMultivariateNormal(Distribution):
    """The normal distribution over vectors with covariance ``W W^T + diag(d)`` (``W`` of rank ``m``, usually
    ``m << n``): densities through the Woodbury identity and the ``m x m`` capacitance ``I + W^T diag(d)^-1 W``.

    Parameters
    ----------
    loc : Tensor
        Mean, shape ``(*batch, n)``.
    cov_factor : Tensor
        ``W``, shape ``(*batch, n, m)``.
    cov_diag : Tensor
        ``d`` (positive), shape ``(*batch, n)``.
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_column, self.cov_factor, diag_column = torch.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                           cov_diag.unsqueeze(-1))
        self.loc, self.cov_diag = loc_column[..., 0], diag_column[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = self._capacitance(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    @staticmethod
    def _capacitance(factor, diag):
        """The Cholesky factor of ``I + W^T diag(d)^-1 W``."""
        scaled = factor.mT / diag.unsqueeze(-2)
        capacitance = torch.matmul(scaled, factor) + torch.eye(factor.shape[-1], dtype=factor.dtype)
        return torch.linalg.cholesky(capacitance)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self)) if _instance is None else _instance
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self._event_shape)
        new.cov_diag = self.cov_diag.expand(batch_shape + self._event_shape)
        new.cov_factor = self.cov_factor.expand(batch_shape + self.cov_factor.shape[-2:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """Tensor: the covariance's diagonal."""
        factor = self._unbroadcasted_cov_factor
        return (factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        """Tensor: the covariance's lower Cholesky factor, ``sqrt(d) chol(I + (W / sqrt d)(W / sqrt d)^T)``."""
        root = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        whitened = self._unbroadcasted_cov_factor / root
        inner = torch.matmul(whitened, whitened.mT) + torch.eye(self._event_shape[0], dtype=whitened.dtype)
        return (root * torch.linalg.cholesky(inner)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """Tensor: ``W W^T + diag(d)``."""
        factor = self._unbroadcasted_cov_factor
        covariance = torch.matmul(factor, factor.mT) + torch.diag_embed(self._unbroadcasted_cov_diag)
        return covariance.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """Tensor: by Woodbury, ``diag(1/d) - A^T A`` with ``A = C^-1 W^T diag(1/d)``, ``C`` the capacitance
        factor."""
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        batch = torch.broadcast_shapes(factor.shape[:-2], self._capacitance_tril.shape[:-2])
        m, n = factor.shape[-1], factor.shape[-2]
        scaled = (factor.mT / diag.unsqueeze(-2)).expand(batch + (m, n))
        a = torch.linalg.solve_triangular(self._capacitance_tril.expand(batch + (m, m)), scaled, upper=False)
        return (torch.diag_embed(diag.reciprocal()) - torch.matmul(a.mT, a)).expand(self._matrix_shape())

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``loc + W e1 + sqrt(d) e2`` with ``e1`` (``m`` long) then ``e2`` from torch's ``normal_`` draws."""
        shape = self._extended_shape(sample_shape)
        factor = self._unbroadcasted_cov_factor
        eps_factor = torch.empty(shape[:-1] + factor.shape[-1:], dtype=self.loc.dtype).normal_()
        eps_diag = torch.empty(shape, dtype=self.loc.dtype).normal_()
        return (self.loc + torch.matmul(factor, eps_factor.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_diag)

    def _log_det(self):
        """``log det(W W^T + diag d) = 2 sum log diag C + sum log d`` (the matrix determinant lemma)."""
        capacitance_log_det = 2 * self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return capacitance_log_det + self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        projected = torch.matmul((factor.mT / diag.unsqueeze(-2)), diff.unsqueeze(-1)).squeeze(-1)
        distance = (diff.pow(2) / diag).sum(-1) - _mahalanobis(self._capacitance_tril, projected)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + distance)

    def entropy(self):
        entropy = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)
