"""tf.keras' legacy layers ThresholdedReLU, RandomHeight, RandomWidth against real TF 2.21's tf.keras
(Keras' ``keras.src.legacy.layers``)."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same

IMAGES = data(2, 6, 5, 3)


@pytest.mark.parametrize("theta", [0.0, 0.5, 1.0])
def test_thresholded_relu_values_config_gradient(theta):
    def fn(lib):
        layer = lib.tf.keras.layers.ThresholdedReLU(theta=theta)
        x = lib.tf.constant(data(3, 4))
        with lib.tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x)
        config = layer.get_config()
        return y, tape.gradient(lib.tf.reduce_sum(y * y), x), config["theta"], config["name"], \
            layer.compute_output_shape((None, 4)), layer.supports_masking

    same(fn)


@pytest.mark.parametrize("theta", [None, -0.1])
def test_thresholded_relu_errors(theta):
    same(lambda lib: lib.tf.keras.layers.ThresholdedReLU(theta=theta))


def test_thresholded_relu_float64_policy_and_model():
    def fn(lib):
        layer = lib.tf.keras.layers.ThresholdedReLU(0.2, dtype="float64")
        model = lib.tf.keras.Sequential([lib.tf.keras.Input((4,)), lib.tf.keras.layers.ThresholdedReLU(0.3)])
        return layer(data(2, 4).astype("float64")), model.predict(data(5, 4), verbose=0)

    same(fn)


@pytest.mark.parametrize("name", ["RandomHeight", "RandomWidth"])
@pytest.mark.parametrize("factor, interpolation", [(0.4, "bilinear"), ((-0.5, 0.6), "nearest"),
                                                   ((0.2, 0.9), "bicubic")])
def test_random_resize_seeded_draws(name, factor, interpolation):
    # (vfw's tf.image.resize lacks "area" and the gaussian/lanczos/mitchellcubic kernels: not tested here)
    def fn(lib):
        layer = getattr(lib.tf.keras.layers, name)(factor, interpolation=interpolation, seed=7)
        # Each call draws a new factor from the layer's SeedGenerator.
        return [layer(IMAGES) for _ in range(3)] + [layer(IMAGES[0])]

    same(fn, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["RandomHeight", "RandomWidth"])
def test_random_resize_global_seed_inference_config_shape(name):
    def fn(lib):
        lib.keras.utils.set_random_seed(11)
        layer = getattr(lib.tf.keras.layers, name)((0.1, 0.8))
        drawn = layer(IMAGES)
        model = lib.tf.keras.Sequential([lib.tf.keras.Input((6, 5, 3)), getattr(lib.tf.keras.layers, name)(0.5)])
        config = layer.get_config()
        return (drawn, layer(IMAGES, training=False), model.predict(IMAGES, verbose=0),
                layer.compute_output_shape((None, 6, 5, 3)), model.output_shape,
                {k: config[k] for k in ("factor", "interpolation", "seed")})

    same(fn, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["RandomHeight", "RandomWidth"])
@pytest.mark.parametrize("factor", [(0.5, 0.2), -1.5, (-1.2, 0.3)])
def test_random_resize_factor_errors(name, factor):
    same(lambda lib: getattr(lib.tf.keras.layers, name)(factor))


def test_random_resize_int_images_keep_compute_dtype():
    def fn(lib):
        layer = lib.tf.keras.layers.RandomWidth(0.5, seed=2)
        return layer(np.arange(2 * 4 * 4 * 1).reshape(2, 4, 4, 1).astype("uint8"))

    same(fn, rtol=1e-5, atol=1e-4)
