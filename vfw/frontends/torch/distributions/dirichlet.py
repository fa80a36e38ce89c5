"""``Dirichlet`` (distributions on the simplex) and ``Beta`` (its two-category case).

Draws are torch's: float64 gamma draws (see :mod:`.gamma`) normalized in float64.  ``rsample``
is differentiated through those gamma draws, an unbiased reparameterization gradient that differs draw by
draw from torch's (which differentiates the Beta marginals' CDF instead).
"""

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, broadcast_all
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.gamma import standard_gamma
from vfw.frontends.torch.nn import functional as F

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over probability vectors of length ``K``.

    Parameters
    ----------
    concentration : Tensor
        Positive concentrations, shape ``(*batch, K)``.
    validate_args : bool, optional
        Check the concentrations (and ``log_prob``'s values).
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        concentration = self.concentration.expand(self._extended_shape(sample_shape))
        gammas = standard_gamma(concentration.double())  # as torch._sample_dirichlet, in float64
        finfo = torch.finfo(concentration.dtype)
        ratios = (gammas / gammas.sum(-1, keepdim=True)).to(concentration.dtype)
        return ratios.clamp(min=finfo.tiny, max=1 - finfo.eps / 2)  # (the largest value below 1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return torch.xlogy(c - 1.0, value).sum(-1) + torch.lgamma(c.sum(-1)) - torch.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """Tensor: ``(c - 1) / sum(c - 1)``; when every ``c < 1``, the corner of the largest concentration."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        interior = shifted / shifted.sum(-1, True)
        corner = F.one_hot(self.concentration.argmax(-1), self.concentration.shape[-1]).to(interior)
        return torch.where((self.concentration < 1).all(-1, keepdim=True), corner, interior)

    @property
    def variance(self):
        c = self.concentration
        total = c.sum(-1, True)
        return c * (total - c) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (torch.lgamma(c).sum(-1) - torch.lgamma(total) - (k - total) * torch.digamma(total)
                - ((c - 1.0) * torch.digamma(c)).sum(-1))


class Beta(ExponentialFamily):
    """The beta distribution on ``[0, 1]``: the first coordinate of ``Dirichlet([concentration1,
    concentration0])``.

    Parameters
    ----------
    concentration1, concentration0 : float or Tensor
        Positive concentrations (often called alpha and beta).
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, (int, float)) and isinstance(concentration0, (int, float)):
            both = torch.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = torch.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._dirichlet = self._dirichlet.expand(Size(batch_shape))
        return new

    @property
    def concentration1(self):
        """Tensor: the concentration of 1 (alpha)."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """Tensor: the concentration of 0 (beta)."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=EMPTY_SHAPE):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()
