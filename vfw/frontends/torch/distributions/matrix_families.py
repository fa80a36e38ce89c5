"""Distributions over matrices: ``LKJCholesky`` (Cholesky factors of correlation matrices) and ``Wishart``
(positive definite matrices).  Both draw torch's numbers from the same seed: their beta / chi-squared draws
replay torch's gamma sampler and the rest are torch's normal draws."""

import math

import vfw.frontends.torch as torch
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.dirichlet import Beta
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, lazy_property
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.gamma import Chi2
from vfw.frontends.torch.distributions.multivariate_normal import _scale_tril_of_precision
from vfw.frontends.torch.distributions.transforms_structured import _vector_to_strict_tril

_LOG_2 = math.log(2)
_MAX_REDRAWS = 10  # torch's rounds of redrawing in Wishart.rsample


class LKJCholesky(Distribution):
    """The LKJ distribution over Cholesky factors of ``dim x dim`` correlation matrices, density proportional
    to ``det(L L^T) ^ (concentration - 1)``, drawn by torch's onion method.

    Parameters
    ----------
    dim : int
        The matrices' size (at least 2).
    concentration : float or Tensor
        The positive shape ``eta`` (1: uniform over correlation matrices).
    validate_args : bool, optional
        Check ``concentration > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = torch.broadcast_tensors(torch.as_tensor(
            concentration, dtype=concentration.dtype if isinstance(concentration, torch.Tensor)
            else torch.get_default_dtype()))
        # row i's squared norm below the diagonal is Beta(i / 2, eta + (dim - 2) / 2 - i / 2) (row 0 unused)
        offset = torch.arange(dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([offset.new_zeros((1,)), offset])
        marginal = self.concentration + 0.5 * (dim - 2)
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._beta = self._beta.expand(Size(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Rows ``sqrt(y_i) u_i`` with ``y_i`` the beta draws and ``u_i`` normal draws normalized to the unit
        sphere (strict lower triangle), completed to unit norm by the diagonal."""
        with torch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            normal = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            direction = normal / normal.norm(dim=-1, keepdim=True)
            first_row = torch.arange(self.dim) == 0
            direction = torch.where(first_row.unsqueeze(-1), 0.0, direction)  # row 0 has no strict part (0 / 0)
            w = torch.sqrt(y) * direction
            diagonal = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=torch.finfo(w.dtype).tiny).sqrt()
            return w + torch.diag_embed(diagonal)

    def log_prob(self, value):
        """``sum_i (2 (eta - 1) + dim - i) log L_ii`` (rows ``i = 2 .. dim``) minus the log normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - torch.arange(2, self.dim + 1)
        unnormalized = torch.sum(order * diagonal.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normalizer = 0.5 * dm1 * math.log(math.pi) + torch.mvlgamma(alpha - 0.5, dm1) - torch.lgamma(alpha) * dm1
        return unnormalized - log_normalizer


def _multivariate_digamma(x, p):
    """``sum_{i < p} digamma(x - i / 2)``."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return torch.digamma(x.unsqueeze(-1) - torch.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over ``p x p`` positive definite matrices with ``df`` degrees of freedom and
    scale matrix ``covariance_matrix`` (or its ``precision_matrix`` or ``scale_tril``), drawn by Bartlett's
    decomposition.

    Parameters
    ----------
    df : float or Tensor
        Degrees of freedom, greater than ``p - 1``.
    covariance_matrix, precision_matrix, scale_tril : Tensor, optional
        The scale matrix, its inverse or its Cholesky factor, shape ``(*batch, p, p)`` (exactly one).
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).

    Notes
    -----
    ``rsample`` replays torch's, which redraws the samples its singularity check *accepts* (and warns
    "Singular sample detected."), so that the numbers are torch's.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, torch.Tensor):
            batch_shape = torch.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        else:
            batch_shape = Size(param.shape[:-2])
            self.df = torch.tensor(df, dtype=param.dtype)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if self.df.le(p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = Size(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = param.expand(full)
            self._unbroadcasted_scale_tril = _scale_tril_of_precision(precision_matrix)
        if self.df.lt(p).any():
            warn_for_user("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.")
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._set_chi2()

    def _set_chi2(self):
        """The diagonal of Bartlett's factor: ``sqrt(chi2(df - i))`` for ``i = 0 .. p-1``."""
        p = self._event_shape[-1]
        steps = torch.arange(p, dtype=self._unbroadcasted_scale_tril.dtype).expand(self._batch_shape + (-1,))
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        matrix_shape = batch_shape + self._event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(matrix_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        new._set_chi2()
        return new

    @lazy_property
    def scale_tril(self):
        """Tensor: the Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        """Tensor: the scale matrix."""
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        """Tensor: the inverse of the scale matrix."""
        identity = torch.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return torch.cholesky_solve(identity, self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape)

    def _df_matrix(self, df):
        return df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        return self._df_matrix(torch.where(factor <= 0, math.nan, factor)) * self.covariance_matrix

    @property
    def variance(self):
        cov = self.covariance_matrix
        diagonal = cov.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix(self.df) * (cov.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett(self, sample_shape):
        """``(L A)(L A)^T`` with ``A`` lower triangular: ``sqrt(chi2)`` draws on the diagonal, normal draws below."""
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        chi = chi.clamp(min=torch.finfo(chi.dtype).eps)
        below = torch.randn(Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,), dtype=chi.dtype)
        factor = self._unbroadcasted_scale_tril @ (torch.diag_embed(chi) + _vector_to_strict_tril(below))
        return factor @ factor.transpose(-2, -1)

    def _flagged(self, sample):
        """Per draw (over the batch dims): whether the positive definiteness check passes anywhere."""
        passed = self.support.check(sample)
        return passed.reshape(passed.shape[:passed.dim() - len(self._batch_shape)] + (-1,)).any(-1)

    def rsample(self, sample_shape=EMPTY_SHAPE, max_try_correction=None):
        """Bartlett draws; the draws torch's check flags (those it finds positive definite) are drawn again,
        up to ``max_try_correction`` (10) rounds, each round redrawing the ones the last left flagged."""
        rounds = _MAX_REDRAWS if max_try_correction is None else max_try_correction
        sample_shape = Size(sample_shape)
        sample = self._bartlett(sample_shape)
        flagged = self._flagged(sample).reshape(-1)
        if not flagged.any():
            return sample
        warn_for_user("Singular sample detected.")
        rows = sample.reshape((-1,) + tuple(self._batch_shape + self._event_shape))
        for _ in range(rounds):
            positions = flagged.nonzero().reshape(-1)
            redrawn = self._bartlett(Size((positions.numel(),)))
            # row i reads its redraw (after the old rows) where flagged, else itself
            source = torch.arange(rows.shape[0])
            source[positions] = rows.shape[0] + torch.arange(positions.numel())
            rows = torch.cat([rows, redrawn]).index_select(0, source)
            still = ~self._flagged(redrawn)
            flagged = flagged.clone()
            flagged[positions] = still
            if not flagged.any():
                break
        return rows.reshape(sample.shape)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        tril = self._unbroadcasted_scale_tril
        log_det_scale = tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = torch.cholesky_solve(value, tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + log_det_scale) - torch.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * torch.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        log_det_scale = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + log_det_scale) + torch.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _multivariate_digamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        shifted = y + (p + 1) / 2
        return shifted * (-torch.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + torch.mvlgamma(shifted, p=p)
