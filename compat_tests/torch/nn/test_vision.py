"""Padding, pixel / channel shuffles, fold / unfold, grid_sample and affine_grid against real torch."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from compat_tests.torch.nn.harness import check_module, check_repr

# ------------------------------------------------------------------------------------------------ pad


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [
    ((2, 3, 5), (2, 1)),
    ((3, 5), (1, 3)),
    ((2, 3, 5), (-1, 2)),
    ((2, 3, 5), (2, -1)),
    ((2, 3, 6), (-2, 4)),
    ((2, 3, 5), (4, 0)),
    ((2, 3, 5), (5, 0)),
    ((2, 3, 4, 5), (1, 2, 3, 0)),
    ((3, 4, 5), (2, -1, -1, 3)),
    ((1, 2, 3, 4, 5), (1, 0, 2, 1, 2, 2)),
    ((2, 3, 4, 5), (1, 1)),
    ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1)),
    ((2, 3, 4), (1, 1, 1, 1, 1, 1)),
    ((2, 0, 3), (1, 1)),
])
def test_pad_modes(mode, shape, pad):
    def fn(lib, x):
        return lib.nn.functional.pad(x, pad, mode=mode)

    if check(fn, arrays(shape)) is not None:  # torch accepts the arguments: compare gradients too
        check_grad(fn, arrays(shape))


def test_circular_pad_wrapping_past_the_cropped_size():
    # torch copies the wrap from its own cropped output, which is too short here: it refuses (overlapping memory)
    x = np.arange(1.0, 7.0).reshape(1, 1, 6)
    check(lambda lib, x: lib.nn.functional.pad(x, (-3, 4), mode="circular"), x)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1)),
    lambda lib, x: lib.nn.functional.pad(x, (1,) * 10),
    lambda lib, x: lib.nn.functional.pad(x, (1.0, 1)),
    lambda lib, x: lib.nn.functional.pad(x, (-3, -2)),
    lambda lib, x: lib.nn.functional.pad(x, (-3, -3, 1, 1)),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="foo"),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="reflect", value=2.0),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="reflect", value=0.0),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.pad(x[0, 0], (1, 1, 1, 1), mode="circular"),
    lambda lib, x: lib.nn.functional.pad(x, (), mode="reflect"),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), value=2.5),
    lambda lib, x: lib.nn.functional.pad(x.long(), (1, 1), value=2.5),
    lambda lib, x: lib.nn.functional.pad(x > 0, (1, 1), value=True),
    lambda lib, x: lib.nn.functional.pad(x[0] > 0, (1, 1), mode="reflect"),
    lambda lib, x: lib.nn.functional.pad(x[0] > 0, (1, 1), mode="circular"),
    lambda lib, x: lib.nn.functional.pad(x[0].long(), (2, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.pad(x[0].half(), (2, 1), mode="reflect"),
    lambda lib, x: lib.nn.functional.pad(x[0], (6, 0), mode="circular"),
    lambda lib, x: lib.nn.functional.pad(x[0, :, :, :0], (1, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.pad(x[0, :, :, :0], (1, 1), mode="circular"),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="constant", value=None),
])
def test_pad_errors_and_edges(call):
    check(call, arrays((1, 2, 4, 5)))


PAD_MODULES = [
    (lambda lib: lib.nn.ZeroPad1d(2), (2, 3, 4)),
    (lambda lib: lib.nn.ZeroPad2d((1, 0, 2, -1)), (2, 3, 4)),
    (lambda lib: lib.nn.ZeroPad3d(1), (1, 2, 3, 2, 2)),
    (lambda lib: lib.nn.ConstantPad1d((2, -1), 1.5), (2, 3, 4)),
    (lambda lib: lib.nn.ConstantPad2d(1, -2.0), (3, 4, 4)),
    (lambda lib: lib.nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 3.5), (2, 2, 3, 3)),
    (lambda lib: lib.nn.ReflectionPad1d((2, 1)), (2, 3, 4)),
    (lambda lib: lib.nn.ReflectionPad2d(2), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ReflectionPad3d((1, 0, 1, 2, 0, 1)), (1, 2, 3, 4, 3)),
    (lambda lib: lib.nn.ReplicationPad1d(3), (3, 4)),
    (lambda lib: lib.nn.ReplicationPad2d((0, 2, 3, 1)), (2, 3, 4, 5)),
    (lambda lib: lib.nn.ReplicationPad3d(2), (2, 3, 2, 2)),
    (lambda lib: lib.nn.CircularPad1d((1, 3)), (2, 3, 4)),
    (lambda lib: lib.nn.CircularPad2d(1), (3, 4, 5)),
    (lambda lib: lib.nn.CircularPad3d((1, 1, 0, 2, 1, 0)), (1, 2, 3, 4, 3)),
]


@pytest.mark.parametrize("make, shape", PAD_MODULES)
def test_padding_modules(make, shape):
    check_module(make, arrays(shape))
    check_repr(make)


def test_circular_pad_module_rank_check():
    check(lambda lib, x: lib.nn.CircularPad2d(1)(x), arrays((5, 4)))
    check(lambda lib, x: lib.nn.CircularPad1d(1)(x), arrays((1, 2, 5, 4)))


# ---------------------------------------------------------------------------------- shuffles, fold


@pytest.mark.parametrize("shape, factor", [((2, 8, 2, 3), 2), ((9, 2, 2), 3), ((2, 1, 4, 3, 1, 2), 1),
                                           ((1, 2, 12, 2, 2), 2)])
def test_pixel_shuffle(shape, factor):
    x = arrays(shape)
    check_grad(lambda lib, x: lib.nn.functional.pixel_shuffle(x, factor), x)
    check_module(lambda lib: lib.nn.PixelShuffle(factor), x)
    y = np.ascontiguousarray(np.swapaxes(x, -1, -3))  # spatial dims divisible by the factor
    if y.shape[-1] % factor == 0 and y.shape[-2] % factor == 0:
        check_grad(lambda lib, x: lib.nn.functional.pixel_unshuffle(x, factor), y)
        check_module(lambda lib: lib.nn.PixelUnshuffle(factor), y)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.pixel_shuffle(x, 3),
    lambda lib, x: lib.nn.functional.pixel_shuffle(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.pixel_shuffle(x, 0),
    lambda lib, x: lib.nn.functional.pixel_shuffle(x, 2.0),
    lambda lib, x: lib.nn.functional.pixel_unshuffle(x, 2),
    lambda lib, x: lib.nn.functional.pixel_unshuffle(x, -1),
    lambda lib, x: lib.nn.functional.pixel_shuffle(x.long(), 2),
    lambda lib, x: lib.nn.functional.channel_shuffle(x, 3),
    lambda lib, x: lib.nn.functional.channel_shuffle(x[0, :, :, 0], 2),
    lambda lib, x: lib.nn.functional.channel_shuffle(x, 0),
    lambda lib, x: lib.nn.functional.channel_shuffle(x, 1),
    lambda lib, x: lib.nn.functional.channel_shuffle(x.long(), 4),
])
def test_shuffle_errors_and_edges(call):
    check(call, arrays((2, 8, 2, 1)))


@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 3), ((2, 6, 2, 3), 2), ((1, 8, 2, 1, 2), 4)])
def test_channel_shuffle(shape, groups):
    x = arrays(shape)
    check_grad(lambda lib, x: lib.nn.functional.channel_shuffle(x, groups), x)
    check(lambda lib, x: lib.nn.functional.native_channel_shuffle(x, groups), x)
    check_module(lambda lib: lib.nn.ChannelShuffle(groups), x)
    check_repr(lambda lib: lib.nn.ChannelShuffle(groups))


def test_channel_shuffle_returns_new_memory():
    def write(lib, x):
        y = lib.nn.functional.channel_shuffle(x, 1)
        y.add_(1)
        return x, y

    check(write, arrays((1, 4, 2)))


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 6, 5), {"kernel_size": 2}),
    ((2, 3, 6, 5), {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
    ((3, 5, 5), {"kernel_size": 3, "stride": 2, "padding": (0, 1)}),
    ((0, 2, 4, 4), {"kernel_size": 2}),
])
def test_unfold_and_fold(shape, kwargs):
    x = arrays(shape)
    check_grad(lambda lib, x: lib.nn.functional.unfold(x, **kwargs), x)
    check_module(lambda lib: lib.nn.Unfold(**kwargs), x)
    cols = np.asarray(lib_free_unfold_shape(shape, kwargs))
    y = arrays(tuple(cols), seed=2)
    check_grad(lambda lib, y: lib.nn.functional.fold(y, shape[-2:], **kwargs), y)
    check_module(lambda lib: lib.nn.Fold(shape[-2:], **kwargs), y)
    check_repr(lambda lib: lib.nn.Fold(shape[-2:], **kwargs))
    check_repr(lambda lib: lib.nn.Unfold(**kwargs))


def lib_free_unfold_shape(shape, kwargs):
    """The shape unfold gives for ``shape`` (computed here, independently of both libraries)."""
    def pair(v):
        return v if isinstance(v, tuple) else (v, v)

    k, d = pair(kwargs["kernel_size"]), pair(kwargs.get("dilation", 1))
    p, s = pair(kwargs.get("padding", 0)), pair(kwargs.get("stride", 1))
    blocks = [(n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(shape[-2:], k, d, p, s)]
    return shape[:-3] + (shape[-3] * k[0] * k[1], blocks[0] * blocks[1])


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.unfold(x[0, 0], 2),
    lambda lib, x: lib.nn.functional.unfold(x[None], 2),
    lambda lib, x: lib.nn.functional.unfold(x, 5),
    lambda lib, x: lib.nn.functional.unfold(x, 0),
    lambda lib, x: lib.nn.functional.unfold(x, 2, stride=0),
    lambda lib, x: lib.nn.functional.unfold(x, 2, padding=-1),
    lambda lib, x: lib.nn.functional.unfold(x, 2, dilation=0),
    lambda lib, x: lib.nn.functional.unfold(x, (2, 2, 2)),
    lambda lib, x: lib.nn.functional.unfold(x.long(), 2),
    lambda lib, x: lib.nn.functional.unfold(x > 0, 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 8, 4), (3, 3), 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 8, 4), (4, 3), 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 7, 4)[:, :7], (3, 3), 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(8, 4), 3, 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 1, 8, 4), (3, 3), 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 8, 4), (3, 3, 3), 2),
    lambda lib, x: lib.nn.functional.fold(x.reshape(1, 8, 4).long(), (3, 3), 2),
])
def test_fold_unfold_errors_and_edges(call):
    check(call, arrays((1, 2, 4, 4)))


# ------------------------------------------------------------------------------------ grid sampling


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding_mode, align_corners):
    x = arrays((2, 3, 5, 6))
    grid = arrays((2, 4, 3, 2), seed=1, low=-1.6, high=1.6)
    check_grad(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode, padding_mode, align_corners), x, grid,
               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d(mode, padding_mode):
    x = arrays((1, 2, 3, 4, 5), dtype="float64")
    grid = arrays((1, 2, 3, 2, 3), seed=1, low=-1.4, high=1.4, dtype="float64")
    check_grad(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode, padding_mode, align_corners=True), x,
               grid)


def test_grid_sample_far_reflections_and_default_align():
    x = arrays((1, 2, 3, 4))
    grid = arrays((1, 5, 5, 2), seed=4, low=-7.0, high=7.0)
    check_grad(lambda lib, x, g: lib.nn.functional.grid_sample(x, g, padding_mode="reflection", align_corners=False),
               x, grid, rtol=1e-4, atol=1e-5)

    def default(lib, x, g):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = lib.nn.functional.grid_sample(x, g)
        return y, len(caught)

    check(default, x, grid[:, :2])


@pytest.mark.parametrize("call", [
    lambda lib, x, g: lib.nn.functional.grid_sample(x, g, mode="foo", align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x, g, padding_mode="foo", align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x, g.double(), align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x[0], g[0], align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x, g[..., :1], align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x.expand(2, -1, -1, -1), g, align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x[:, :, None], g[:, None], mode="bicubic", align_corners=False),
    lambda lib, x, g: lib.nn.functional.grid_sample(x[:, :, :0], g, align_corners=False),
])
def test_grid_sample_errors(call):
    check(call, arrays((1, 2, 4, 4)), arrays((1, 3, 3, 2), seed=1, low=-1, high=1))


@pytest.mark.parametrize("size, align_corners", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True), ((2, 1, 1, 3), False),
                                                 ((2, 3, 3, 2, 4), True), ((2, 1, 2, 3, 1), False)])
def test_affine_grid(size, align_corners):
    nd = len(size) - 2
    theta = arrays((2, nd, nd + 1))
    check_grad(lambda lib, t: lib.nn.functional.affine_grid(t, size, align_corners=align_corners), theta)


def test_affine_grid_feeds_grid_sample():
    x, theta = arrays((2, 3, 6, 5)), arrays((2, 2, 3), seed=1, low=-1, high=1)

    def warp(lib, x, t):
        grid = lib.nn.functional.affine_grid(t, (2, 3, 4, 4), align_corners=False)
        return lib.nn.functional.grid_sample(x, grid, align_corners=False)

    check_grad(warp, x, theta, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 4), align_corners=False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 4, 4, 4), align_corners=False),
    lambda lib, t: lib.nn.functional.affine_grid(t, (2, 3, 0, 4), align_corners=False),
    lambda lib, t: lib.nn.functional.affine_grid(t.long(), (2, 3, 4, 4), align_corners=False),
    lambda lib, t: lib.nn.functional.affine_grid(t[0], (2, 3, 4, 4), align_corners=False),
])
def test_affine_grid_errors(call):
    check(call, arrays((2, 2, 3)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", [
    lambda F, x: F.adaptive_avg_pool2d(x, 4),
    lambda F, x: F.adaptive_max_pool2d(x, 4, return_indices=True),
    lambda F, x: F.interpolate(x, scale_factor=2),
    lambda F, x: F.interpolate(x, scale_factor=1.5, mode="bilinear"),
    lambda F, x: F.interpolate(x, size=(4, 9), mode="bicubic", antialias=True),
    lambda F, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
    lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    lambda F, x: F.lp_pool2d(x.abs(), 2, 2),
    lambda F, x: F.fold(F.unfold(x, 2), (6, 6), 2),
    lambda F, x: F.pad(x, (1, 1, 2, 0), mode="reflect"),
    lambda F, x: F.pixel_shuffle(x.repeat(1, 2, 1, 1), 2),
    lambda F, x: F.conv_transpose2d(x, x[:2, :1, :2, :2], stride=2),
    lambda F, x: F.channel_shuffle(x, 2),
])
def test_half_precision(dtype, fn):
    x = arrays((1, 2, 6, 6))
    check(lambda lib, x: fn(lib.nn.functional, x.to(getattr(lib, dtype))), x)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_half_precision_rounds_once(dtype, mode):
    # the engine computes half precision in float32 and rounds the result once; torch rounds every step in
    # the half type, so vfw is compared with torch's float32 result on the same (half) inputs
    x, grid = arrays((1, 2, 6, 6)), arrays((1, 3, 6, 2), seed=1, low=-1, high=1)

    def sample(lib, x, g, low):
        d = getattr(lib, dtype)
        x, g = x.to(d), g.to(d)
        if not low:
            x, g = x.float(), g.float()
        return lib.nn.functional.grid_sample(x, g, mode=mode, align_corners=False).float()

    want = sample(real, real.from_numpy(x), real.from_numpy(grid), False).numpy()
    got = sample(vt, vt.from_numpy(x), vt.from_numpy(grid), True).numpy()
    tol = {"float16": 1e-3, "bfloat16": 1e-2}[dtype]  # the harness tolerances of these dtypes
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
