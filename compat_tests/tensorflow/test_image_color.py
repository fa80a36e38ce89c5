"""tf.image color ops (HSV/YIQ/YUV/grayscale conversions, adjust_hue/saturation, random and stateless-random hue,
saturation, brightness and contrast) against real TF 2.21: values (float32 to the last bits), dtypes, batch
dims, seeded draws, gradients (rgb_to_hsv's, hsv_to_rgb's None, adjust_*'s LookupError) and error kinds."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, real, vtf

RNG = np.random.default_rng(0)
SMOOTH = RNG.uniform(0, 1, (2, 5, 6, 3)).astype(np.float32)
# quantised values: channel ties, grays, blacks and whites exercise every branch of the kernels
TIES = (RNG.integers(0, 4, (3, 4, 5, 3)) / 3).astype(np.float32)
BYTES = RNG.integers(0, 256, (2, 4, 5, 3)).astype(np.uint8)
IMAGES = {"smooth": SMOOTH, "ties": TIES, "single": SMOOTH[0], "rank5": TIES.reshape(3, 2, 2, 5, 3)}
EXACT = dict(rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_hsv_round_trip(images, dtype):
    x = IMAGES[images].astype(dtype)
    check(lambda tf: tf.image.rgb_to_hsv(x), **EXACT)
    check(lambda tf: tf.image.hsv_to_rgb(x), **EXACT)
    check(lambda tf: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)), **EXACT)


def test_hsv_one_pixel_and_empty():
    check(lambda tf: tf.image.rgb_to_hsv(np.array([0.2, 0.7, 0.1], np.float32)), **EXACT)
    check(lambda tf: tf.image.hsv_to_rgb(np.array([0.95, 0.5, 0.4], np.float32)), **EXACT)
    check(lambda tf: tf.image.rgb_to_hsv(np.zeros((0, 3), np.float32)))


def test_rgb_to_hsv_gradient_and_hsv_to_rgb_none():
    check_grad(lambda tf, x: tf.image.rgb_to_hsv(x), SMOOTH.astype(np.float64))
    check_grad(lambda tf, x: tf.image.hsv_to_rgb(x), SMOOTH)


@pytest.mark.parametrize("case", [
    lambda tf: tf.image.rgb_to_hsv(np.ones((2, 4), np.float32)),
    lambda tf: tf.image.hsv_to_rgb(np.ones((2, 2), np.float32)),
    lambda tf: tf.image.rgb_to_hsv(np.float32(1)),
    lambda tf: tf.image.rgb_to_hsv(tf.constant(np.ones((2, 3), np.int32))),
    lambda tf: tf.image.hsv_to_rgb(tf.constant(np.ones((2, 3), np.uint8))),
])
def test_hsv_errors(case):
    check(case)


@pytest.mark.parametrize("conversion", ["yiq", "yuv"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_yiq_yuv(conversion, dtype):
    x = SMOOTH.astype(dtype)
    check(lambda tf: getattr(tf.image, f"rgb_to_{conversion}")(x), **EXACT)
    check(lambda tf: getattr(tf.image, f"{conversion}_to_rgb")(x), **EXACT)
    check(lambda tf: getattr(tf.image, f"rgb_to_{conversion}")(x[0, 0, 0]), **EXACT)
    check_grad(lambda tf, y: getattr(tf.image, f"{conversion}_to_rgb")(y), x)


@pytest.mark.parametrize("case", [
    lambda tf: tf.image.rgb_to_yiq(np.ones((2, 4), np.float32)),
    lambda tf: tf.image.rgb_to_yuv(tf.constant(np.ones((2, 3), np.uint8))),
])
def test_yiq_yuv_errors(case):
    check(case)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int32"])
def test_grayscale(dtype):
    x = BYTES.astype(dtype) if dtype in ("uint8", "int32") else SMOOTH.astype(dtype)
    check(lambda tf: tf.image.rgb_to_grayscale(x), **EXACT)
    gray = check(lambda tf: tf.image.rgb_to_grayscale(x))[0].numpy()
    check(lambda tf: tf.image.grayscale_to_rgb(tf.constant(gray)))


def test_grayscale_gradient_and_errors():
    check_grad(lambda tf, x: tf.image.rgb_to_grayscale(x), SMOOTH)
    check(lambda tf: tf.image.rgb_to_grayscale(np.ones((2, 4), np.float32)))
    check(lambda tf: tf.image.grayscale_to_rgb(tf.constant(np.ones((2, 3), np.float32))))
    check(lambda tf: tf.image.grayscale_to_rgb(tf.constant(np.ones((1,), np.float32))))


DELTAS = [-1.0, -0.7, -0.3, 0.0, 0.2, 0.5, 0.9, 1.0]


@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("delta", DELTAS)
def test_adjust_hue(images, delta):
    check(lambda tf: tf.image.adjust_hue(IMAGES[images], delta), **EXACT)


@pytest.mark.parametrize("images", sorted(IMAGES))
@pytest.mark.parametrize("factor", [0.0, 0.3, 1.0, 1.7, 5.0])
def test_adjust_saturation(images, factor):
    check(lambda tf: tf.image.adjust_saturation(IMAGES[images], factor), **EXACT)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64", "bfloat16"])
@pytest.mark.parametrize("op,argument", [("adjust_hue", 0.4), ("adjust_hue", -0.8), ("adjust_saturation", 0.6),
                                         ("adjust_saturation", 2.5)])
def test_adjust_other_dtypes(dtype, op, argument):
    def fn(tf):
        x = tf.constant(BYTES) if dtype in ("uint8", "int32") else tf.constant(SMOOTH)
        return getattr(tf.image, op)(tf.cast(x, dtype) if dtype != "int32" else tf.cast(x, "int32") * 1000, argument)
    check(fn, **EXACT)


def test_adjust_with_tensor_arguments_and_in_function():
    check(lambda tf: tf.image.adjust_hue(SMOOTH, tf.constant(0.25)), **EXACT)
    check(lambda tf: tf.image.adjust_saturation(SMOOTH, tf.constant(0.25)), **EXACT)
    check(lambda tf: tf.function(lambda x: tf.image.adjust_hue(tf.image.adjust_saturation(x, 1.5), 0.3))(SMOOTH),
          **EXACT)


@pytest.mark.parametrize("case", [
    lambda tf: tf.image.adjust_hue(SMOOTH, 1.5),
    lambda tf: tf.image.adjust_hue(SMOOTH, -1.01),
    lambda tf: tf.image.adjust_hue(SMOOTH.astype(np.float16), 0.1),
    lambda tf: tf.image.adjust_saturation(tf.constant(SMOOTH.astype(np.float16)), 0.1),
    lambda tf: tf.image.adjust_hue(SMOOTH[0, 0], 0.1),
    lambda tf: tf.image.adjust_hue(np.ones((2, 2, 4), np.float32), 0.1),
    lambda tf: tf.image.adjust_saturation(np.ones((2, 2, 4), np.float32), 0.1),
    lambda tf: tf.image.adjust_hue(SMOOTH, tf.constant(0.1, tf.float64)),
    lambda tf: tf.image.adjust_hue(SMOOTH, tf.constant([0.1, 0.2])),
    lambda tf: tf.image.adjust_saturation(SMOOTH, tf.constant([0.1, 0.2])),
])
def test_adjust_errors(case):
    check(case)


@pytest.mark.parametrize("op", ["adjust_hue", "adjust_saturation"])
def test_adjust_has_no_gradient(op):
    for lib in (real, vtf):
        x = lib.constant(SMOOTH)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = getattr(lib.image, op)(x, 0.3)
        with pytest.raises(LookupError, match="no entry for"):
            tape.gradient(y, x)


RANDOM_CASES = [
    ("random_hue", dict(max_delta=0.4)),
    ("random_saturation", dict(lower=0.3, upper=1.9)),
    ("random_brightness", dict(max_delta=0.3)),
    ("random_contrast", dict(lower=0.2, upper=1.8)),
]


@pytest.mark.parametrize("op,kwargs", RANDOM_CASES, ids=[c[0] for c in RANDOM_CASES])
@pytest.mark.parametrize("seeds", [(3, 7), (5, None)], ids=str)
def test_random_draws_like_tf(op, kwargs, seeds):
    global_seed, op_seed = seeds

    def fn(tf):
        tf.random.set_seed(global_seed)
        draw = getattr(tf.image, op)
        return [draw(SMOOTH, seed=op_seed, **kwargs), draw(BYTES, seed=op_seed, **kwargs)]
    check(fn, **EXACT)


@pytest.mark.parametrize("op,kwargs", RANDOM_CASES, ids=[c[0] for c in RANDOM_CASES])
@pytest.mark.parametrize("seed", [(1, 2), (7, 0)], ids=str)
def test_stateless_random_draws_like_tf(op, kwargs, seed):
    check(lambda tf: getattr(tf.image, f"stateless_{op}")(SMOOTH, seed=seed, **kwargs), **EXACT)
    check(lambda tf: getattr(tf.image, f"stateless_{op}")(BYTES, seed=seed, **kwargs), **EXACT)


@pytest.mark.parametrize("op,kwargs", [
    ("random_hue", dict(max_delta=0.6)), ("random_hue", dict(max_delta=-0.1)),
    ("random_saturation", dict(lower=0.5, upper=0.5)), ("random_saturation", dict(lower=-0.5, upper=0.2)),
    ("random_brightness", dict(max_delta=-1.0)), ("random_contrast", dict(lower=2.0, upper=1.0)),
])
def test_random_argument_errors(op, kwargs):
    check(lambda tf: getattr(tf.image, op)(SMOOTH, **kwargs))
    check(lambda tf: getattr(tf.image, f"stateless_{op}")(SMOOTH, seed=(1, 2), **kwargs))
