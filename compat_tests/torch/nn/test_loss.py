"""Elementwise losses (l1, mse, smooth L1, Huber, soft margin, BCE, BCE with logits, KL, Poisson, Gaussian,
multi-label soft margin) and the shared reduction rules, functional and module forms, against real torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from compat_tests.torch.nn.harness import check_module, check_repr

REDUCTIONS = ["none", "mean", "sum"]
DTYPES = ["float32", "float64"]


def const(lib, a):
    """A tensor that does not require grad (torch refuses gradients to some targets)."""
    return lib.from_numpy(a.copy())


def messages(lib, fn):
    """The warning messages ``fn(lib)`` emits (numpy's floating-point RuntimeWarnings, which vfw silences by a
    filter that ``simplefilter("always")`` overrides here, are left out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [(w.category, str(w.message)) for w in caught if w.category is not RuntimeWarning]


def same_warnings(fn):
    got, want = messages(vt, fn), messages(real, fn)
    assert got == want, f"warnings {got} != torch's {want}"
    return want


# -- regression losses -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_regression_losses(name, reduction, dtype):
    x, y = arrays((3, 4, 2), (3, 4, 2), dtype=dtype, seed=1)
    check_grad(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b, reduction=reduction), x, y)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_losses_broadcast_and_warn(name):
    x, y = arrays((3, 4), (4,), seed=2)
    fn = getattr(real.nn.functional, name)
    want = same_warnings(lambda lib: getattr(lib.nn.functional, name)(lib.from_numpy(x), lib.from_numpy(y)))
    assert want and "Using a target size" in want[0][1], fn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grad(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b), x, y)
        check(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b), x, arrays((5,), seed=3))


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 3.0])
def test_smooth_l1_beta(beta):
    x, y = arrays((5, 6), (5, 6), seed=4)
    check_grad(lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b, beta=beta), x, y)
    check_grad(lambda lib, a, b: lib.nn.SmoothL1Loss(beta=beta, reduction="sum")(a, b), x, y)


@pytest.mark.parametrize("delta", [0.3, 1.0, 2.5])
def test_huber_delta(delta):
    x, y = arrays((5, 6), (5, 6), seed=5)
    check_grad(lambda lib, a, b: lib.nn.functional.huber_loss(a, b, delta=delta), x, y)
    check_grad(lambda lib, a, b: lib.nn.HuberLoss(reduction="none", delta=delta)(a, b), x, y)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_regression(name, reduction):
    x, y = arrays((3, 4), (3, 4), seed=6)
    w = arrays((3, 4), seed=7, low=0.1, high=2.0)
    check_grad(lambda lib, a, b, c: getattr(lib.nn.functional, name)(a, b, reduction=reduction, weight=c), x, y, w)
    check(lambda lib, a, b, c: getattr(lib.nn.functional, name)(a, b, weight=c), x, y, w[0])  # wrong size


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_errors(name):
    x = arrays((3, 4), seed=8)
    ints = arrays((3, 4), dtype="int64", seed=8)
    check(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b, reduction="bad"), x, x)
    check(lambda lib, a, b: getattr(lib.nn.functional, name)(a, b), ints, ints)


def test_regression_promotion_and_arguments():
    x = arrays((3, 4), seed=8)
    ints = arrays((3, 4), dtype="int64", seed=8)
    check(lambda lib, a, b: lib.nn.functional.mse_loss(a, b), x, ints)  # promoted
    check(lambda lib, a, b: lib.nn.functional.mse_loss(a, b), x, x.astype("float64"))
    check(lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b, beta=-1.0), x, x)
    check(lambda lib, a, b: lib.nn.functional.huber_loss(a, b, delta=0.0), x, x)
    check(lambda lib: lib.nn.HuberLoss(delta="1"))


def test_half_precision():
    x, y = arrays((4, 5), (4, 5), dtype="float16", seed=9)
    check(lambda lib, a, b: lib.nn.functional.mse_loss(a, b), x, y)
    check(lambda lib, a, b: lib.nn.functional.l1_loss(a, b, reduction="none"), x, y)


# -- legacy reduction arguments ----------------------------------------------------------------------------
LEGACY = [(None, False), (False, None), (False, True), (True, False), (True, True), (None, True), (True, None)]


@pytest.mark.parametrize("size_average, reduce", LEGACY)
def test_legacy_arguments(size_average, reduce):
    x, y = arrays((3, 4), (3, 4), seed=10)

    def fn(lib, a, b):
        return lib.nn.functional.mse_loss(a, b, size_average=size_average, reduce=reduce, reduction="none")

    want = same_warnings(lambda lib: fn(lib, lib.from_numpy(x), lib.from_numpy(y)))
    assert len(want) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grad(fn, x, y)
        check_grad(lambda lib, a, b: lib.nn.L1Loss(size_average, reduce)(a, b), x, y)
        assert vt.nn.MSELoss(size_average, reduce).reduction == real.nn.MSELoss(size_average, reduce).reduction


def test_elementwise_mean_is_deprecated_mean():
    x, y = arrays((3, 4), (3, 4), seed=11)
    same_warnings(lambda lib: lib.nn.functional.l1_loss(lib.from_numpy(x), lib.from_numpy(y),
                                                        reduction="elementwise_mean"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, a, b: lib.nn.functional.l1_loss(a, b, reduction="elementwise_mean"), x, y)


# -- logistic losses ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_soft_margin(reduction, dtype):
    x = arrays((4, 5), dtype=dtype, seed=12, low=-4, high=4)
    y = np.where(arrays((4, 5), seed=13) > 0, 1.0, -1.0).astype(dtype)
    check_grad(lambda lib, a: lib.nn.functional.soft_margin_loss(a, const(lib, y), reduction=reduction), x)
    check(lambda lib, a, b: lib.nn.functional.soft_margin_loss(a, b.requires_grad_()), x, y)  # no target gradient
    check_grad(lambda lib, a: lib.nn.SoftMarginLoss(reduction=reduction)(a, const(lib, y)), x)
    check(lambda lib, a: lib.nn.functional.soft_margin_loss(a, const(lib, y[0])), x)  # broadcast


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy(reduction, dtype):
    x = arrays((4, 5), dtype=dtype, seed=14, low=0.02, high=0.98)
    y = arrays((4, 5), dtype=dtype, seed=15, low=0.0, high=1.0)
    check_grad(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b, reduction=reduction), x, y)
    w = arrays((5,), dtype=dtype, seed=16, low=0.1, high=2.0)
    check_grad(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b, const(lib, w), reduction=reduction),
               x, y)
    check_module(lambda lib: lib.nn.BCELoss(weight=lib.from_numpy(w.copy()), reduction=reduction), x, y)


def test_binary_cross_entropy_edges():
    # Inputs of exactly 0 and 1: the logs are clamped at -100 and the input gradient stays finite, as torch's.
    x = np.array([0.0, 1.0, 0.5, 1e-30, 1 - 1e-7], "float64")
    y = np.array([0.3, 0.6, 0.5, 1.0, 0.0], "float64")
    check_grad(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b, reduction="sum"), x, y)
    check(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b), np.array([1.5]), np.array([1.0]))
    check(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b), np.array([np.nan]), np.array([1.0]))
    p = arrays((3, 4), seed=17, low=0.1, high=0.9)
    check(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b), p, p[:, :1])  # sizes differ
    check(lambda lib, a, b: lib.nn.functional.binary_cross_entropy(a, b), p, p.astype("float64"))
    check(lambda lib, a, b, c: lib.nn.functional.binary_cross_entropy(a, b, c), p, p, np.ones((2, 3, 4), "float32"))
    check(lambda lib, a, b, c: lib.nn.functional.binary_cross_entropy(a, b, c), p, p, np.ones(4))  # weight cast


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_cross_entropy_with_logits(reduction, dtype):
    x = arrays((4, 5), dtype=dtype, seed=18, low=-30, high=30)
    y = arrays((4, 5), dtype=dtype, seed=19, low=0.0, high=1.0)
    w = arrays((4, 1), dtype=dtype, seed=20, low=0.1, high=2.0)
    pw = arrays((5,), dtype=dtype, seed=21, low=0.1, high=3.0)

    def fn(lib, a, b, c, d):
        return lib.nn.functional.binary_cross_entropy_with_logits(a, b, c, reduction=reduction, pos_weight=d)

    check_grad(lambda lib, a, b: fn(lib, a, b, const(lib, w), const(lib, pw)), x, y)
    check(lambda lib, a, b, c: fn(lib, a, b, c.requires_grad_(), None), x, y, w)  # refused: no weight gradient
    check(lambda lib, a, b, c: fn(lib, a, b, None, c.requires_grad_()), x, y, pw)
    check_grad(lambda lib, a, b: fn(lib, a, b, None, None), x, y)
    check_module(lambda lib: lib.nn.BCEWithLogitsLoss(lib.from_numpy(w.copy()), reduction=reduction,
                                                      pos_weight=lib.from_numpy(pw.copy())), x, y)


def test_binary_cross_entropy_with_logits_errors():
    x = arrays((3, 4), seed=22)
    y = arrays((3, 4), seed=23, low=0, high=1)
    f = "binary_cross_entropy_with_logits"
    check(lambda lib, a, b: getattr(lib.nn.functional, f)(a, b), x, y[0])
    check(lambda lib, a, b: getattr(lib.nn.functional, f)(a, b), x, y.astype("int64"))
    check(lambda lib, a, b: getattr(lib.nn.functional, f)(a, b), x, y.astype("float64"))
    check(lambda lib, a, b: getattr(lib.nn.functional, f)(a, b), x.astype("int64"), y.astype("int64"))
    check(lambda lib, a, b, c: getattr(lib.nn.functional, f)(a, b, pos_weight=c), x, y, np.ones(3, "float32"))
    check(lambda lib, a, b, c: getattr(lib.nn.functional, f)(a, b, c), x, y, np.ones(3, "float32"))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 4)])
def test_multilabel_soft_margin(reduction, shape):
    x = arrays(shape, seed=24, low=-3, high=3)
    y = (arrays(shape, seed=25) > 0).astype("float32")
    w = arrays(shape[-1:], seed=26, low=0.1, high=2.0)
    check_grad(lambda lib, a, b: lib.nn.functional.multilabel_soft_margin_loss(a, b, reduction=reduction), x, y)
    check_module(lambda lib: lib.nn.MultiLabelSoftMarginLoss(lib.from_numpy(w.copy()), reduction=reduction), x, y)
    check(lambda lib, a, b: lib.nn.functional.multilabel_soft_margin_loss(a, b, reduction="bad"), x, y)


# -- distributions -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_kl_div(reduction, log_target, dtype):
    x = np.log(arrays((4, 5), dtype=dtype, seed=27, low=0.05, high=1.0))
    y = arrays((4, 5), dtype=dtype, seed=28, low=0.05, high=1.0)
    y = np.log(y) if log_target else y
    check_grad(lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction=reduction, log_target=log_target), x, y)
    check_grad(lambda lib, a, b: lib.nn.KLDivLoss(reduction=reduction, log_target=log_target)(a, b), x, y)


def test_kl_div_mean_warns_and_zero_targets():
    x = np.log(arrays((3, 4), seed=29, low=0.05, high=1.0))
    y = arrays((3, 4), seed=30, low=0.05, high=1.0)
    y[0, 1] = y[2, 3] = 0.0  # 0 * log(0) is 0
    want = same_warnings(lambda lib: lib.nn.functional.kl_div(lib.from_numpy(x), lib.from_numpy(y)))
    assert "batchmean" in want[0][1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grad(lambda lib, a: lib.nn.functional.kl_div(a, const(lib, y)), x)
        check(lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction="sum"), x, y[0])  # broadcast
        check(lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction="batchmean"), x[0, 0], y[0, 0])
        check(lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction="bad"), x, y)
        check(lambda lib, a, b: lib.nn.functional.kl_div(a, b), x, y.astype("int64"))
        check(lambda lib, a, b: lib.nn.functional.kl_div(a, b, size_average=False), x, y)


@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_poisson_nll(log_input, full, reduction):
    x = arrays((4, 5), dtype="float64", seed=31, low=0.1 if not log_input else -2, high=3)
    y = arrays((4, 5), dtype="float64", seed=32, low=0.0, high=4.0)
    y[0, :2] = [0.0, 1.0]

    def fn(lib, a, b):
        return lib.nn.functional.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction)

    check_grad(fn, x, y)
    check_grad(lambda lib, a, b: lib.nn.PoissonNLLLoss(log_input, full, eps=1e-3, reduction=reduction)(a, b), x, y)
    check_grad(fn, x.astype("float32"), y.astype("float32"))


def test_poisson_nll_errors():
    x = arrays((3, 4), seed=33)
    check(lambda lib, a, b: lib.nn.functional.poisson_nll_loss(a, b, reduction="bad"), x, x)
    check(lambda lib, a, b: lib.nn.functional.poisson_nll_loss(a, b), x, np.ones((3, 4), "int64"))
    check(lambda lib, a, b: lib.nn.functional.poisson_nll_loss(a, b), x, np.ones(4, "float32"))


@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1), (1, 3)])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll(var_shape, full, reduction):
    x, y = arrays((4, 3), (4, 3), dtype="float64", seed=34)
    var = arrays(var_shape, dtype="float64", seed=35, low=0.1, high=2.0)

    def fn(lib, a, b, v):
        return lib.nn.functional.gaussian_nll_loss(a, b, v, full=full, reduction=reduction)

    check_grad(fn, x, y, var)
    check_grad(lambda lib, a, b, v: lib.nn.GaussianNLLLoss(full=full, reduction=reduction)(a, b, v), x, y, var)


def test_gaussian_nll_variance_clamp_and_errors():
    x, y = arrays((4, 3), (4, 3), dtype="float64", seed=36)
    var = arrays((4, 3), dtype="float64", seed=37, low=0.0, high=1e-3)
    var[0, 0] = 0.0
    # Below eps the variance is clamped for the value, its gradient passes through unclamped.
    check_grad(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v, eps=1e-4), x, y, var)
    check_grad(lambda lib, a, b: lib.nn.functional.gaussian_nll_loss(a, b, 0.5), x, y)
    check(lambda lib, a, b: lib.nn.functional.gaussian_nll_loss(a, b, -1.0), x, y)
    check(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v), x, y, -np.ones((4, 3)))
    check(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v), x, y, np.ones((2, 3)))
    check(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v, reduction="bad"), x, y, np.ones((4, 3)))
    check(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v), x, y[0], np.ones((4, 3)))
    check(lambda lib, a, b: lib.nn.functional.gaussian_nll_loss(a, b, 1), x, y)
    z = arrays((2, 3, 4), (2, 3, 4), (2, 1, 1), dtype="float64", seed=38, low=0.1)
    check(lambda lib, a, b, v: lib.nn.functional.gaussian_nll_loss(a, b, v), *z)


# -- modules -----------------------------------------------------------------------------------------------
MODULES = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "KLDivLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss"]


@pytest.mark.parametrize("name", MODULES)
def test_module_repr_and_state(name):
    check_repr(lambda lib: getattr(lib.nn, name)())
    assert vt.nn.modules.loss.__dict__[name].__name__ == name
    m_ref, m_got = real.nn.BCELoss(weight=real.ones(3)), vt.nn.BCELoss(weight=vt.ones(3))
    assert list(m_got.state_dict()) == list(m_ref.state_dict()) == ["weight"]
    m_ref = real.nn.BCEWithLogitsLoss(weight=real.ones(3), pos_weight=real.ones(3))
    m_got = vt.nn.BCEWithLogitsLoss(weight=vt.ones(3), pos_weight=vt.ones(3))
    assert list(m_got.state_dict()) == list(m_ref.state_dict()) == ["weight", "pos_weight"]
    assert list(vt.nn.BCELoss().state_dict()) == list(real.nn.BCELoss().state_dict()) == []


@pytest.mark.parametrize("name", ["L1Loss", "MSELoss", "SmoothL1Loss", "SoftMarginLoss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_pair_modules(name, reduction):
    x, y = arrays((3, 4), (3, 4), seed=39)
    check_module(lambda lib: getattr(lib.nn, name)(reduction=reduction), x, np.sign(y) if "Margin" in name else y,
                 grad=name != "SoftMarginLoss")


def test_module_weight_follows_to_and_state_dict():
    w = np.array([0.5, 1.0, 2.0], "float32")
    for lib in (real, vt):
        m = lib.nn.BCELoss(weight=lib.from_numpy(w.copy())).double()
        assert m.weight.dtype == lib.float64
        m.load_state_dict({"weight": lib.ones(3, dtype=lib.float64)})
        assert m.weight.tolist() == [1.0, 1.0, 1.0]
