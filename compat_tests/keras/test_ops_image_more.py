"""keras.ops.image transforms, patches and filters against real Keras 3.15.1 on TF: eager, on keras.Input
(functional models) and inside tf.function."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
tensorflow = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402

from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402

_RNG = np.random.default_rng(0)
IMAGES = _RNG.uniform(0, 1, (2, 9, 11, 3)).astype("float32")
OTHER = np.clip(IMAGES + _RNG.normal(0, 0.1, IMAGES.shape), 0, 1).astype("float32")
BIG = _RNG.uniform(0, 1, (2, 16, 14, 3)).astype("float32")
BIG_OTHER = np.clip(BIG + _RNG.normal(0, 0.1, BIG.shape), 0, 1).astype("float32")
VOLUMES = _RNG.uniform(0, 1, (2, 6, 7, 8, 2)).astype("float32")
TRANSFORM = np.array([1.1, 0.2, -1.0, 0.1, 0.9, 0.5, 0.01, 0.002], "float32")
START = np.array([[0, 0], [10, 0], [0, 8], [10, 8]], "float32")
END = START + _RNG.uniform(-1, 1, (4, 2)).astype("float32")
COORDINATES = _RNG.uniform(-3, 12, (2, 5, 6)).astype("float32")


def _same(call, rtol=1e-5, atol=1e-5):
    """``call(keras module)`` in real Keras and vfw: same values, shape and dtype, or the same exception type."""
    try:
        want = call(keras)
    except Exception as error:  # noqa: BLE001 - the oracle's exception type is what vfw must raise
        with pytest.raises(Exception) as raised:
            call(vkeras)
        assert type(raised.value).__name__ == type(error).__name__, raised.value
        return
    got = call(vkeras)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


CASES = {
    "affine_constant": lambda k: k.ops.image.affine_transform(IMAGES, TRANSFORM, fill_value=0.3),
    "affine_nearest_wrap": lambda k: k.ops.image.affine_transform(IMAGES, TRANSFORM[None], "nearest", "wrap"),
    "affine_reflect_single_cf": lambda k: k.ops.image.affine_transform(IMAGES[0], TRANSFORM, fill_mode="reflect",
                                                                       data_format="channels_first"),
    "affine_nearest_fill": lambda k: k.ops.image.affine_transform(IMAGES, np.stack([TRANSFORM, TRANSFORM * 0.9]),
                                                                  fill_mode="nearest"),
    "perspective": lambda k: k.ops.image.perspective_transform(IMAGES, START, END, fill_value=0.5),
    "perspective_nearest_cf": lambda k: k.ops.image.perspective_transform(IMAGES[0], START[None], END[None],
                                                                          "nearest", data_format="channels_first"),
    "elastic": lambda k: k.ops.image.elastic_transform(IMAGES, seed=3),
    "elastic_single_cf": lambda k: k.ops.image.elastic_transform(IMAGES[0], 5.0, 2.0, fill_mode="constant", seed=7,
                                                                 data_format="channels_first"),
    "elastic_nearest_wrap": lambda k: k.ops.image.elastic_transform(IMAGES, 30.0, 1.5, "nearest", "wrap", seed=11),
    "crop": lambda k: k.ops.image.crop_images(IMAGES, 1, 2, target_height=5, right_cropping=3),
    "crop_cf": lambda k: k.ops.image.crop_images(IMAGES[0], bottom_cropping=1, left_cropping=2, target_height=2,
                                                 target_width=7, data_format="channels_first"),
    "pad": lambda k: k.ops.image.pad_images(IMAGES, 1, 2, bottom_padding=0, target_width=15),
    "pad_cf": lambda k: k.ops.image.pad_images(IMAGES[0], 1, 2, target_height=15, right_padding=3,
                                               data_format="channels_first"),
    "patches_same": lambda k: k.ops.image.extract_patches(IMAGES, (3, 2), strides=(2, 3), padding="same"),
    "patches_dilated": lambda k: k.ops.image.extract_patches(IMAGES[0], 3, strides=1, dilation_rate=2),
    "patches_cf": lambda k: k.ops.image.extract_patches(IMAGES, 2, data_format="channels_first"),
    "patches_3d": lambda k: k.ops.image.extract_patches_3d(VOLUMES, 2, strides=(1, 2, 3)),
    "patches_3d_same": lambda k: k.ops.image.extract_patches_3d(VOLUMES[0], (2, 3, 2), padding="same"),
    "patches_via_3_sizes_cf": lambda k: k.ops.image.extract_patches(VOLUMES[0], (2, 3, 2),
                                                                    data_format="channels_first"),
    "blur": lambda k: k.ops.image.gaussian_blur(IMAGES, (3, 5), (0.7, 1.8)),
    "blur_single_cf": lambda k: k.ops.image.gaussian_blur(IMAGES[0], data_format="channels_first"),
    "sobel": lambda k: k.ops.image.sobel_edges(IMAGES),
    "sobel_cf": lambda k: k.ops.image.sobel_edges(IMAGES, data_format="channels_first"),
    "ssim": lambda k: k.ops.image.ssim(BIG, BIG_OTHER),
    "ssim_single": lambda k: k.ops.image.ssim(BIG[0], BIG_OTHER[0], filter_size=5, filter_sigma=0.8, k1=0.02),
    "ssim_uint8": lambda k: k.ops.image.ssim((BIG * 255).astype("uint8"), (BIG_OTHER * 255).astype("uint8"),
                                             max_val=255.0),
    "ssim_cf": lambda k: k.ops.image.ssim(BIG.transpose(0, 3, 1, 2), BIG_OTHER.transpose(0, 3, 1, 2), filter_size=7,
                                          data_format="channels_first"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager(case):
    _same(CASES[case])


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates(fill_mode, order):
    _same(lambda k: k.ops.image.map_coordinates(IMAGES[0, :, :, 0], COORDINATES, order, fill_mode, 0.5))


def test_map_coordinates_3d_and_integers():
    coordinates = np.stack([_RNG.uniform(-1, 3, (4, 5)), _RNG.uniform(-2, 10, (4, 5)),
                            _RNG.uniform(0, 11, (4, 5))]).astype("float32")
    _same(lambda k: k.ops.image.map_coordinates(IMAGES[..., 0], coordinates, 1, "reflect"))
    _same(lambda k: k.ops.image.map_coordinates((IMAGES[0, :, :, 0] * 200).astype("int32"), COORDINATES, 1))


@pytest.mark.parametrize("method", ["linear", "bilinear", "bicubic", "tricubic", "lanczos3", "lanczos5"])
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate(method, antialias):
    _same(lambda k: k.ops.image.scale_and_translate(IMAGES, (2, 5, 17, 3), [0.6, 1.5], [0.3, -1.0], (1, 2), method,
                                                    antialias=antialias))


def test_scale_and_translate_3d_and_integer_images():
    _same(lambda k: k.ops.image.scale_and_translate(VOLUMES, (2, 4, 7, 12, 2), [0.7, 1.0, 1.4], [0.0, 0.5, 1.0],
                                                    (-4, -3, -2), "cubic"))
    _same(lambda k: k.ops.image.scale_and_translate((IMAGES * 255).astype("uint8"), (2, 5, 17, 3), [0.6, 1.5],
                                                    [0.3, -1.0], (1, 2), "bicubic"))


ERRORS = [
    lambda k: k.ops.image.affine_transform(IMAGES, TRANSFORM, interpolation="bicubic"),
    lambda k: k.ops.image.affine_transform(IMAGES, TRANSFORM, fill_mode="mirror"),
    lambda k: k.ops.image.affine_transform(IMAGES[0, 0], TRANSFORM),
    lambda k: k.ops.image.affine_transform(IMAGES, TRANSFORM[None, None]),
    lambda k: k.ops.image.perspective_transform(IMAGES, START[:3], END[:3]),
    lambda k: k.ops.image.perspective_transform(IMAGES, START, END[None]),
    lambda k: k.ops.image.map_coordinates(IMAGES, COORDINATES, 1),
    lambda k: k.ops.image.map_coordinates(IMAGES[0, :, :, 0], COORDINATES, 1, "bad"),
    lambda k: k.ops.image.map_coordinates(IMAGES[0, :, :, 0], COORDINATES, 3),
    lambda k: k.ops.image.elastic_transform(IMAGES, interpolation="bicubic"),
    lambda k: k.ops.image.scale_and_translate(IMAGES, (2, 5, 5, 3), [1.0, 1.0], [0.0, 0.0], (1, 2), "area"),
    lambda k: k.ops.image.crop_images(IMAGES, 1, 1, 1, 1, 3, None),
    lambda k: k.ops.image.crop_images(IMAGES, -1, 1, target_height=3, target_width=3),
    lambda k: k.ops.image.crop_images(IMAGES, 1, 1, target_height=30, target_width=3),
    lambda k: k.ops.image.pad_images(IMAGES, 1, 1, target_height=3, target_width=30),
    lambda k: k.ops.image.pad_images(IMAGES[0, 0], 1, 1, 1, 1),
    lambda k: k.ops.image.extract_patches(IMAGES, "3"),
    lambda k: k.ops.image.extract_patches(IMAGES, (1, 2, 3, 4)),
    lambda k: k.ops.image.extract_patches_3d(VOLUMES, 2, strides=(1, 2)),
    lambda k: k.ops.image.gaussian_blur(IMAGES[0, 0]),
    lambda k: k.ops.image.ssim(IMAGES[0, 0], OTHER[0, 0]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    _same(ERRORS[index])


SYMBOLIC = {
    "affine": (lambda k, x: k.ops.image.affine_transform(x, TRANSFORM), IMAGES),
    "perspective": (lambda k, x: k.ops.image.perspective_transform(x, START, END), IMAGES),
    "crop": (lambda k, x: k.ops.image.crop_images(x, 1, 2, 3, 4), IMAGES),
    "pad": (lambda k, x: k.ops.image.pad_images(x, 1, 2, 3, 4), IMAGES),
    "patches": (lambda k, x: k.ops.image.extract_patches(x, 3, padding="same"), IMAGES),
    "patches_3d": (lambda k, x: k.ops.image.extract_patches_3d(x, 2), VOLUMES),
    "blur": (lambda k, x: k.ops.image.gaussian_blur(x, (5, 5), (1.5, 0.5)), IMAGES),
    "sobel": (lambda k, x: k.ops.image.sobel_edges(x), IMAGES),
    "ssim": (lambda k, x: k.ops.image.ssim(x, x * 0.9), BIG),
    "elastic": (lambda k, x: k.ops.image.elastic_transform(x, seed=5), IMAGES),
    "map_coordinates": (lambda k, x: k.ops.image.map_coordinates(x[0, :, :, 0], COORDINATES, 1), IMAGES),
    "scale_and_translate": (lambda k, x: k.ops.image.scale_and_translate(x, (2, 4, 6, 3), [0.5, 0.5], [0.0, 0.0],
                                                                        (1, 2), "linear"), IMAGES),
}


@pytest.mark.parametrize("case", sorted(SYMBOLIC))
def test_functional_model(case):
    """On keras.Input: the output shape Keras infers, and a Functional model computing Keras' values."""
    call, data = SYMBOLIC[case]
    batch = None if case not in ("map_coordinates", "scale_and_translate", "elastic") else data.shape[0]

    def run(k):
        inputs = k.Input(data.shape[1:], batch_size=batch)
        outputs = call(k, inputs)
        return tuple(outputs.shape), k.Model(inputs, outputs)(data)

    want_shape, want = run(keras)
    got_shape, got = run(vkeras)
    assert got_shape == want_shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(SYMBOLIC))
def test_tf_function(case):
    call, data = SYMBOLIC[case]
    want = tensorflow.function(lambda x: call(keras, x))(tensorflow.constant(data))
    got = vtf.function(lambda x: call(vkeras, x))(vtf.constant(data))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
