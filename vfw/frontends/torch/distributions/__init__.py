"""``torch.distributions``: probability distributions with torch's parameters, shapes, checks, ``log_prob``,
moments, entropies and KL divergences, and torch's own draws where torch's sampler is a transform of its
uniform / normal / exponential / Cauchy draws (``Normal``, ``Uniform``, ``Exponential``, ``Laplace``,
``Cauchy``, ``Gumbel``, ``LogNormal``, ``HalfNormal``, ``MultivariateNormal``, ``Bernoulli``, ``Categorical``,
``OneHotCategorical``, ``Multinomial``, ``Geometric``, the relaxed ones).  Gamma-based families (``Gamma``,
``Chi2``, ``Beta``, ``Dirichlet``, ``StudentT``), ``Poisson``, ``Binomial`` and ``NegativeBinomial`` draw from
their distributions with other numbers."""

from vfw.frontends.torch.distributions import constraints, transforms
from vfw.frontends.torch.distributions.categorical import Bernoulli, Categorical
from vfw.frontends.torch.distributions.dirichlet import Beta, Dirichlet
from vfw.frontends.torch.distributions.discrete import Binomial, Geometric, OneHotCategorical, Poisson
from vfw.frontends.torch.distributions.distribution import Distribution
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.gamma import Chi2, Exponential, Gamma, StudentT
from vfw.frontends.torch.distributions.independent import Independent, MixtureSameFamily
from vfw.frontends.torch.distributions.kl import kl_divergence, register_kl
from vfw.frontends.torch.distributions.location_scale import Cauchy, Laplace
from vfw.frontends.torch.distributions.multinomial import Multinomial
from vfw.frontends.torch.distributions.multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from vfw.frontends.torch.distributions.negative_binomial import NegativeBinomial
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from vfw.frontends.torch.distributions.transformed import (
    Gumbel,
    HalfCauchy,
    HalfNormal,
    LogNormal,
    TransformedDistribution,
)
from vfw.frontends.torch.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
    "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "ExponentialFamily", "Gamma",
    "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal",
    "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
    "OneHotCategorical", "Poisson", "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StickBreakingTransform", "StudentT", "TanhTransform",
    "Transform", "TransformedDistribution", "Uniform", "constraints", "identity_transform", "kl_divergence",
    "register_kl", "transforms",
]
