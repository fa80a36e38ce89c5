"""Pooling (max, average, power-average, adaptive, unpooling): functionals and modules against real torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_module, check_repr


def distinct(*shape, seed=0, dtype="float32"):
    """Values with no ties (maxima and their indices are unique)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(np.arange(n) - n / 2).reshape(shape).astype(dtype) / 4


MAX_CASES = [
    ((9,), {"kernel_size": 3}),
    ((10,), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ((11,), {"kernel_size": 2, "stride": 3, "dilation": 2}),
    ((7, 6), {"kernel_size": 2}),
    ((7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    ((7, 7), {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": (1, 2), "ceil_mode": True}),
    ((4, 5, 6), {"kernel_size": 2, "stride": (1, 2, 2), "padding": 1}),
    ((5, 4, 5), {"kernel_size": (3, 2, 2), "ceil_mode": True, "stride": 2}),
]


@pytest.mark.parametrize("spatial, kwargs", MAX_CASES)
def test_max_pool_with_indices(spatial, kwargs):
    nd = len(spatial)
    x = distinct(2, 3, *spatial)
    fn = f"max_pool{nd}d"
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, return_indices=True, **kwargs), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, f"{fn}_with_indices")(x, **kwargs), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, **kwargs), x[0].astype(np.float64))


def test_max_pool_ties_and_dtypes():
    x = np.array([[[[1.0, 1.0, 0.0], [1.0, 0.5, 1.0], [2.0, 2.0, 2.0]]]], np.float32)
    check_grad(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, 1, return_indices=True), x)
    ints = arrays((1, 2, 5, 5), dtype="int64", low=-5, high=5)
    for dtype in ("int64", "int32", "uint8", "float16"):
        check(lambda lib, x, d=dtype: lib.nn.functional.max_pool2d(x.to(getattr(lib, d)), 2, return_indices=True),
              ints)
    check(lambda lib: lib.nn.functional.max_pool2d(lib.zeros(0, 2, 4, 4), 2))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.max_pool2d(x, 3, padding=2),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 5),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 2, stride=0),
    lambda lib, x: lib.nn.functional.max_pool2d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.max_pool2d(x, (2, 2, 2)),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 2, padding=-1),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 2, dilation=0),
    lambda lib, x: lib.nn.functional.max_pool2d(x > 0, 2),
    lambda lib, x: lib.nn.functional.max_pool1d(x, 2),
    lambda lib, x: lib.nn.functional.max_pool3d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.max_pool2d(x[:, :0], 2),
    lambda lib, x: lib.nn.functional.max_pool2d(x, 2.5),
])
def test_max_pool_errors(call):
    check(call, arrays((1, 1, 4, 4)))


AVG_CASES = [
    ((9,), {"kernel_size": 3}),
    ((10,), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ((10,), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ((7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    ((7, 7), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ((7, 7), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "divisor_override": 4}),
    ((4, 5, 6), {"kernel_size": 2, "stride": (1, 2, 2), "padding": 1, "count_include_pad": False}),
    ((5, 4, 5), {"kernel_size": (3, 2, 2), "ceil_mode": True, "stride": 2, "divisor_override": 3}),
]


@pytest.mark.parametrize("spatial, kwargs", AVG_CASES)
def test_avg_pool(spatial, kwargs):
    nd = len(spatial)
    fn = f"avg_pool{nd}d"
    x = arrays((2, 3) + spatial)
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, **kwargs), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, **kwargs), x[0].astype(np.float64))


def test_avg_pool_integer_and_half():
    x = arrays((1, 2, 5, 5), dtype="int64", low=-20, high=20)
    check(lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, padding=1), x)
    check(lambda lib, x: lib.nn.functional.avg_pool2d(x, 3, divisor_override=2), x)
    check(lambda lib, x: lib.nn.functional.avg_pool1d(x[0], 2, ceil_mode=True), x)
    check(lambda lib, x: lib.nn.functional.avg_pool2d(x.half(), 2), arrays((1, 2, 4, 4)))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.avg_pool2d(x, (2, 2, 2)),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, padding=2),
    lambda lib, x: lib.nn.functional.avg_pool2d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.avg_pool1d(x[0, 0, 0], 2),
    lambda lib, x: lib.nn.functional.avg_pool1d(x, 2),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, divisor_override=0),
    lambda lib, x: lib.nn.functional.avg_pool3d(x[0], 2),
    lambda lib, x: lib.nn.functional.avg_pool2d(x, 5),
    lambda lib, x: lib.nn.functional.avg_pool2d(x > 0, 2),
])
def test_avg_pool_errors(call):
    check(call, arrays((1, 1, 4, 4)))


@pytest.mark.parametrize("nd, norm, kwargs", [
    (1, 2, {"kernel_size": 3}),
    (1, 3, {"kernel_size": 2, "stride": 1}),
    (2, 2.5, {"kernel_size": (2, 3), "stride": 1, "ceil_mode": True}),
    (2, float("inf"), {"kernel_size": 2}),
    (3, 1, {"kernel_size": 2, "stride": (1, 2, 1)}),
])
def test_lp_pool(nd, norm, kwargs):
    x = arrays((2, 2) + (5, 6, 4)[:nd], low=0.2, high=2.0)
    fn = f"lp_pool{nd}d"
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, norm, **kwargs), x, rtol=1e-4, atol=1e-5)


def test_lp_pool_odd_power_of_negative_inputs():
    x = arrays((1, 2, 6, 6), seed=3)
    check(lambda lib, x: lib.nn.functional.lp_pool2d(x, 3, 2), x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("spatial, size", [
    ((9,), 4), ((8,), 4), ((7,), 9), ((7, 6), (4, 5)), ((6, 6), 3), ((7, 6), (None, 4)), ((5, 7), 1),
    ((4, 5, 6), (3, 2, 4)), ((4, 6, 6), 2),
])
def test_adaptive_pools(spatial, size):
    nd = len(spatial)
    x = distinct(2, 3, *spatial)
    avg, mx = f"adaptive_avg_pool{nd}d", f"adaptive_max_pool{nd}d"
    check_grad(lambda lib, x: getattr(lib.nn.functional, avg)(x, size), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, mx)(x, size, return_indices=True), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, f"{mx}_with_indices")(x, size), x[0].astype(np.float64))
    check_grad(lambda lib, x: getattr(lib.nn.functional, mx)(x, size), x)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, -1),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (2, 2, 2)),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x[0, 0, 0], 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x[0], 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x[:, :, :0], 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x.long(), 2),
    lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 0),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 0),
    lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x[0], (3, 3)),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x.long(), 3),
    lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x[:, :, :0], 2),
])
def test_adaptive_pool_errors_and_edges(call):
    check(call, arrays((1, 1, 4, 4)))


@pytest.mark.parametrize("nd, kwargs", [
    (1, {"kernel_size": 2}),
    (2, {"kernel_size": 2}),
    (2, {"kernel_size": 3, "stride": 2, "padding": 1}),
    (3, {"kernel_size": 2, "stride": (1, 2, 2)}),
])
def test_max_unpool_round_trip(nd, kwargs):
    x = distinct(2, 3, *(6, 5, 4)[:nd])
    pool, unpool = f"max_pool{nd}d", f"max_unpool{nd}d"

    def fn(lib, x):
        y, idx = getattr(lib.nn.functional, pool)(x, return_indices=True, **kwargs)
        return getattr(lib.nn.functional, unpool)(y, idx, output_size=x.shape[-nd:], **kwargs)

    check_grad(fn, x)
    check_grad(fn, x[0])


def test_max_unpool_duplicate_indices_share_gradients():
    # which duplicate torch writes is not deterministic (its kernel runs in parallel); every duplicate reads
    # the gradient at its index
    x, w = arrays((1, 1, 4)), arrays((1, 1, 8), seed=1)
    idx = np.array([[[0, 0, 3, 3]]], np.int64)

    def grad(lib, x, i, w):
        x.requires_grad_(True)
        (lib.nn.functional.max_unpool1d(x, i, 2) * w).sum().backward()
        return x.grad

    check(grad, x, idx, w)


@pytest.mark.parametrize("call", [
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i + 1, 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i - 1, 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i.float(), 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i[..., :1], 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x[0, 0], i[0, 0], 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i, 2, output_size=(7, 5)),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i, 2, output_size=(5, 4)),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x.long(), i, 2),
    lambda lib, x, i: lib.nn.functional.max_unpool2d(x, i.int(), 2),
    lambda lib, x, i: lib.nn.functional.max_unpool1d(x[0, 0, 0], i[0, 0, 0], 2),
    lambda lib, x, i: lib.nn.functional.max_unpool3d(x, i, 2),
])
def test_max_unpool_errors_and_edges(call):
    check(call, arrays((1, 1, 2, 2)), np.array([[[[0, 3], [9, 15]]]], np.int64))


# -------------------------------------------------------------------------------------------- modules


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.MaxPool1d(3, 2, 1), (2, 3, 9)),
    (lambda lib: lib.nn.MaxPool2d((2, 3), dilation=(2, 1), ceil_mode=True), (2, 3, 7, 8)),
    (lambda lib: lib.nn.MaxPool2d(2, return_indices=True), (3, 6, 6)),
    (lambda lib: lib.nn.MaxPool3d(2, stride=1, padding=1), (1, 2, 3, 4, 3)),
    (lambda lib: lib.nn.AvgPool1d(3, 2, 1, count_include_pad=False), (2, 3, 9)),
    (lambda lib: lib.nn.AvgPool2d((2, 3), ceil_mode=True, divisor_override=5), (2, 3, 7, 8)),
    (lambda lib: lib.nn.AvgPool3d(2, stride=1, padding=1), (1, 2, 3, 4, 3)),
    (lambda lib: lib.nn.LPPool1d(2, 3, 2), (2, 3, 9)),
    (lambda lib: lib.nn.LPPool2d(1.5, (2, 3)), (2, 3, 7, 8)),
    (lambda lib: lib.nn.LPPool3d(2, 2), (1, 2, 4, 4, 4)),
    (lambda lib: lib.nn.AdaptiveAvgPool1d(4), (2, 3, 9)),
    (lambda lib: lib.nn.AdaptiveAvgPool2d((3, None)), (2, 3, 7, 8)),
    (lambda lib: lib.nn.AdaptiveAvgPool3d(2), (1, 2, 3, 4, 5)),
    (lambda lib: lib.nn.AdaptiveMaxPool1d(4, return_indices=True), (2, 3, 9)),
    (lambda lib: lib.nn.AdaptiveMaxPool2d((3, 5)), (2, 3, 7, 8)),
    (lambda lib: lib.nn.AdaptiveMaxPool3d((2, None, 3)), (1, 2, 3, 4, 5)),
])
def test_pooling_modules(make, shape):
    check_module(make, distinct(*shape, seed=len(shape)) + 4, rtol=1e-4, atol=1e-5)
    check_repr(make)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_modules(nd):
    x = distinct(2, 2, *(6, 4, 4)[:nd])

    def call(lib, x):
        pool = getattr(lib.nn, f"MaxPool{nd}d")(2, return_indices=True)
        unpool = getattr(lib.nn, f"MaxUnpool{nd}d")(2)
        return unpool(*pool(x))

    check_grad(call, x)
    check_repr(lambda lib: getattr(lib.nn, f"MaxUnpool{nd}d")(3, stride=2, padding=1))


# ------------------------------------------------------------------------------------ fractional pooling


@pytest.mark.parametrize("nd, kwargs", [
    (2, {"kernel_size": 2, "output_size": (5, 4)}),
    (2, {"kernel_size": (3, 2), "output_ratio": (0.5, 0.7)}),
    (2, {"kernel_size": 2, "output_ratio": [0.5, 0.5]}),
    (3, {"kernel_size": (2, 3, 2), "output_ratio": 0.5}),
    (3, {"kernel_size": 2, "output_size": (3, 4, 2)}),
])
def test_fractional_max_pool_draws_torchs_windows(nd, kwargs):
    fn = f"fractional_max_pool{nd}d"

    def pool(lib, x):
        lib.manual_seed(5)
        return getattr(lib.nn.functional, fn)(x, return_indices=True, **kwargs)

    x = distinct(2, 3, *(9, 8, 7)[:nd])
    check_grad(pool, x)
    check_grad(pool, x[0])
    check_grad(lambda lib, x: getattr(lib.nn.functional, f"{fn}_with_indices")(x, **kwargs)[1:], x)


def test_fractional_max_pool_given_samples_and_dtypes():
    x = distinct(2, 3, 9, 8)
    samples = np.random.default_rng(1).random((3, 3, 2)).astype(np.float32)
    def given(lib, x):
        return lib.nn.functional.fractional_max_pool2d(x, 2, output_size=4, _random_samples=lib.from_numpy(samples))

    check_grad(given, x)
    # torch refuses samples that require grad
    check(lambda lib, x, s: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=4,
                                                                    _random_samples=s.requires_grad_()), x, samples)
    for dtype in ("float64", "float16", "bfloat16"):
        def pool(lib, x, d=dtype):
            lib.manual_seed(3)
            return lib.nn.functional.fractional_max_pool2d(x.to(getattr(lib, d)), 3, output_ratio=0.5)

        check(pool, x)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=7),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_ratio=0.5),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.7, 1)),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x[0, 0], 3, output_size=4),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x[None], 3, output_size=4),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x.long(), 3, output_size=4),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=x[:, :, 0, :3]),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=x[:1, :, 0, :2]),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=x[:, :2, 0, :2]),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=4,
                                                           _random_samples=x[:, :, 0, :2].double()),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=4, _random_samples=x[:, :, 0]),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, (2, 3), output_size=(4, 7)),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, (2, 2, 2), output_size=4),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x[:, :0], 2, output_size=3),
    lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 2, output_size=0),
    lambda lib, x: lib.nn.functional.fractional_max_pool3d(x[0], 2, output_size=(4, 2, 2)),
    lambda lib, x: lib.nn.functional.fractional_max_pool3d(x[0, 0], 2, output_size=2),
    lambda lib: lib.nn.FractionalMaxPool2d(3),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_ratio=1.5),
    lambda lib: lib.nn.FractionalMaxPool2d(3, output_size=4, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=4),
])
def test_fractional_max_pool_errors_and_edges(call):
    x = np.random.default_rng(0).random((2, 3, 8, 8)).astype(np.float32)
    check(call, *([x] if call.__code__.co_argcount == 2 else []))


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6), return_indices=True), (2, 3, 9, 8)),
    (lambda lib: lib.nn.FractionalMaxPool2d((2, 3), output_size=4), (3, 9, 8)),
    (lambda lib: lib.nn.FractionalMaxPool3d(2, output_ratio=0.5), (1, 2, 6, 5, 6)),
])
def test_fractional_max_pool_modules(make, shape):
    check_module(make, distinct(*shape))
    check_repr(make)
