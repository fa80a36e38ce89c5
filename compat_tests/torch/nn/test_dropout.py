"""Dropout functionals and modules against real torch: with the same seed the masks are torch's (its
CPU bernoulli_ draws), so outputs, gradients and the generator's next draws agree exactly; ranks,
warnings, probability checks, in-place writes, evaluation mode and reprs."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, vt
from compat_tests.torch.nn.harness import check_module, check_repr

FUNCTIONS = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]
# A shape each function takes without warning.
GOOD_SHAPE = {"dropout": (4, 5, 6), "alpha_dropout": (7, 9), "feature_alpha_dropout": (3, 4, 5),
              "dropout1d": (3, 8, 5), "dropout2d": (2, 6, 3, 3), "dropout3d": (2, 3, 2, 2, 3)}


def _seeded(fn, seed=0, **kwargs):
    """``fn`` run right after ``manual_seed(seed)``, returning its result and the generator's next draws."""

    def run(lib, x):
        lib.manual_seed(seed)
        y = getattr(lib.nn.functional, fn)(x, **kwargs)
        return y, lib.rand(4)

    return run


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_masks_values_and_gradients_are_torchs(fn, p, dtype):
    x = arrays(GOOD_SHAPE[fn], dtype=dtype, seed=1)
    for seed in (0, 7):
        check(_seeded(fn, seed, p=p, training=True), x)
        check_grad(lambda lib, a, s=seed: _seeded(fn, s, p=p, training=True)(lib, a)[0], x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool"])
def test_bernoulli_with_a_number_draws_torchs_numbers(dtype):
    # What the masks are made of: one 53-bit uniform (two generator words) per element, below p.
    def run(lib, p):
        lib.manual_seed(11)
        t = lib.empty(37, 5, dtype=getattr(lib, dtype)).bernoulli_(p)
        g = lib.Generator().manual_seed(2)
        return t, lib.bernoulli(lib.zeros(9), p), lib.empty(4, 6).bernoulli_(p, generator=g), lib.rand(3)

    for p in (0.0, 0.3, 0.5, 0.97, 1.0):
        check(lambda lib, q=p: run(lib, q))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_half_precision(fn):
    x = arrays(GOOD_SHAPE[fn], seed=2)
    for dtype in ("float16", "bfloat16"):
        check(lambda lib, a, d=dtype: _seeded(fn, 3, p=0.3, training=True)(lib, a.to(getattr(lib, d))), x)


def test_large_input_and_default_arguments():
    check(lambda lib, a: (lib.manual_seed(1), lib.nn.functional.dropout(a), lib.rand(2))[1:],
          arrays((64, 257), seed=3))


def test_masks_follow_memory_order():
    # torch draws the noise of a transposed (dense) input in its memory order.
    x = arrays((5, 7, 3), seed=4)
    for perm in ((1, 0, 2), (2, 1, 0), (0, 2, 1)):
        check(lambda lib, a, q=perm: _seeded("dropout", 5, p=0.4)(lib, a.permute(*q)), x)
        check(lambda lib, a, q=perm: _seeded("alpha_dropout", 5, p=0.4, training=True)(lib, a.permute(*q)), x)
    check(lambda lib, a: _seeded("dropout", 6, p=0.4)(lib, a[:, ::2]), x)  # not dense: C order


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_identity_cases(fn):
    x = arrays(GOOD_SHAPE[fn], seed=5)

    def run(lib, a, **kwargs):
        y = getattr(lib.nn.functional, fn)(a, **kwargs)
        return y is a, y

    check(lambda lib, a: run(lib, a, p=0.5, training=False), x)
    check(lambda lib, a: run(lib, a, p=0.0, training=True), x)
    check(lambda lib, a: run(lib, a, p=1.0, training=True), x)
    check(lambda lib, a: run(lib, a, p=0.5, training=False, inplace=True), x)
    check(lambda lib, a: run(lib, a[:0], p=0.5, training=True), x)
    check_grad(lambda lib, a: getattr(lib.nn.functional, fn)(a, 1.0, True), x)


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("ndim", range(6))
def test_ranks_warnings_and_errors(fn, ndim):
    def run(lib, a):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.manual_seed(2)
            y = getattr(lib.nn.functional, fn)(a, 0.5, True)
        assert all(w.filename == __file__ for w in caught)
        return y, [(w.category.__name__, str(w.message)) for w in caught]

    check(run, arrays((3,) * ndim, seed=ndim))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_probability_and_argument_checks(fn):
    x = arrays(GOOD_SHAPE[fn], seed=6)

    def f(lib):
        return getattr(lib.nn.functional, fn)

    for p in (1.5, -0.1, None, True, 1):
        check(lambda lib, a, q=p: f(lib)(a, q, True), x)
    check(lambda lib, a: (lib.manual_seed(0), f(lib)(a, lib.tensor(0.3), True))[1], x)
    check(lambda lib: f(lib)([1.0, 2.0], 0.5, True))
    check(lambda lib, a: f(lib)(a, 0.5, None), x)
    check(lambda lib, a: f(lib)(a, 0.5, True), np.ones(GOOD_SHAPE[fn], np.int64))
    check(lambda lib, a: f(lib)(a, 0.5, False), np.ones(GOOD_SHAPE[fn], np.int64))
    check(lambda lib, a: f(lib)(a, 1.0, True), np.ones(GOOD_SHAPE[fn], np.int64))
    check(lambda lib, a: f(lib)(a, 0.5, True), np.ones(GOOD_SHAPE[fn], np.bool_))


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_inplace(fn):
    x = arrays(GOOD_SHAPE[fn], seed=7)

    def run(lib, a, p):
        lib.manual_seed(4)
        b = a.clone()
        y = getattr(lib.nn.functional, fn)(b, p, True, inplace=True)
        return y is b, b, b._version > 0

    for p in (0.3, 1.0):
        check(lambda lib, a, q=p: run(lib, a, q), x)
    # on a non-leaf the gradient goes through the write; a leaf that requires grad is refused
    check_grad(lambda lib, a: _seeded(fn, 4, p=0.3, training=True, inplace=True)(lib, a * 1.0)[0], x)
    check(lambda lib, a: getattr(lib.nn.functional, fn)(a.requires_grad_(), 0.3, True, inplace=True), x)


def test_unbatched_channel_dropout_in_place_keeps_the_shape():
    def run(lib, a, fn):
        lib.manual_seed(8)
        b = a.clone()
        getattr(lib.nn.functional, fn)(b, 0.5, True, inplace=True)
        return b

    check(lambda lib, a: run(lib, a, "dropout1d"), arrays((6, 4), seed=8))
    check(lambda lib, a: run(lib, a, "dropout3d"), arrays((6, 2, 2, 3), seed=9))


def test_dropout_statistics():
    # Independent of torch: the kept fraction is 1 - p and kept values are scaled by 1 / (1 - p).
    vt.manual_seed(0)
    y = vt.nn.functional.dropout(vt.ones(200_000), 0.3).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.005
    np.testing.assert_allclose(y[kept], 1 / np.float32(0.7), rtol=1e-6)


def test_alpha_dropout_keeps_selu_moments():
    vt.manual_seed(0)
    x = vt.randn(400_000)
    y = vt.nn.functional.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01


def test_traced_dropout_draws_a_new_mask_each_run():
    from vfw.core.graph.function import function

    @function
    def f(x):
        return vt.nn.functional.dropout(x, 0.5)

    x = vt.ones(1000)
    runs = [f(x).numpy() for _ in range(3)]  # the first traces, the others run the graph
    assert not (runs[1] == runs[2]).all()
    for y in runs[1:]:
        assert set(np.unique(y)) == {0.0, 2.0} and 0.4 < (y != 0).mean() < 0.6


# -- modules -------------------------------------------------------------------------------------
MODULES = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
MODULE_SHAPE = dict(zip(MODULES, [GOOD_SHAPE[f] for f in ("dropout", "dropout1d", "dropout2d", "dropout3d",
                                                         "alpha_dropout", "feature_alpha_dropout")]))


@pytest.mark.parametrize("name", MODULES)
def test_modules(name):
    for p in (0.25, 0.5):
        for inplace in (False, True):
            def make(lib, q=p, i=inplace):
                return getattr(lib.nn, name)(q, inplace=i)

            call = (lambda m, x: m(x * 1.0)) if inplace else None
            for train in (True, False):
                check_module(make, arrays(MODULE_SHAPE[name], seed=10), train=train, seed=3, call=call)
            check_repr(make)
    check_repr(lambda lib: getattr(lib.nn, name)())
    check(lambda lib: getattr(lib.nn, name)(1.5))
    check(lambda lib: getattr(lib.nn, name)(p=-1))
    check(lambda lib: (getattr(lib.nn, name)(0.3).p, getattr(lib.nn, name)(inplace=True).inplace))
