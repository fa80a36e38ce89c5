"""Pooling layers (Max/AveragePooling1D/2D/3D, GlobalAverage/GlobalMaxPooling1D/2D/3D) against real Keras 3.15.1:
outputs, gradients, masks, symbolic shapes, configs and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_harness import config_round_trip, error_text, outputs_and_gradients, symbolic

CASES = {
    "max1d": ("MaxPooling1D", dict(), (2, 7, 3)),
    "max1d_first_same": ("MaxPooling1D", dict(pool_size=3, strides=2, padding="same", data_format="channels_first"),
                         (2, 3, 8)),
    "max2d": ("MaxPooling2D", dict(), (2, 6, 6, 3)),
    "max2d_strided_same": ("MaxPooling2D", dict(pool_size=(3, 2), strides=(2, 1), padding="same"), (2, 7, 5, 2)),
    "max2d_first": ("MaxPooling2D", dict(pool_size=2, data_format="channels_first"), (2, 3, 6, 5)),
    "max3d": ("MaxPooling3D", dict(pool_size=2, strides=1), (1, 3, 4, 4, 2)),
    "avg1d": ("AveragePooling1D", dict(pool_size=2), (2, 7, 3)),
    "avg2d_same": ("AveragePooling2D", dict(pool_size=3, strides=2, padding="same"), (2, 7, 7, 3)),
    "avg2d_first": ("AveragePooling2D", dict(pool_size=(2, 3), data_format="channels_first"), (2, 3, 6, 6)),
    "avg3d_same": ("AveragePooling3D", dict(pool_size=2, padding="same"), (1, 3, 5, 4, 2)),
    "gap1d": ("GlobalAveragePooling1D", dict(), (2, 5, 3)),
    "gap1d_first_keepdims": ("GlobalAveragePooling1D", dict(data_format="channels_first", keepdims=True), (2, 3, 5)),
    "gap2d": ("GlobalAveragePooling2D", dict(), (2, 4, 5, 3)),
    "gap3d_first": ("GlobalAveragePooling3D", dict(data_format="channels_first"), (1, 2, 3, 3, 3)),
    "gmp1d": ("GlobalMaxPooling1D", dict(keepdims=True), (2, 5, 3)),
    "gmp2d_first": ("GlobalMaxPooling2D", dict(data_format="channels_first"), (2, 3, 4, 5)),
    "gmp3d": ("GlobalMaxPooling3D", dict(keepdims=True), (1, 3, 3, 3, 2)),
    "alias_maxpool2d": ("MaxPool2D", dict(pool_size=3), (1, 6, 6, 1)),
    "alias_avgpool1d": ("AvgPool1D", dict(pool_size=3, strides=1), (1, 6, 2)),
    "alias_globalavg2d": ("GlobalAvgPool2D", dict(keepdims=True), (1, 3, 3, 2)),
    "alias_globalmax1d": ("GlobalMaxPool1D", dict(), (1, 3, 2)),
    "adaptive_avg1d": ("AdaptiveAveragePooling1D", dict(output_size=3), (2, 5, 3)),
    "adaptive_avg1d_grow": ("AdaptiveAveragePooling1D", dict(output_size=[3]), (2, 2, 3)),
    "adaptive_avg2d": ("AdaptiveAveragePooling2D", dict(output_size=(3, 2)), (2, 7, 7, 2)),
    "adaptive_avg2d_first": ("AdaptiveAveragePooling2D", dict(output_size=2, data_format="channels_first"),
                             (1, 2, 5, 6)),
    "adaptive_avg3d": ("AdaptiveAveragePooling3D", dict(output_size=(2, 3, 1)), (1, 4, 5, 3, 2)),
    "adaptive_max1d_first": ("AdaptiveMaxPooling1D", dict(output_size=4, data_format="channels_first"), (2, 3, 10)),
    "adaptive_max2d": ("AdaptiveMaxPooling2D", dict(output_size=(2, 3)), (2, 5, 7, 2)),
    "adaptive_max3d_first": ("AdaptiveMaxPooling3D", dict(output_size=2, data_format="channels_first"),
                             (1, 2, 3, 4, 5)),
}


def _maker(name, kwargs):
    return lambda lib: getattr(lib.keras.layers, name)(**kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients(case):
    name, kwargs, shape = CASES[case]
    same(lambda lib: outputs_and_gradients(lib, _maker(name, kwargs), data(*shape)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_shapes_and_configs(case):
    name, kwargs, shape = CASES[case]
    first = kwargs.get("data_format") == "channels_first"
    unknown = (shape[1],) + (None,) * (len(shape) - 2) if first else (None,) * (len(shape) - 2) + (shape[-1],)
    if name.startswith("Adaptive"):  # computes from static sizes: only the batch is unknown
        unknown = shape[1:]

    def fn(lib):
        make = _maker(name, kwargs)
        return [symbolic(lib, make, shape[1:]), symbolic(lib, make, unknown), config_round_trip(lib, make)]
    same(fn)


def test_global_average_pooling_1d_mask():
    x = data(2, 4, 3)
    lengths = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)

    def fn(lib):
        keras = lib.keras
        masked = keras.layers.Masking()(x * lengths[:, :, None])
        pooled = keras.layers.GlobalAveragePooling1D()(masked)
        ids = np.array([[1, 2, 0, 0], [3, 1, 2, 0]])
        inputs = keras.Input((4,), dtype="int32")
        embedded = keras.layers.Embedding(4, 3, mask_zero=True)(inputs)
        model = keras.Model(inputs, keras.layers.GlobalAveragePooling1D()(embedded))
        model.set_weights([data(4, 3, seed=1)])
        return [pooled, getattr(pooled, "_keras_mask", None), model(ids)]
    same(fn)


def test_global_average_pooling_1d_mask_argument_and_gradient():
    x = data(2, 5, 3)
    mask = np.array([[True, False, True, True, False], [False, True, True, True, True]])

    def fn(lib):
        layer = lib.keras.layers.GlobalAveragePooling1D(data_format="channels_first", keepdims=True)
        xt = lib.tf.constant(x.transpose(0, 2, 1))
        with lib.tf.GradientTape() as tape:
            tape.watch(xt)
            y = layer(xt, mask=mask)
            loss = lib.tf.reduce_sum(y * y)
        return [y, tape.gradient(loss, xt)]
    same(fn)


def test_in_sequential_model_with_conv():
    x = data(2, 8, 8, 1)

    def fn(lib):
        keras = lib.keras
        model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(2, 3, activation="relu"),
                                  keras.layers.MaxPooling2D(), keras.layers.AveragePooling2D(pool_size=1),
                                  keras.layers.GlobalMaxPooling2D()])
        model.set_weights([data(3, 3, 1, 2, seed=1), data(2, seed=2)])
        return [model(x), model.output_shape]
    same(fn)


ERRORS = {
    "pool_size_zero": lambda lib: lib.keras.layers.MaxPooling2D(pool_size=(0, 2)),
    "pool_size_length": lambda lib: lib.keras.layers.MaxPooling1D(pool_size=(2, 2)),
    "strides_negative": lambda lib: lib.keras.layers.AveragePooling2D(2, strides=-1),
    "data_format": lambda lib: lib.keras.layers.GlobalMaxPooling2D(data_format="nchw"),
    "rank": lambda lib: lib.keras.layers.MaxPooling2D()(np.zeros((2, 4, 4), "float32")),
    "global_rank": lambda lib: lib.keras.layers.GlobalAveragePooling1D()(np.zeros((2, 4, 4, 1), "float32")),
    "too_small_symbolic": lambda lib: lib.keras.layers.MaxPooling2D(3)(lib.keras.Input((2, 5, 1))),
    "bad_padding_symbolic": lambda lib: lib.keras.layers.MaxPooling1D(padding="full")(lib.keras.Input((4, 1))),
    "adaptive_size_1d_length": lambda lib: lib.keras.layers.AdaptiveAveragePooling1D((2, 2)),
    "adaptive_size_1d_type": lambda lib: lib.keras.layers.AdaptiveMaxPooling1D(2.0),
    "adaptive_size_2d": lambda lib: lib.keras.layers.AdaptiveMaxPooling2D((2, 2, 2)),
    "adaptive_size_3d": lambda lib: lib.keras.layers.AdaptiveAveragePooling3D("a"),
    "adaptive_data_format": lambda lib: lib.keras.layers.AdaptiveAveragePooling2D(2, data_format="NHWC"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    real, ours = error_text(REAL, ERRORS[case]), error_text(VFW, ERRORS[case])
    assert real is not None and ours == real
