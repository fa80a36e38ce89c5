"""tf.image metrics, standardization, gamma, transpose, gradients/sobel, crop_and_resize, extract_glimpse and the
stateful random flips/crop, against real TensorFlow (values, dtypes, gradients, errors)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

IMAGES = arrays((2, 16, 17, 3), low=0, high=1)
OTHERS = arrays((2, 16, 17, 3), low=0, high=1, seed=1)
UINT8_IMAGES = (IMAGES * 255).astype(np.uint8)
UINT8_OTHERS = (OTHERS * 255).astype(np.uint8)


@pytest.mark.parametrize("fn", [
    lambda tf, a, b: tf.image.psnr(a, b, 1.0),
    lambda tf, a, b: tf.image.psnr(a[0], b[0], 2.0),
    lambda tf, a, b: tf.image.ssim(a, b, 1.0),
    lambda tf, a, b: tf.image.ssim(a[0], b, 1.0, filter_size=7, filter_sigma=2.0, k1=0.02, k2=0.05),
    lambda tf, a, b: tf.image.ssim(a, b, 1.0, return_index_map=True, filter_size=5),
    lambda tf, a, b: tf.image.per_image_standardization(a),
    lambda tf, a, b: tf.image.per_image_standardization(a[0]),
    lambda tf, a, b: tf.image.adjust_gamma(a, 0.5, 2.0),
    lambda tf, a, b: tf.image.adjust_gamma(a[0] * 0.5, 2),
    lambda tf, a, b: tf.image.transpose(a),
    lambda tf, a, b: tf.image.transpose(a[0]),
    lambda tf, a, b: tf.image.image_gradients(a),
    lambda tf, a, b: tf.image.sobel_edges(a),
], ids=["psnr", "psnr_3d", "ssim", "ssim_options", "ssim_map", "standardize", "standardize_3d", "gamma",
        "gamma_3d", "transpose", "transpose_3d", "image_gradients", "sobel"])
def test_float_images_and_gradients(fn):
    check_grad(fn, IMAGES, OTHERS)


def test_ssim_multiscale_values_and_gradients():
    first = arrays((1, 180, 181, 2), low=0, high=1)
    second = (first + arrays((1, 180, 181, 2), seed=3, low=0, high=0.2)).astype(np.float32)
    check_grad(lambda tf, a, b: tf.image.ssim_multiscale(a, b, 1.0), first, second, rtol=1e-4)
    check(lambda tf, a, b: tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.5, 0.5), filter_size=5), first[0],
          second[0], rtol=1e-4)


@pytest.mark.parametrize("fn", [
    lambda tf, a, b: tf.image.psnr(a, b, 255),
    lambda tf, a, b: tf.image.ssim(a, b, 255),
    lambda tf, a, b: tf.image.ssim_multiscale(a, b, 255, power_factors=(0.7, 0.3), filter_size=3),
    lambda tf, a, b: tf.image.adjust_gamma(a, 0.7),
    lambda tf, a, b: tf.image.adjust_gamma(tf.cast(a, tf.int32), 1.5, 0.8),
    lambda tf, a, b: tf.image.adjust_gamma(tf.cast(a, tf.float64) / 255, 1.5),
    lambda tf, a, b: tf.image.adjust_gamma(tf.cast(a, tf.float16) / 255, 1.5),
    lambda tf, a, b: tf.image.per_image_standardization(a),
    lambda tf, a, b: tf.image.per_image_standardization(tf.cast(a, tf.float64)),
    lambda tf, a, b: tf.image.transpose(a),
    lambda tf, a, b: tf.image.image_gradients(a),
], ids=["psnr", "ssim", "ssim_multiscale", "gamma", "gamma_int32", "gamma_float64", "gamma_float16", "standardize",
        "standardize_float64", "transpose", "image_gradients"])
def test_integer_and_other_dtypes(fn):
    check(fn, UINT8_IMAGES, UINT8_OTHERS)


@pytest.mark.parametrize("fn", [
    lambda tf, a: tf.image.adjust_gamma(a, -1.0),
    lambda tf, a: tf.image.adjust_gamma(a, tf.constant(-1.0)),
    lambda tf, a: tf.image.transpose(a[0, 0]),
    lambda tf, a: tf.image.transpose(a[None]),
    lambda tf, a: tf.image.per_image_standardization(a[0, 0]),
    lambda tf, a: tf.image.image_gradients(a[0]),
    lambda tf, a: tf.image.psnr(a[0, 0], a[0, 0], 1.0),
    lambda tf, a: tf.image.psnr(a, a[:, :3], 1.0),
    lambda tf, a: tf.image.ssim(a[:, :5], a[:, :5], 1.0),
    lambda tf, a: tf.image.ssim(a[0, 0], a[0, 0], 1.0),
    lambda tf, a: tf.image.ssim(a, a[:, :12], 1.0),
    lambda tf, a: tf.image.ssim(a, tf.concat([a, a, a], 0), 1.0),
    lambda tf, a: tf.image.sobel_edges(tf.cast(a, tf.int32)),
    lambda tf, a: tf.image.random_crop(a, [1, 20, 3, 3]),
], ids=["gamma_negative", "gamma_negative_tensor", "transpose_2d", "transpose_5d", "standardize_2d",
        "image_gradients_3d", "psnr_2d", "psnr_mismatch", "ssim_small", "ssim_2d", "ssim_mismatch",
        "ssim_batch_mismatch", "sobel_int", "random_crop_too_big"])
def test_errors(fn):
    check(fn, IMAGES)


def test_random_ops_replay_tf_seeds():
    def draws(tf, a):
        tf.random.set_seed(5)
        return [tf.image.random_flip_left_right(a, seed=3), tf.image.random_flip_up_down(a),
                tf.image.random_flip_left_right(a[0]), tf.image.random_flip_up_down(a[1], seed=9),
                tf.image.random_crop(a, [1, 5, 6, 3], seed=2), tf.image.random_crop(a, [1, 5, 6, 3]),
                tf.image.random_crop(a[0], [16, 3, 2], seed=2)]

    check(draws, IMAGES)
    check(draws, UINT8_IMAGES)
    check(lambda tf, a: [tf.random.set_seed(11), [tf.image.random_flip_left_right(a, seed=1) for _ in range(6)]][1],
          IMAGES[:, :2, :3])


BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 1.3, 0.6], [0.9, 0.8, 0.1, 0.05], [0.5, 0.5, 0.5, 0.5],
                  [0.0, 0.0, 1.0, 1.0]], np.float32)
BOX_INDICES = np.array([0, 1, 1, 0, 1], np.int32)
CROP_IMAGES = arrays((2, 6, 7, 3))


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("crop_size", [(3, 4), (1, 5), (5, 1), (8, 9)])
def test_crop_and_resize_values_and_gradients(method, crop_size):
    check_grad(lambda tf, i, b: tf.image.crop_and_resize(i, b, BOX_INDICES, crop_size, method=method,
                                                         extrapolation_value=-1.5), CROP_IMAGES, BOXES)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float16", "float64"])
def test_crop_and_resize_dtypes(dtype):
    images = (np.abs(CROP_IMAGES) * 50).astype(dtype)
    check_grad(lambda tf, i, b: tf.image.crop_and_resize(i, b, BOX_INDICES, [3, 3]), images, BOXES,
               rtol=1e-3 if dtype == "float16" else 1e-5, atol=1e-3 if dtype == "float16" else 1e-6)


@pytest.mark.parametrize("fn", [
    lambda tf, i, b: tf.image.crop_and_resize(i, b, [0, 1, 2, 0, 0], [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, b, [0, 1, -1, 0, 0], [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, b, BOX_INDICES, [0, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i[0], b, BOX_INDICES, [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, tf.cast(b, tf.float64), BOX_INDICES, [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, b[:, :3], BOX_INDICES, [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, b, BOX_INDICES[:2], [2, 2]),
    lambda tf, i, b: tf.image.crop_and_resize(i, b, BOX_INDICES, [2, 2], method="bicubic"),
    lambda tf, i, b: tf.image.crop_and_resize(tf.cast(i, tf.bool), b, BOX_INDICES, [2, 2]),
], ids=["index_high", "index_negative", "crop_zero", "image_3d", "boxes_float64", "boxes_3_columns",
        "indices_length", "method", "bool_image"])
def test_crop_and_resize_errors(fn):
    check(fn, CROP_IMAGES, BOXES)


GLIMPSE_IMAGES = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2)


@pytest.mark.parametrize("centered", [True, False])
@pytest.mark.parametrize("normalized", [True, False])
def test_extract_glimpse_windows(centered, normalized):
    for offset in ([0.0, 0.0], [0.1, -0.1], [0.3, 0.45], [-0.3, -0.45], [1.5, 1.5], [0.7, 0.9], [-1.7, 2.6]):
        for size in [(2, 3), (3, 2), (1, 1), (7, 8)]:
            check(lambda tf, a, s=size, o=offset: tf.image.extract_glimpse(
                a, s, [o, [0.2, 0.3]], centered=centered, normalized=normalized, noise="zero"), GLIMPSE_IMAGES)


@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_extract_glimpse_noise_within_image_range(noise):
    # the fill outside the image is random (not TF's draws): the window inside, and the fill's range, must match
    glimpse = vtf.image.extract_glimpse(GLIMPSE_IMAGES, (4, 4), [[-2.0, -2.0], [1.0, 3.0]], centered=False,
                                        normalized=False, noise=noise).numpy()
    np.testing.assert_array_equal(glimpse[0, 2:, 2:], GLIMPSE_IMAGES[0, :2, :2])
    assert glimpse[0].min() >= GLIMPSE_IMAGES[0].min() and glimpse[0].max() <= GLIMPSE_IMAGES[0].max()


@pytest.mark.parametrize("fn", [
    lambda tf, a: tf.image.extract_glimpse(a, (2, 2), [[0.0, 0.0]] * 2, noise="salt"),
    lambda tf, a: tf.image.extract_glimpse(tf.cast(a, tf.float64), (2, 2), [[0.0, 0.0]] * 2),
    lambda tf, a: tf.image.extract_glimpse(a, (0, 2), [[0.0, 0.0]] * 2, noise="zero"),
], ids=["noise", "float64", "empty"])
def test_extract_glimpse_edge_cases(fn):
    check(fn, GLIMPSE_IMAGES)


def test_extract_glimpse_has_no_gradient():
    images = vtf.constant(GLIMPSE_IMAGES)
    with vtf.GradientTape() as tape:
        tape.watch(images)
        glimpse = vtf.image.extract_glimpse(images, (2, 2), [[0.0, 0.0]] * 2)
    assert tape.gradient(glimpse, images) is None


def test_inside_tf_function_and_dataset_map():
    def pipeline(tf, images, boxes):
        @tf.function
        def metrics(a, b):
            return tf.image.ssim(a, b, 1.0), tf.image.psnr(a, b, 1.0), tf.image.crop_and_resize(
                a, boxes, [0, 1, 1, 0, 1], [3, 3])

        mapped = tf.data.Dataset.from_tensor_slices(images).map(
            lambda image: (tf.image.per_image_standardization(image), tf.image.transpose(image),
                           tf.image.adjust_gamma(image, 0.5)))
        return metrics(images, images[::-1] * 0.5), [list(item) for item in mapped]

    check(pipeline, IMAGES, BOXES)


@pytest.mark.parametrize("make", [
    lambda tf: tf.ragged.constant([[1], [2, 3]]),
    lambda tf: tf.sparse.from_dense([[1, 0]]),
    lambda tf: tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])),
    lambda tf: np.array(1),
    lambda tf: [1.0],
], ids=["ragged", "sparse", "indexed_slices", "ndarray", "list"])
def test_is_tensor(make):
    assert vtf.is_tensor(make(vtf)) == real.is_tensor(make(real))
