"""Activation functionals and modules against real torch: values, gradients (kinks included), dtypes,
in-place variants, random slopes of rrelu, the softmax family's legacy ``dim=None``, errors and reprs."""

import math
import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, assert_same, check, check_grad, real, to_numpy
from compat_tests.torch.nn.harness import LIBS, check_init, check_module, check_repr

# Inputs hitting the kinks torch defines gradients at: 0, +-lambda 0.5, +-1, +-3 and 6.
KINKS = np.array([-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, -7.5, 0.25, 20.0], np.float32)
SPECIAL = np.array([math.nan, math.inf, -math.inf, 1.5, -1.5, 0.0], np.float32)


def _inputs(dtype):
    return [KINKS.astype(dtype), arrays((2, 3, 4), dtype=dtype, seed=1, low=-4, high=4),
            np.asarray(-0.75, dtype)]


def F(lib):
    return lib.nn.functional


# (name, fn(lib, x)) for every differentiable float activation.
FUNCTIONALS = [
    ("relu", lambda lib, x: F(lib).relu(x)),
    ("relu6", lambda lib, x: F(lib).relu6(x)),
    ("hardtanh", lambda lib, x: F(lib).hardtanh(x)),
    ("hardtanh_range", lambda lib, x: F(lib).hardtanh(x, -3.0, 0.5)),
    ("threshold", lambda lib, x: F(lib).threshold(x, 0.5, -2.0)),
    ("elu", lambda lib, x: F(lib).elu(x)),
    ("elu_alpha", lambda lib, x: F(lib).elu(x, alpha=0.3)),
    ("selu", lambda lib, x: F(lib).selu(x)),
    ("celu", lambda lib, x: F(lib).celu(x)),
    ("celu_alpha", lambda lib, x: F(lib).celu(x, 2.5)),
    ("leaky_relu", lambda lib, x: F(lib).leaky_relu(x)),
    ("leaky_relu_slope", lambda lib, x: F(lib).leaky_relu(x, 0.2)),
    ("leaky_relu_steep", lambda lib, x: F(lib).leaky_relu(x, negative_slope=2.0)),
    ("rrelu_eval", lambda lib, x: F(lib).rrelu(x, 0.1, 0.3)),
    ("gelu", lambda lib, x: F(lib).gelu(x)),
    ("gelu_tanh", lambda lib, x: F(lib).gelu(x, approximate="tanh")),
    ("silu", lambda lib, x: F(lib).silu(x)),
    ("mish", lambda lib, x: F(lib).mish(x)),
    ("hardswish", lambda lib, x: F(lib).hardswish(x)),
    ("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x)),
    ("logsigmoid", lambda lib, x: F(lib).logsigmoid(x)),
    ("hardshrink", lambda lib, x: F(lib).hardshrink(x)),
    ("hardshrink_lambd", lambda lib, x: F(lib).hardshrink(x, lambd=1.0)),
    ("softshrink", lambda lib, x: F(lib).softshrink(x)),
    ("softshrink_lambd", lambda lib, x: F(lib).softshrink(x, 3.0)),
    ("tanhshrink", lambda lib, x: F(lib).tanhshrink(x)),
    ("softsign", lambda lib, x: F(lib).softsign(x)),
    ("softplus", lambda lib, x: F(lib).softplus(x)),
    ("softplus_beta", lambda lib, x: F(lib).softplus(x, beta=2.0, threshold=5.0)),
    ("softplus_negative_beta", lambda lib, x: F(lib).softplus(x, -0.5, 2.0)),
    ("sigmoid", lambda lib, x: F(lib).sigmoid(x)),
    ("tanh", lambda lib, x: F(lib).tanh(x)),
    ("prelu_one", lambda lib, x: F(lib).prelu(x, lib.tensor([0.3], dtype=x.dtype))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn", FUNCTIONALS, ids=[n for n, _ in FUNCTIONALS])
def test_values_and_gradients(name, fn, dtype):
    for x in _inputs(dtype):
        check_grad(fn, x)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name,fn", FUNCTIONALS, ids=[n for n, _ in FUNCTIONALS])
def test_half_precision_values(name, fn, dtype):
    x = arrays((3, 5), seed=2, low=-4, high=4)
    check(lambda lib, a: fn(lib, a.to(getattr(lib, dtype))), x, rtol=1e-2, atol=1e-2)


# Where torch's definition is written with comparisons (NaN keeps its gradient, infinities saturate).
NAN_SAFE = ["relu6", "hardtanh", "hardtanh_range", "threshold", "hardshrink", "hardshrink_lambd", "softshrink",
            "softshrink_lambd", "softplus", "leaky_relu", "tanhshrink", "sigmoid", "logsigmoid"]


@pytest.mark.parametrize("name", NAN_SAFE)
def test_nan_and_infinities(name):
    check_grad(dict(FUNCTIONALS)[name], SPECIAL)


def test_prelu_per_channel():
    x = arrays((2, 3, 4), seed=3)
    w = np.array([0.1, -0.5, 2.0], np.float32)
    check_grad(lambda lib, a, b: F(lib).prelu(a, b), x, w)
    check_grad(lambda lib, a, b: F(lib).prelu(a, b), arrays((4, 3), seed=4), w)
    check_grad(lambda lib, a, b: F(lib).prelu(a, b), arrays((5,), seed=5), np.array([0.2], np.float32))
    check_grad(lambda lib, a, b: F(lib).prelu(a, b), np.array(-2.0, np.float32), np.array(0.2, np.float32))


@pytest.mark.parametrize("args", [((2, 3), (2,)), ((3,), (3,)), ((3, 4), (1, 4)), ((), (2,))])
def test_prelu_errors(args):
    xs, ws = args
    check(lambda lib, a, b: F(lib).prelu(a, b), np.ones(xs, np.float32), np.ones(ws, np.float32))


def test_prelu_dtype_errors():
    check(lambda lib, a, b: F(lib).prelu(a, b), np.ones((2, 3), np.float32), np.ones(3, np.float64))
    check(lambda lib, a, b: F(lib).prelu(a, b), np.ones((2, 3), np.int64), np.ones(3, np.int64))


def test_glu():
    x = arrays((2, 6, 4), seed=6)
    for dim in (-1, 1, 0, -3):
        check_grad(lambda lib, a, d=dim: F(lib).glu(a, d), x)
    for shape, dim in (((), -1), ((2, 3), 1), ((2, 4), 2), ((2, 5), -1)):
        check(lambda lib, a, d=dim: F(lib).glu(a, d), np.ones(shape, np.float32))
    check(lambda lib, a: F(lib).glu(a), np.ones((2, 4), np.int64))


INT_CASES = [
    lambda lib, x: F(lib).relu(x), lambda lib, x: F(lib).relu6(x), lambda lib, x: F(lib).hardtanh(x, -1.5, 2.5),
    lambda lib, x: F(lib).threshold(x, 1.5, 7.9), lambda lib, x: F(lib).sigmoid(x), lambda lib, x: F(lib).tanh(x),
    lambda lib, x: F(lib).softsign(x), lambda lib, x: F(lib).tanhshrink(x), lambda lib, x: F(lib).elu(x),
    lambda lib, x: F(lib).selu(x), lambda lib, x: F(lib).celu(x), lambda lib, x: F(lib).gelu(x),
    lambda lib, x: F(lib).silu(x), lambda lib, x: F(lib).mish(x), lambda lib, x: F(lib).hardswish(x),
    lambda lib, x: F(lib).hardsigmoid(x), lambda lib, x: F(lib).softplus(x), lambda lib, x: F(lib).softshrink(x),
    lambda lib, x: F(lib).hardshrink(x), lambda lib, x: F(lib).logsigmoid(x), lambda lib, x: F(lib).leaky_relu(x),
    lambda lib, x: F(lib).rrelu(x), lambda lib, x: F(lib).softmax(x, 0),
]


@pytest.mark.parametrize("k", range(len(INT_CASES)))
def test_integer_and_bool_inputs(k):
    check(INT_CASES[k], np.array([-2, 2, 4, 1, 0]))
    check(INT_CASES[k], np.array([True, False]))


ERRORS = [
    lambda lib: F(lib).celu(lib.ones(2), alpha=0.0),
    lambda lib: F(lib).hardtanh(lib.ones(2), 2.0, 1.0),
    lambda lib: F(lib).rrelu(lib.ones(2), 0.5, 0.1, training=True),
    lambda lib: F(lib).rrelu(lib.ones(2), 0.5, 0.1),
    lambda lib: F(lib).softshrink(lib.ones(2), -1.0),
    lambda lib: F(lib).hardshrink(lib.ones(2), -1.0),
    lambda lib: F(lib).gelu(lib.ones(2), approximate="foo"),
    lambda lib: F(lib).gelu(lib.ones(2), approximate=None),
    lambda lib: F(lib).elu(lib.ones(2), "a"),
    lambda lib: F(lib).elu(lib.ones(2), lib.tensor(2.0)),
    lambda lib: F(lib).leaky_relu(lib.tensor([-1.0, 2.0]), None),
    lambda lib: F(lib).softplus(lib.ones(2), None),
    lambda lib: F(lib).hardshrink(lib.ones(2), "x"),
    lambda lib: F(lib).relu([1.0]),
    lambda lib: F(lib).silu([1.0]),
    lambda lib: F(lib).threshold(lib.ones(2), lib.tensor(1.0), 2.0),
    lambda lib: F(lib).softplus(lib.ones(3), beta=0),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_argument_checks(k):
    check(ERRORS[k])


# -- in-place variants ---------------------------------------------------------------------------
INPLACE = [
    ("relu", lambda lib, x: F(lib).relu(x, inplace=True)), ("relu_", lambda lib, x: F(lib).relu_(x)),
    ("relu6", lambda lib, x: F(lib).relu6(x, True)), ("hardtanh_", lambda lib, x: F(lib).hardtanh_(x, -0.5, 0.5)),
    ("threshold_", lambda lib, x: F(lib).threshold_(x, 0.1, 20.0)),
    ("threshold", lambda lib, x: F(lib).threshold(x, 0.1, 20.0, True)),
    ("elu_", lambda lib, x: F(lib).elu_(x, 0.5)), ("elu", lambda lib, x: F(lib).elu(x, inplace=True)),
    ("selu_", lambda lib, x: F(lib).selu_(x)), ("celu_", lambda lib, x: F(lib).celu_(x, 2.0)),
    ("leaky_relu_", lambda lib, x: F(lib).leaky_relu_(x, 0.3)),
    ("leaky_relu", lambda lib, x: F(lib).leaky_relu(x, 0.3, True)),
    ("rrelu_eval", lambda lib, x: F(lib).rrelu_(x, 0.2, 0.4)),
    ("silu", lambda lib, x: F(lib).silu(x, inplace=True)), ("mish", lambda lib, x: F(lib).mish(x, inplace=True)),
    ("hardswish", lambda lib, x: F(lib).hardswish(x, inplace=True)),
    ("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x, inplace=True)),
]


@pytest.mark.parametrize("name,fn", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_writes_into_the_input(name, fn):
    def run(lib, a):
        x = a.clone()
        y = fn(lib, x)
        return y is x, x, x._version > 0

    check(run, KINKS)


@pytest.mark.parametrize("name,fn", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_gradients(name, fn):
    # On a non-leaf: the gradient flows through the in-place op into the leaf.
    check_grad(lambda lib, a: fn(lib, a * 1.0), KINKS)
    # On a leaf that requires grad: torch refuses.
    check(lambda lib, a: fn(lib, a.requires_grad_()), KINKS)


def test_inplace_on_integer_tensors():
    for fn in (lambda lib, x: F(lib).relu(x, inplace=True), lambda lib, x: F(lib).threshold_(x, 1, 9),
               lambda lib, x: F(lib).hardtanh_(x, -1, 2), lambda lib, x: F(lib).elu_(x)):
        check(lambda lib, a, f=fn: (f(lib, a), a), np.array([-3, 0, 1, 4]))


# -- rrelu training: torch's random slopes -------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_draws_torchs_slopes(dtype):
    x = arrays((3, 7), dtype=dtype, seed=7, low=-3, high=3)
    x[0, :3] = 0  # zeros draw a slope too

    def run(lib, a, inplace):
        lib.manual_seed(5)
        y = F(lib).rrelu(a * 1.0, 0.1, 0.3, training=True, inplace=inplace)
        return y, lib.rand(3)  # the generator advanced as torch's did

    check_grad(lambda lib, a: run(lib, a, False)[0], x)
    check(lambda lib, a: run(lib, a, False), x)
    check(lambda lib, a: run(lib, a, True), x)


def test_rrelu_with_a_generator():
    def run(lib, a):
        g = lib.Generator().manual_seed(11)
        return F(lib).rrelu_(a.clone(), 0.2, 0.5, training=True, generator=g), g.initial_seed()

    check(run, arrays((4, 5), seed=8))


# -- the softmax family --------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["softmax", "softmin", "log_softmax"])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_legacy_dim_warns(fn, ndim):
    def run(lib, a):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = getattr(F(lib), fn)(a)
        assert len(caught) == 1 and caught[0].category is UserWarning
        assert caught[0].filename == __file__  # the caller's line
        return y, str(caught[0].message)

    check(run, arrays((2,) * ndim, seed=ndim))


@pytest.mark.parametrize("fn", ["softmax", "softmin", "log_softmax"])
def test_softmax_family(fn):
    x = arrays((3, 4, 5), seed=9)
    for dim in (0, 1, -1):
        check_grad(lambda lib, a, d=dim: getattr(F(lib), fn)(a, d), x)
        check_grad(lambda lib, a, d=dim: getattr(F(lib), fn)(a, dim=d, dtype=lib.float64), x)
    check(lambda lib, a: getattr(F(lib), fn)(a, 0), np.array([1, 2, 3]))
    check(lambda lib, a: getattr(F(lib), fn)(a, 0, dtype=lib.float64), np.array([1, 2, 3]))
    check(lambda lib, a: getattr(F(lib), fn)(a, 3), x)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax(hard, dim):
    def run(lib, a):
        lib.manual_seed(3)
        return F(lib).gumbel_softmax(a, tau=0.5, hard=hard, dim=dim)

    check_grad(run, arrays((4, 6), seed=10))


def test_gumbel_softmax_eps_warning():
    def run(lib, a):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(0)
            y = F(lib).gumbel_softmax(a, eps=1e-3)
        assert caught[0].filename == __file__
        return y, [str(w.message) for w in caught]

    check(run, arrays((2, 3), seed=11))


# -- modules -------------------------------------------------------------------------------------
MODULES = [
    lambda lib: lib.nn.Threshold(0.1, 20.0), lambda lib: lib.nn.Threshold(0.1, 20, inplace=True),
    lambda lib: lib.nn.ReLU(), lambda lib: lib.nn.ReLU(inplace=True), lambda lib: lib.nn.RReLU(),
    lambda lib: lib.nn.RReLU(0.1, 0.3, True), lambda lib: lib.nn.Hardtanh(), lambda lib: lib.nn.Hardtanh(-2, 3, True),
    lambda lib: lib.nn.ReLU6(), lambda lib: lib.nn.ReLU6(True), lambda lib: lib.nn.Sigmoid(),
    lambda lib: lib.nn.Hardsigmoid(), lambda lib: lib.nn.Hardsigmoid(inplace=True), lambda lib: lib.nn.Tanh(),
    lambda lib: lib.nn.SiLU(), lambda lib: lib.nn.SiLU(True), lambda lib: lib.nn.Mish(), lambda lib: lib.nn.Mish(True),
    lambda lib: lib.nn.Hardswish(), lambda lib: lib.nn.ELU(), lambda lib: lib.nn.ELU(0.5, True),
    lambda lib: lib.nn.CELU(), lambda lib: lib.nn.CELU(2.0, inplace=True), lambda lib: lib.nn.SELU(),
    lambda lib: lib.nn.SELU(True), lambda lib: lib.nn.GLU(), lambda lib: lib.nn.GLU(1), lambda lib: lib.nn.GELU(),
    lambda lib: lib.nn.GELU("tanh"), lambda lib: lib.nn.Hardshrink(), lambda lib: lib.nn.Hardshrink(1.5),
    lambda lib: lib.nn.LeakyReLU(), lambda lib: lib.nn.LeakyReLU(0.2, True), lambda lib: lib.nn.LogSigmoid(),
    lambda lib: lib.nn.Softplus(), lambda lib: lib.nn.Softplus(2, 4), lambda lib: lib.nn.Softshrink(),
    lambda lib: lib.nn.Softshrink(0.25), lambda lib: lib.nn.PReLU(), lambda lib: lib.nn.PReLU(4, init=0.1),
    lambda lib: lib.nn.Softsign(), lambda lib: lib.nn.Tanhshrink(), lambda lib: lib.nn.Softmin(1),
    lambda lib: lib.nn.Softmax(dim=-1), lambda lib: lib.nn.Softmax2d(), lambda lib: lib.nn.LogSoftmax(2),
    lambda lib: lib.nn.Softmax(),
]


@pytest.mark.parametrize("k", range(len(MODULES)))
def test_module_repr(k):
    check_repr(MODULES[k])


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("k", range(len(MODULES)))
def test_module_forward_backward(k, train):
    make = MODULES[k]
    call = (lambda m, x: m(x * 1.0)) if getattr(make(real), "inplace", False) else None  # in place: a non-leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Softmax() warns about its implicit dim (tested above)
        check_module(make, arrays((2, 4, 3, 2), seed=k), train=train, call=call)
        check_module(lambda lib: make(lib).double(), arrays((2, 4, 2), dtype="float64", seed=k), train=train,
                     call=call)


def test_prelu_parameters():
    for make in (lambda lib: lib.nn.PReLU(), lambda lib: lib.nn.PReLU(3, 0.1),
                 lambda lib: lib.nn.PReLU(2, dtype=lib.float64), lambda lib: lib.nn.PReLU(0)):
        check_init(make)
    check(lambda lib: [(n, p.shape, p.dtype, p.requires_grad) for n, p in lib.nn.PReLU(3).named_parameters()])
    check(lambda lib: (lib.nn.PReLU(5).num_parameters, lib.nn.PReLU(init=0.5).init))


def test_module_constructor_checks():
    check(lambda lib: lib.nn.Hardtanh(2.0, 1.0))
    check(lambda lib: lib.nn.Hardtanh(1.0, 1.0))
    check(lambda lib: lib.nn.CELU(0.0)(lib.ones(1)))
    check(lambda lib: lib.nn.GELU("foo")(lib.ones(1)))
    check(lambda lib: lib.nn.Softmax2d()(lib.ones(2, 2)))
    check(lambda lib: lib.nn.RReLU(0.5, 0.1)(lib.ones(1)))
    for kwargs in ({"min_value": -2.0}, {"max_value": 2.0}):
        def run(lib, kw=kwargs):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                m = lib.nn.Hardtanh(**kw)
            return repr(m), [(w.category.__name__, str(w.message)) for w in caught]

        check(run)


def test_module_attributes():
    for make in MODULES:
        want, got = (make(lib) for lib in LIBS)
        attrs = {k for k in vars(want) if not k.startswith("_") and k != "training"}
        for name in sorted(attrs):
            assert_same(to_numpy(getattr(want, name)), to_numpy(getattr(got, name)), path=f"{want}.{name}")


def test_rrelu_module_trains_with_random_slopes():
    def run(lib, a):
        lib.manual_seed(2)
        m = lib.nn.RReLU(0.1, 0.5)
        return m(a), m.eval()(a)

    check(run, arrays((3, 4), seed=12))
