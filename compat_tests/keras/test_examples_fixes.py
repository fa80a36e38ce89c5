"""Fixes found running shrunken keras.io code examples on vfw, against real Keras 3.15.1: Conv2D/Conv3D route their
convolution through an overridable ``convolution_op`` (the "Customizing the convolution operation of a Conv2D
layer" example standardizes the kernel there), while Conv1D convolves directly and ignores an override, as Keras
does."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same


def _standardized(lib, base):
    ops = lib.keras.ops

    class Standardized(base):
        def convolution_op(self, inputs, kernel):
            mean, var = ops.moments(kernel, axes=list(range(kernel.ndim - 1)), keepdims=True)
            return ops.conv(inputs, (kernel - mean) / ops.sqrt(var + 1e-10), padding=self.padding,
                            strides=list(self.strides), data_format="channels_last")

    return Standardized


CASES = {
    "conv2d": ("Conv2D", dict(filters=3, kernel_size=3, activation="relu"), (2, 6, 6, 2)),
    "conv2d_same_strided": ("Conv2D", dict(filters=2, kernel_size=2, strides=2, padding="same"), (1, 5, 5, 3)),
    "conv3d": ("Conv3D", dict(filters=2, kernel_size=2), (1, 3, 3, 3, 2)),
    "conv1d_ignores_override": ("Conv1D", dict(filters=2, kernel_size=3), (2, 7, 3)),
    "conv1d_causal_ignores_override": ("Conv1D", dict(filters=2, kernel_size=2, padding="causal"), (2, 5, 3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_convolution_op_override_outputs_and_gradients(case):
    class_name, kwargs, shape = CASES[case]
    x = data(*shape, seed=1)

    def fn(lib):
        lib.keras.utils.set_random_seed(4)
        layer = _standardized(lib, getattr(lib.keras.layers, class_name))(**kwargs)
        inputs = lib.tf.constant(x)
        with lib.tf.GradientTape() as tape:
            tape.watch(inputs)
            outputs = layer(inputs)
            loss = lib.tf.reduce_sum(outputs * outputs)
        gradients = tape.gradient(loss, [inputs, *layer.trainable_weights])
        return [outputs, *gradients]

    same(fn)


def test_convolution_op_override_in_a_trained_sequential():
    x = data(8, 6, 6, 1, seed=2)
    y = np.eye(3, dtype="float32")[np.arange(8) % 3]

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(9)
        model = keras.Sequential([keras.Input((6, 6, 1)), _standardized(lib, keras.layers.Conv2D)(4, 3),
                                  keras.layers.Flatten(), keras.layers.Dense(3, activation="softmax")])
        model.compile(loss="categorical_crossentropy", optimizer="adam")
        history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
        return [history.history["loss"], model.predict(x[:2], verbose=0)]

    same(fn)


def test_real_keras_conv1d_ignores_convolution_op():
    """The oracle itself: the override changes Conv2D's output but not Conv1D's (so vfw must do the same)."""
    for lib in (REAL, VFW):
        lib.keras.utils.set_random_seed(4)
        plain = lib.keras.layers.Conv1D(2, 3)
        lib.keras.utils.set_random_seed(4)
        overridden = _standardized(lib, lib.keras.layers.Conv1D)(2, 3)
        x = data(2, 6, 3)
        np.testing.assert_array_equal(np.asarray(plain(x)), np.asarray(overridden(x)))
