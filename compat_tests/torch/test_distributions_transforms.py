"""torch.distributions.constraints, transforms, TransformedDistribution, Independent, MixtureSameFamily and the
relaxed distributions against real torch: values, inverses, log |det J| and their gradients, shapes, seeded
draws, reprs and errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

CONSTRAINTS = [
    lambda c, t: c.real, lambda c, t: c.positive, lambda c, t: c.nonnegative, lambda c, t: c.unit_interval,
    lambda c, t: c.boolean, lambda c, t: c.nonnegative_integer, lambda c, t: c.positive_integer,
    lambda c, t: c.simplex, lambda c, t: c.real_vector, lambda c, t: c.interval(-1.0, 0.5),
    lambda c, t: c.half_open_interval(0.0, 1.0), lambda c, t: c.greater_than(0.5), lambda c, t: c.less_than(0.5),
    lambda c, t: c.greater_than_eq(1.0), lambda c, t: c.integer_interval(0, 2), lambda c, t: c.one_hot,
    lambda c, t: c.independent(c.positive, 1), lambda c, t: c.greater_than(t.tensor([0.0, 1.0, 2.0])),
]


@pytest.mark.parametrize("make", CONSTRAINTS)
def test_constraint_checks_and_reprs(make):
    def fn(torch):
        c = make(torch.distributions.constraints, torch)
        values = torch.tensor([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5], [-1.0, 2.0, float("nan")], [1.0, 1.0, 1.0]])
        return repr(c), c.is_discrete, c.event_dim, c.check(values)
    check(fn)


def test_matrix_constraints():
    def fn(torch):
        c = torch.distributions.constraints
        mats = torch.tensor([[[2.0, 0.0], [1.0, 3.0]], [[1.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]],
                             [[-1.0, 0.0], [0.0, 1.0]]])
        return (c.lower_cholesky.check(mats), c.lower_triangular.check(mats), c.positive_definite.check(mats),
                c.symmetric.check(mats), c.square.check(mats), repr(c.lower_cholesky), repr(c.positive_definite),
                c.positive_definite.event_dim, c.dependent.__class__.__name__.strip("_"))
    check(fn)


TRANSFORMS = {  # name -> (make, input dims: x shape; inputs are drawn in (-2, 2))
    "Exp": (lambda T, t, p: T.ExpTransform(), (2, 3)),
    "Sigmoid": (lambda T, t, p: T.SigmoidTransform(), (2, 3)),
    "Tanh": (lambda T, t, p: T.TanhTransform(), (2, 3)),
    "Softplus": (lambda T, t, p: T.SoftplusTransform(), (2, 3)),
    "Power": (lambda T, t, p: T.ComposeTransform([T.ExpTransform(), T.PowerTransform(p.abs() + 0.5)]), (2, 3)),
    "Affine": (lambda T, t, p: T.AffineTransform(p, p - 3.0), (2, 3)),
    "AffineNumbers": (lambda T, t, p: T.AffineTransform(1.0, -2.0), (2, 3)),
    "AffineEvent": (lambda T, t, p: T.AffineTransform(p, p + 3.0, event_dim=1), (2, 3)),
    "StickBreaking": (lambda T, t, p: T.StickBreakingTransform(), (2, 3)),
    "Compose": (lambda T, t, p: T.ComposeTransform([T.AffineTransform(0.5, p + 3.0), T.TanhTransform(),
                                                    T.AffineTransform(1.0, 2.0)]), (2, 3)),
    "ComposeEvent": (lambda T, t, p: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(p, 2.0, event_dim=1)]),
                     (2, 3)),
    "Inverse": (lambda T, t, p: T.ExpTransform().inv.inv, (2, 3)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_values_inverse_jacobian_and_gradients(name):
    make, shape = TRANSFORMS[name]

    def fn(torch, x, p):
        transform = make(torch.distributions.transforms, torch, p)
        y = transform(x)
        return (y, transform.inv(y), transform.log_abs_det_jacobian(x, y), repr(transform.domain),
                repr(transform.codomain), transform.bijective, transform.forward_shape((5, 3)),
                transform.inverse_shape(transform.forward_shape((5, 3))))
    check_grad(fn, *arrays(shape, (3,), seed=1, low=-1.0, high=1.0), rtol=1e-4, atol=1e-5)


def test_transform_reprs_signs_and_equality():
    def fn(torch):
        T = torch.distributions.transforms
        return (repr(T.ExpTransform()), repr(T.ExpTransform().inv), repr(T.AffineTransform(0.0, 1.0)),
                repr(T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()])), T.ExpTransform().sign,
                T.AffineTransform(0.0, -2.0).sign, T.ExpTransform() == T.ExpTransform(),
                T.ExpTransform() == T.SigmoidTransform(), T.ExpTransform().inv == T.ExpTransform().inv,
                T.ExpTransform().inv.inv == T.ExpTransform(), T.SoftmaxTransform().event_dim,
                T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]).sign)
    assert fn(vt) == fn(real)


def test_softmax_transform():
    check(lambda torch, x: (lambda s: (s(x), s.inv(s(x)), repr(s.codomain), s.bijective))(
        torch.distributions.transforms.SoftmaxTransform()), arrays((2, 4), seed=2))


def test_transform_cache():
    for lib in (real, vt):
        exp = lib.distributions.transforms.ExpTransform(cache_size=1)
        x = lib.tensor([0.5, 1.0])
        assert exp.inv(exp(x)) is x


@pytest.mark.parametrize("transforms", [
    lambda T, p: [T.ExpTransform()],
    lambda T, p: T.AffineTransform(p, p.abs() + 0.5),
    lambda T, p: [T.AffineTransform(p, -2.0), T.SigmoidTransform()],
    lambda T, p: [T.TanhTransform(), T.AffineTransform(0.0, 3.0)],
    lambda T, p: [],
])
def test_transformed_distribution(transforms):
    def fn(torch, loc, p):
        torch.manual_seed(9)
        d = torch.distributions.TransformedDistribution(torch.distributions.Normal(loc, 1.0),
                                                        transforms(torch.distributions.transforms, p))
        y = d.rsample((4,))
        return (y, d.sample(), d.log_prob(y.detach()), d.cdf(y.detach()), d.icdf(torch.tensor([0.2, 0.5, 0.7])),
                d.batch_shape, d.event_shape, repr(d.support), d.has_rsample, repr(d), d.expand((2, 3)).sample())
    check_grad(fn, *arrays((3,), (3,), seed=3), rtol=1e-4, atol=1e-5)


def test_transformed_distribution_over_event_dims():
    def fn(torch, loc):
        torch.manual_seed(10)
        T = torch.distributions.transforms
        d = torch.distributions.TransformedDistribution(torch.distributions.Normal(loc, 1.0),
                                                        [T.StickBreakingTransform()])
        y = d.rsample((2,))
        return y, d.log_prob(y.detach()), d.batch_shape, d.event_shape, repr(d.support)
    check_grad(fn, arrays((2, 3), seed=4), rtol=1e-4, atol=1e-5)


def test_independent():
    def fn(torch, loc, scale):
        torch.manual_seed(12)
        base = torch.distributions.Normal(loc, scale.abs() + 0.5)
        d = torch.distributions.Independent(base, 1)
        v = torch.zeros(2, 3)
        return (d.log_prob(v), d.entropy(), d.mean, d.variance, d.rsample((2,)), d.batch_shape, d.event_shape,
                repr(d), repr(d.support), d.has_rsample, d.expand((4, 2)).sample(),
                torch.distributions.Independent(base, 2).log_prob(v))
    check_grad(fn, *arrays((2, 3), (3,), seed=5), rtol=1e-5, atol=1e-5)


def test_independent_errors():
    for lib in (real, vt):
        with pytest.raises(ValueError):
            lib.distributions.Independent(lib.distributions.Normal(lib.zeros(3), 1.0), 2)


@pytest.mark.parametrize("component", ["Normal", "MultivariateNormal"])
def test_mixture_same_family(component):
    def fn(torch, logits, loc):
        torch.manual_seed(13)
        D = torch.distributions
        parts = D.Normal(loc, 1.5) if component == "Normal" else D.Independent(D.Normal(loc.unsqueeze(-1), 1.0), 1)
        d = D.MixtureSameFamily(D.Categorical(logits=logits), parts)
        v = torch.tensor([0.3, -1.0]) if component == "Normal" else torch.tensor([[0.3], [-1.0]])
        out = (d.log_prob(v), d.mean, d.variance, d.sample(), d.sample((3,)), d.batch_shape, d.event_shape,
               repr(d))
        return out + ((d.cdf(v),) if component == "Normal" else ())
    check_grad(fn, *arrays((2, 3), (2, 3), seed=6), rtol=1e-5, atol=1e-5)


def test_mixture_errors():
    for lib in (real, vt):
        D = lib.distributions
        with pytest.raises(ValueError):
            D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(lib.zeros(3), 1.0))
        with pytest.raises(ValueError):
            D.MixtureSameFamily(D.Categorical(logits=lib.zeros(2)), D.Normal(lib.zeros(3), 1.0))


def test_relaxed_bernoulli():
    def fn(torch, logits):
        torch.manual_seed(14)
        d = torch.distributions.RelaxedBernoulli(torch.tensor(0.5), logits=logits)
        y = d.rsample((2,))
        return y, d.sample(), d.log_prob(y.detach()), d.probs, d.batch_shape, repr(d.support), d.temperature
    check_grad(fn, arrays((3,), seed=7), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_relaxed_one_hot_categorical(given):
    def fn(torch, param):
        torch.manual_seed(15)
        param = param.softmax(-1) if given == "probs" else param
        d = torch.distributions.RelaxedOneHotCategorical(torch.tensor(0.7), **{given: param})
        y = d.rsample((2,))
        return y, d.sample(), d.log_prob(y.detach()), d.batch_shape, d.event_shape, repr(d.support)
    check_grad(fn, arrays((2, 4), seed=8), rtol=1e-4, atol=1e-5)


def test_transformed_distribution_errors():
    for lib in (real, vt):
        D = lib.distributions
        with pytest.raises(ValueError):
            D.TransformedDistribution(D.Normal(0.0, 1.0), "exp")
        with pytest.raises(ValueError):
            D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.StickBreakingTransform()])
    assert np.isfinite(vt.distributions.LogNormal(0.0, 1.0).log_prob(vt.tensor(2.0)).item())
