"""``torch.distributions``: probability distributions with torch's parameters, shapes, checks, ``log_prob``,
moments, entropies and KL divergences, and torch's own draws where torch's sampler is a transform of its
uniform / normal / exponential / Cauchy draws (``Normal``, ``Uniform``, ``Exponential``, ``Laplace``,
``Cauchy``, ``Gumbel``, ``LogNormal``, ``HalfNormal``, ``MultivariateNormal``, ``Bernoulli``, ``Categorical``,
``OneHotCategorical``, ``Multinomial``, ``Geometric``, the relaxed ones).  Gamma-based families (``Gamma``,
``Chi2``, ``Beta``, ``Dirichlet``, ``StudentT``), ``Poisson``, ``Binomial`` and ``NegativeBinomial`` draw from
their distributions with other numbers.  ``biject_to`` / ``transform_to`` map constraints to transforms."""

# kl_more and kl_pairs_more register their KL pairs; the per-family modules are torch's module names (thin re-exports)
from vfw.frontends.torch.distributions import (  # noqa: F401
    bernoulli,
    beta,
    binomial,
    cauchy,
    chi2,
    constraint_registry,
    constraints,
    continuous_bernoulli,
    exp_family,
    exponential,
    fishersnedecor,
    generalized_pareto,
    geometric,
    gumbel,
    half_cauchy,
    half_normal,
    inverse_gamma,
    kl_more,
    kl_pairs_more,
    kumaraswamy,
    laplace,
    lkj_cholesky,
    log_normal,
    logistic_normal,
    lowrank_multivariate_normal,
    mixture_same_family,
    one_hot_categorical,
    pareto,
    poisson,
    relaxed_bernoulli,
    relaxed_categorical,
    studentT,
    transformed_distribution,
    transforms,
    uniform,
    utils,
    weibull,
    wishart,
)
from vfw.frontends.torch.distributions.categorical import Bernoulli, Categorical
from vfw.frontends.torch.distributions.constraint_registry import biject_to, transform_to
from vfw.frontends.torch.distributions.dirichlet import Beta, Dirichlet
from vfw.frontends.torch.distributions.discrete import Binomial, Geometric, OneHotCategorical, Poisson
from vfw.frontends.torch.distributions.distribution import Distribution
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.gamma import Chi2, Exponential, Gamma, StudentT
from vfw.frontends.torch.distributions.heavy_tailed import (
    FisherSnedecor,
    GeneralizedPareto,
    InverseGamma,
    Pareto,
    Weibull,
)
from vfw.frontends.torch.distributions.independent import Independent, MixtureSameFamily
from vfw.frontends.torch.distributions.kl import kl_divergence, register_kl
from vfw.frontends.torch.distributions.location_scale import Cauchy, Laplace
from vfw.frontends.torch.distributions.matrix_families import LKJCholesky, Wishart
from vfw.frontends.torch.distributions.multinomial import Multinomial
from vfw.frontends.torch.distributions.multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from vfw.frontends.torch.distributions.negative_binomial import NegativeBinomial
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from vfw.frontends.torch.distributions.straight_through import OneHotCategoricalStraightThrough
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
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from vfw.frontends.torch.distributions.unit_interval import ContinuousBernoulli, Kumaraswamy, LogisticNormal
from vfw.frontends.torch.distributions.von_mises import VonMises

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "CatTransform", "Categorical", "Cauchy",
    "Chi2", "ComposeTransform", "ContinuousBernoulli", "CorrCholeskyTransform", "CumulativeDistributionTransform",
    "Dirichlet", "Distribution", "ExpTransform", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma",
    "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "IndependentTransform",
    "InverseGamma", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
    "LowRankMultivariateNormal", "LowerCholeskyTransform", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
    "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto", "Poisson",
    "PositiveDefiniteTransform", "PowerTransform", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
    "StickBreakingTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "Uniform",
    "VonMises", "Weibull", "Wishart", "biject_to", "constraint_registry", "constraints", "identity_transform",
    "kl_divergence", "register_kl", "transform_to", "transforms",
]
