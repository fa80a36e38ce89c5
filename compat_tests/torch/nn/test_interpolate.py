"""F.interpolate, the deprecated F.upsample* and the Upsample modules against real torch."""

import warnings

import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_module, check_repr

SIZE_CASES = [
    {"size": 7}, {"size": 3}, {"scale_factor": 2}, {"scale_factor": 1.7}, {"scale_factor": 0.7},
    {"scale_factor": 0.35}, {"scale_factor": 1.55, "recompute_scale_factor": True}, {"scale_factor": 3.0},
    {"scale_factor": 1.0}, {"size": 10}, {"size": 1},
]


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("kwargs", SIZE_CASES)
def test_nearest(mode, kwargs):
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode=mode, **kwargs), arrays((2, 3, 5)))
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode=mode, **kwargs), arrays((1, 2, 4, 6)))


def test_nearest_index_rounding_at_exact_boundaries():
    # sizes whose ratios are exact integers in real arithmetic but not in float32
    for n_in, n_out in [(10, 6), (7, 21), (9, 15), (13, 39), (5, 3), (100, 30), (30, 100)]:
        x = arrays((1, 1, n_in), seed=n_in)
        for mode in ("nearest", "nearest-exact"):
            check(lambda lib, x, m=mode, o=n_out: lib.nn.functional.interpolate(x, size=o, mode=m), x)
            check(lambda lib, x, m=mode, f=n_out / n_in: lib.nn.functional.interpolate(x, scale_factor=f, mode=m), x)


@pytest.mark.parametrize("mode, shape", [("linear", (2, 3, 5)), ("bilinear", (1, 2, 4, 6)),
                                         ("bicubic", (1, 2, 5, 4)), ("trilinear", (1, 2, 3, 4, 3))])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("kwargs", SIZE_CASES[:8])
def test_linear_modes(mode, shape, align_corners, kwargs):
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode=mode, align_corners=align_corners, **kwargs),
               arrays(shape), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kwargs", [{"scale_factor": 0.45}, {"size": (3, 4)}, {"size": (2, 9)},
                                    {"scale_factor": (0.3, 1.6)}, {"size": (12, 13)}])
@pytest.mark.parametrize("align_corners", [False, True])
def test_antialias(mode, kwargs, align_corners):
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode=mode, antialias=True, align_corners=align_corners,
                                                            **kwargs), arrays((1, 2, 9, 8)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", [{"size": 4}, {"size": (3, 5)}, {"scale_factor": 0.6}, {"size": 9},
                                    {"scale_factor": (0.5, 2)}])
def test_area(kwargs):
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode="area", **kwargs), arrays((2, 3, 7, 6)))
    check_grad(lambda lib, x: lib.nn.functional.interpolate(x, mode="area", size=4), arrays((2, 3, 9)))


@pytest.mark.parametrize("dtype, mode", [("float16", "bilinear"), ("float64", "bicubic"), ("uint8", "nearest"),
                                         ("float16", "nearest-exact"), ("float64", "trilinear")])
def test_interpolate_dtypes(dtype, mode):
    shape = (1, 2, 4, 5, 3) if mode == "trilinear" else (1, 2, 4, 5)
    x = arrays(shape, low=0, high=200)

    def fn(lib, x):
        return lib.nn.functional.interpolate(x.to(getattr(lib, dtype)), scale_factor=1.5, mode=mode)

    check(fn, x)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kwargs", [
    {"scale_factor": 0.45, "antialias": True}, {"size": (5, 7), "antialias": True}, {"scale_factor": 1.7},
    {"scale_factor": 1.3, "align_corners": True}, {"size": (9, 20), "align_corners": True},
    {"size": (40, 3), "antialias": True, "align_corners": True}, {"scale_factor": (2.5, 0.3)},
])
def test_uint8_images_resize_in_torchs_fixed_point(mode, kwargs):
    x = arrays((2, 3, 17, 13), low=0, high=255)
    check(lambda lib, x: lib.nn.functional.interpolate(x.to(lib.uint8), mode=mode, **kwargs), x)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.interpolate(x.byte(), size=3, mode="linear"),
    lambda lib, x: lib.nn.functional.interpolate(x[None].byte(), size=3, mode="trilinear"),
    lambda lib, x: lib.nn.functional.interpolate(x.half(), size=3, mode="bicubic", antialias=True),
    lambda lib, x: lib.nn.functional.interpolate(x.byte(), size=3, mode="area"),
    lambda lib, x: lib.nn.functional.interpolate(x.to(lib.int8), size=3),
    lambda lib, x: lib.nn.functional.interpolate(x, size=0),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=0.1),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=-1.0),
    lambda lib, x: lib.nn.functional.interpolate(x.long(), scale_factor=2),
    lambda lib, x: lib.nn.functional.interpolate(x.long(), scale_factor=2, mode="bilinear"),
    lambda lib, x: lib.nn.functional.interpolate(x > 0, scale_factor=2),
    lambda lib, x: lib.nn.functional.interpolate(x[0, 0], scale_factor=2),
    lambda lib, x: lib.nn.functional.interpolate(x.long(), size=2, mode="area"),
    lambda lib, x: lib.nn.functional.interpolate(x, size=2, mode="foo"),
    lambda lib, x: lib.nn.functional.interpolate(x, size=2, align_corners=True),
    lambda lib, x: lib.nn.functional.interpolate(x, size=[2.0, 2]),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=[2]),
    lambda lib, x: lib.nn.functional.interpolate(x, size=[2]),
    lambda lib, x: lib.nn.functional.interpolate(x, size=2, scale_factor=2),
    lambda lib, x: lib.nn.functional.interpolate(x),
    lambda lib, x: lib.nn.functional.interpolate(x, size=3, recompute_scale_factor=True),
    lambda lib, x: lib.nn.functional.interpolate(x[0], scale_factor=0.5, mode="linear", antialias=True),
    lambda lib, x: lib.nn.functional.interpolate(x[0], scale_factor=2, mode="bilinear"),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="linear"),
    lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="trilinear"),
    lambda lib, x: lib.nn.functional.interpolate(x[None], scale_factor=2, mode="bicubic"),
    lambda lib, x: lib.nn.functional.interpolate(x, size=(3, 5), mode="nearest-exact"),
])
def test_interpolate_errors_and_edges(call):
    check(call, arrays((1, 2, 4, 4)))


def test_deprecated_upsample_functions_warn():
    x = arrays((1, 2, 3, 4))

    def run(lib, x):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ys = (lib.nn.functional.upsample(x, scale_factor=2, mode="bilinear", align_corners=False),
                  lib.nn.functional.upsample_nearest(x, size=(5, 7)),
                  lib.nn.functional.upsample_bilinear(x, scale_factor=1.5))
        return ys, [str(w.message) for w in caught]

    check(run, x)


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.Upsample(scale_factor=2), (2, 3, 4)),
    (lambda lib: lib.nn.Upsample(size=(5, 7), mode="bilinear"), (1, 2, 3, 4)),
    (lambda lib: lib.nn.Upsample(scale_factor=(1.5, 2.0), mode="bicubic", align_corners=True), (1, 2, 3, 4)),
    (lambda lib: lib.nn.Upsample(scale_factor=1.7, mode="trilinear", recompute_scale_factor=True), (1, 1, 2, 3, 4)),
    (lambda lib: lib.nn.Upsample(size=3, mode="area"), (1, 2, 5, 7)),
    (lambda lib: lib.nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 4)),
    (lambda lib: lib.nn.UpsamplingBilinear2d(size=(4, 6)), (1, 2, 3, 4)),
])
def test_upsample_modules(make, shape):
    check_module(make, arrays(shape), rtol=1e-4, atol=1e-5)
    check_repr(make)
    check(lambda lib: (make(lib).name, make(lib).scale_factor, make(lib).align_corners))
