"""``VonMises``: the circular normal distribution, drawn with torch's rejection sampler (Best and Fisher's) on
its float64 uniform draws, so that draws are torch's numbers from the same seed."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all, lazy_property

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4: polynomial approximations of I0 and I1 below 3.75 (in (x / 3.75)^2) and of
# sqrt(x) exp(-x) I0, I1 above (in 3.75 / x); torch evaluates log I0 / log I1 with these
_BESSEL_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
)
_BESSEL_LARGE = (
    (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633,
     0.00392377),
    (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
     -0.00420059),
)


def _polynomial(y, coefficients):
    """``sum c_i y^i`` by Horner's rule, highest coefficient first."""
    result = coefficients[-1]
    for coefficient in reversed(coefficients[:-1]):
        result = coefficient + y * result
    return result


def _log_bessel_i(x, order):
    """``log I_order(x)`` (order 0 or 1) for positive ``x``."""
    small = _polynomial((x / 3.75) ** 2, _BESSEL_SMALL[order])
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _polynomial(3.75 / x, _BESSEL_LARGE[order]).log()
    return torch.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The von Mises distribution on the circle, density ``exp(concentration cos(x - loc)) / (2 pi I0)``.

    Parameters
    ----------
    loc : float or Tensor
        The mean angle (radians).
    concentration : float or Tensor
        The positive concentration.
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).

    Notes
    -----
    ``sample`` runs in float64 and casts to the parameters' dtype, as torch's; there is no ``rsample``.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, EMPTY_SHAPE, validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        kappa = self.concentration
        return kappa * torch.cos(value - self.loc) - math.log(2 * math.pi) - _log_bessel_i(kappa, 0)

    @lazy_property
    def _proposal_r(self):
        """The wrapped-Cauchy envelope's parameter ``r`` (float64; ``1/kappa + kappa`` for tiny ``kappa``)."""
        kappa = self.concentration.double()
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return torch.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Rejection sampling: each round draws 3 uniform blocks of the full shape and sets every entry whose
        proposal it accepts (an earlier acceptance is overwritten, as torch's is), until all have been accepted."""
        with torch.no_grad():
            loc, kappa, r = self.loc.double(), self.concentration.double(), self._proposal_r
            shape = self._extended_shape(sample_shape)
            angle = torch.zeros(shape, dtype=torch.float64)
            done = torch.zeros(shape, dtype=torch.bool)
            while not done.all():
                u1, u2, u3 = torch.rand((3,) + tuple(shape), dtype=torch.float64).unbind()
                z = torch.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
                angle = torch.where(accept, (u3 - 0.5).sign() * f.acos(), angle)
                done = done | accept
            return ((angle + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=self._validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """Tensor: the circular variance ``1 - I1(kappa) / I0(kappa)``."""
        kappa = self.concentration
        return 1 - (_log_bessel_i(kappa, 1) - _log_bessel_i(kappa, 0)).exp()
