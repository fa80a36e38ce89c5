"""Convolutions (F.conv*, F.conv_transpose*, F.conv_tbc, Conv*d, ConvTranspose*d) against real torch."""

import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_init, check_module, check_repr

# (spatial input shape, kernel, keyword arguments)
CONV_CASES = [
    ((9,), (3,), {}),
    ((9,), (2,), {"stride": 2, "padding": 1, "dilation": 2}),
    ((8,), (3,), {"padding": "same", "dilation": 2}),
    ((6, 7), (3, 2), {}),
    ((6, 7), (3, 3), {"stride": (2, 1), "padding": (1, 0)}),
    ((7, 6), (2, 3), {"padding": "same"}),
    ((7, 6), (3, 3), {"padding": "valid", "dilation": (2, 1), "stride": [2]}),
    ((4, 5, 4), (2, 3, 2), {"stride": (1, 2, 1), "padding": 1}),
    ((4, 5, 4), (3, 2, 2), {"padding": "same", "dilation": (1, 2, 1)}),
]


@pytest.mark.parametrize("spatial, kernel, kwargs", CONV_CASES)
@pytest.mark.parametrize("groups, bias", [(1, True), (2, False)])
def test_conv_functional(spatial, kernel, kwargs, groups, bias):
    nd = len(spatial)
    x, w, b = arrays((2, 4) + spatial, (6, 4 // groups) + kernel, (6,))
    fn = f"conv{nd}d"
    args = (x, w, b) if bias else (x, w)
    check_grad(lambda lib, *t: getattr(lib.nn.functional, fn)(*t, groups=groups, **kwargs), *args, rtol=1e-4,
               atol=1e-5)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_unbatched_and_float64(nd):
    x, w = arrays((3,) + (5,) * nd, (2, 3) + (2,) * nd, dtype="float64")
    check_grad(lambda lib, x, w: getattr(lib.nn.functional, f"conv{nd}d")(x, w, stride=2, padding=1), x, w)


@pytest.mark.parametrize("dtype", ["int64", "float16", "bfloat16"])
def test_conv_other_dtypes(dtype):
    x, w = arrays((1, 2, 5, 5), (3, 2, 3, 3), dtype="int64", low=-3, high=3)

    def conv(lib, x, w):
        d = getattr(lib, dtype)
        return lib.nn.functional.conv2d(x.to(d), w.to(d), padding=1)

    check(conv, x, w, rtol=1e-2, atol=1e-2)


def test_depthwise_conv():
    x, w, b = arrays((2, 4, 6, 6), (8, 1, 3, 3), (8,))
    check_grad(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, padding=1, groups=4), x, w, b, rtol=1e-4,
               atol=1e-5)


TRANSPOSE_CASES = [
    ((5,), (3,), {}),
    ((5,), (3,), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((4, 5), (3, 2), {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2), "dilation": 1}),
    ((4, 5), (2, 2), {"stride": 2}),
    ((4, 4), (3, 3), {"dilation": 2, "padding": 2, "output_padding": 1}),
    ((3, 4, 3), (2, 2, 3), {"stride": (2, 1, 2), "padding": (0, 1, 1)}),
]


@pytest.mark.parametrize("spatial, kernel, kwargs", TRANSPOSE_CASES)
@pytest.mark.parametrize("groups, bias", [(1, True), (2, False)])
def test_conv_transpose_functional(spatial, kernel, kwargs, groups, bias):
    nd = len(spatial)
    x, w, b = arrays((2, 4) + spatial, (4, 3) + kernel, (3 * groups,))
    fn = f"conv_transpose{nd}d"
    args = (x, w, b) if bias else (x, w)
    check_grad(lambda lib, *t: getattr(lib.nn.functional, fn)(*t, groups=groups, **kwargs), *args, rtol=1e-4,
               atol=1e-5)


def test_conv_transpose_unbatched():
    x, w = arrays((3, 4, 4), (3, 2, 3, 3), dtype="float64")
    check_grad(lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2), x, w)


def test_conv_tbc():
    x, w, b = arrays((7, 2, 3), (3, 3, 5), (5,))
    check_grad(lambda lib, x, w, b: lib.conv_tbc(x, w, b, 1) if lib.__name__ == "torch" else
               lib.nn.functional.conv_tbc(x, w, b, 1), x, w, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2, dtype=lib.float64)),
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(1, dtype=lib.float64)),
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 2, 2, 2)),
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 1, 5, 5)),
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2)),
    lambda lib: (lib.ones(4, 4), lib.ones(1, 1, 2, 2)),
    lambda lib: (lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), lib.ones(2)),
    lambda lib: (lib.ones(1, 1, 4, 4) > 0, lib.ones(1, 1, 2, 2) > 0),
    lambda lib: ([1.0], lib.ones(1, 1, 2, 2)),
])
def test_conv2d_errors(make):
    check(lambda lib: lib.nn.functional.conv2d(*make(lib)))


@pytest.mark.parametrize("kwargs", [
    {"stride": (1, 2, 3)}, {"stride": 0}, {"padding": -1}, {"padding": "same", "stride": 2}, {"padding": "foo"},
    {"stride": 1.5}, {"groups": 0}, {"dilation": 0}, {"groups": 3},
])
def test_conv2d_argument_errors(kwargs):
    check(lambda lib: lib.nn.functional.conv2d(lib.ones(1, 3, 4, 4), lib.ones(3, 1, 2, 2), **kwargs))


@pytest.mark.parametrize("kwargs", [
    {"output_padding": 2}, {"stride": 2, "output_padding": 2}, {"padding": 3}, {"output_padding": -1},
])
def test_conv_transpose2d_argument_errors(kwargs):
    check(lambda lib: lib.nn.functional.conv_transpose2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 2, 2), **kwargs))


def test_conv_transpose_channel_mismatch():
    check(lambda lib: lib.nn.functional.conv_transpose2d(lib.ones(1, 2, 4, 4), lib.ones(3, 1, 2, 2)))


# -------------------------------------------------------------------------------------------- modules


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kwargs", [
    {},
    {"stride": 2, "padding": 1, "bias": False},
    {"padding": "same", "dilation": 2, "groups": 2},
    {"padding": 1, "padding_mode": "reflect"},
    {"padding": 2, "padding_mode": "replicate", "stride": 2},
    {"padding": "same", "padding_mode": "circular"},
])
def test_conv_modules(nd, kwargs):
    def make(lib):
        return getattr(lib.nn, f"Conv{nd}d")(4, 6, 3, **kwargs)

    spatial = (6, 5, 5)[:nd]
    check_module(make, arrays((2, 4) + spatial), rtol=1e-4, atol=1e-5)
    check_module(make, arrays((4,) + spatial, seed=1), rtol=1e-4, atol=1e-5)
    check_init(make)
    check_repr(make)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kwargs", [
    {},
    {"stride": 2, "padding": 1, "output_padding": 1, "bias": False},
    {"stride": (2, 1, 3)[:1], "groups": 2, "dilation": 2},
])
def test_conv_transpose_modules(nd, kwargs):
    def make(lib):
        return getattr(lib.nn, f"ConvTranspose{nd}d")(4, 6, 3, **kwargs)

    spatial = (4, 3, 3)[:nd]
    check_module(make, arrays((2, 4) + spatial), rtol=1e-4, atol=1e-5)
    check_module(make, arrays((4,) + spatial, seed=1), rtol=1e-4, atol=1e-5)
    check_init(make)
    check_repr(make)


def test_conv_transpose_output_size():
    def make(lib):
        return lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)

    x = arrays((1, 2, 4, 5))
    for size in [(7, 9), (8, 10), [1, 3, 8, 9]]:
        check_module(make, x, call=lambda m, x, size=size: m(x, output_size=size), rtol=1e-4, atol=1e-5)
    for size in [(6, 9), (7,), (9, 9)]:
        check(lambda lib, x, size=size: make(lib)(x, output_size=size), x)


def test_conv_module_dtypes_and_init():
    for dtype in ("float64", "float16"):
        check_init(lambda lib, d=dtype: lib.nn.Conv2d(3, 5, (2, 3), dtype=getattr(lib, d)))
        check_init(lambda lib, d=dtype: lib.nn.ConvTranspose1d(3, 4, 2, groups=1, dtype=getattr(lib, d)))
    check_init(lambda lib: lib.nn.Conv3d(2, 4, 2, groups=2))
    x = arrays((2, 3, 6, 6), dtype="float64")
    check_module(lambda lib: lib.nn.Conv2d(3, 4, 3, dtype=lib.float64), x)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2),
    lambda lib: lib.nn.Conv2d(4, 3, 3, groups=2),
    lambda lib: lib.nn.Conv2d(4, 4, 3, groups=0),
    lambda lib: lib.nn.Conv2d(4, 4, 3, padding="foo"),
    lambda lib: lib.nn.Conv2d(4, 4, 3, padding="same", stride=2),
    lambda lib: lib.nn.Conv2d(4, 4, 3, padding_mode="bar"),
    lambda lib: lib.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
])
def test_conv_module_constructor_errors(make):
    check(lambda lib: make(lib))


def test_conv_module_state_and_wrong_input():
    check(lambda lib: list(lib.nn.Conv2d(2, 3, 2).state_dict()))
    check(lambda lib: list(lib.nn.Conv1d(2, 3, 2, bias=False).state_dict()))
    check(lambda lib: lib.nn.Conv2d(2, 3, 2)(lib.ones(1, 3, 4, 4)))
    check(lambda lib: lib.nn.Conv2d(2, 3, 2)(lib.ones(4, 4)))
    check(lambda lib: lib.nn.Conv2d(2, 3, 2, dtype=lib.float64)(lib.ones(1, 2, 4, 4)))


def test_conv_training_step_matches():
    """A few SGD steps through Conv-ReLU-MaxPool-Conv give torch's parameters."""
    x = arrays((4, 1, 8, 8))

    def train(lib):
        lib.manual_seed(0)
        conv1, conv2 = lib.nn.Conv2d(1, 4, 3), lib.nn.Conv2d(4, 2, 3, padding=1)
        pool = lib.nn.MaxPool2d(2)
        params = list(conv1.parameters()) + list(conv2.parameters())
        inputs = lib.from_numpy(x)
        for _ in range(3):
            for p in params:
                p.grad = None
            loss = (conv2(pool(lib.relu(conv1(inputs)))) ** 2).mean()
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(0.1 * p.grad)
        return [p.detach() for p in params]

    check(train, rtol=1e-4, atol=1e-5)
