"""Activation layers (Activation, ReLU, LeakyReLU, PReLU, ELU, Softmax) against real Keras 3.15.1: outputs, gradients
(at and around kinks), PReLU weights, Softmax masks, symbolic shapes, configs and errors."""

import warnings

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_harness import (
    config_round_trip,
    error_text,
    outputs_and_gradients,
    random_weights,
    seeded_initial_weights,
    symbolic,
)

CASES = {
    "activation_tanh": ("Activation", dict(activation="tanh"), (2, 5)),
    "activation_callable": ("Activation", dict(activation=None), (2, 5)),
    "activation_softmax": ("Activation", dict(activation="softmax"), (2, 3, 4)),
    "relu": ("ReLU", dict(), (2, 6)),
    "relu_all_options": ("ReLU", dict(max_value=1.0, negative_slope=0.1, threshold=0.2), (3, 6)),
    "relu_max6": ("ReLU", dict(max_value=6.0), (2, 6)),
    "relu_threshold": ("ReLU", dict(threshold=0.5), (2, 6)),
    "relu_slope": ("ReLU", dict(negative_slope=0.2), (2, 6)),
    "leaky_relu": ("LeakyReLU", dict(), (2, 6)),
    "leaky_relu_slope": ("LeakyReLU", dict(negative_slope=0.05), (2, 3, 2)),
    "elu": ("ELU", dict(), (2, 6)),
    "elu_alpha": ("ELU", dict(alpha=0.5), (2, 6)),
    "prelu": ("PReLU", dict(), (2, 3, 4)),
    "prelu_shared": ("PReLU", dict(shared_axes=[1, 2]), (2, 3, 4, 2)),
    "prelu_shared_int": ("PReLU", dict(shared_axes=1, alpha_initializer="ones"), (2, 3, 4)),
    "softmax": ("Softmax", dict(), (2, 5)),
    "softmax_axis1": ("Softmax", dict(axis=1), (2, 3, 4)),
    "softmax_axes": ("Softmax", dict(axis=(1, 2)), (2, 3, 4)),
    "softmax_axis_list1": ("Softmax", dict(axis=[-2]), (2, 3, 4)),
}


def _maker(name, kwargs):
    return lambda lib: getattr(lib.keras.layers, name)(**kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients(case):
    name, kwargs, shape = CASES[case]
    make = _maker(name, kwargs)
    x = data(*shape)
    x.flat[:4] = [0.0, 0.2, 1.0, 6.0]  # the kinks: 0, the threshold, max_value 1 and 6
    weights = random_weights(make, VFW, shape) if name == "PReLU" else None
    same(lambda lib: outputs_and_gradients(lib, make, x, weights))


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_shapes_and_configs(case):
    name, kwargs, shape = CASES[case]

    def fn(lib):
        make = _maker(name, kwargs)
        unknown = (None,) * (len(shape) - 1) if name != "PReLU" else shape[1:]
        return [symbolic(lib, make, shape[1:]), symbolic(lib, make, unknown), config_round_trip(lib, make)]
    same(fn)


def test_prelu_initial_weights_and_input_spec():
    def make(lib):
        return lib.keras.layers.PReLU(alpha_initializer="glorot_uniform", alpha_regularizer="l2",
                                      alpha_constraint="non_neg", shared_axes=[2])

    def fn(lib):
        weights = seeded_initial_weights(lib, make, (None, 3, 4, 2))
        layer = make(lib)
        layer.build((None, 3, 4, 2))
        spec = layer.input_spec
        return [weights, [w.path for w in layer.weights], spec.ndim, spec.axes]
    same(fn)


def test_masks_pass_through():
    ids = np.array([[1, 2, 0], [3, 0, 0]], "int32")

    def fn(lib):
        keras = lib.keras
        embed = keras.layers.Embedding(4, 2, mask_zero=True)
        embed.build()
        embed.set_weights([data(4, 2, seed=1)])
        x = embed(ids)
        layers = [keras.layers.Activation("relu"), keras.layers.ReLU(), keras.layers.LeakyReLU(), keras.layers.ELU(),
                  keras.layers.PReLU(), keras.layers.Softmax()]
        return [[layer(x), layer(x)._keras_mask] for layer in layers]
    same(fn)


def test_softmax_masks():
    x = data(2, 3, 4)
    bool_mask = np.array([[[True, True, False, True]] * 3, [[False, True, True, True]] * 3])
    float_mask = bool_mask.astype("float32")[:, :1, :]  # broadcast over the rows; > 0.5 keeps

    def fn(lib):
        softmax = lib.keras.layers.Softmax()
        xt = lib.tf.constant(x)
        with lib.tf.GradientTape() as tape:
            tape.watch(xt)
            y = softmax(xt, mask=bool_mask)
            loss = lib.tf.reduce_sum(y * lib.tf.range(4, dtype="float32"))
        half = lib.keras.layers.Softmax(axis=(1, 2), dtype="float16")(x, mask=float_mask)
        return [y, tape.gradient(loss, xt), softmax(x, mask=float_mask), half]
    same(fn, rtol=1e-3, atol=1e-3)


def test_leaky_relu_alpha_is_deprecated():
    def fn(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer = lib.keras.layers.LeakyReLU(alpha=0.1)
        return [layer.negative_slope, [str(w.message) for w in caught]]
    same(fn)


def test_in_sequential_model():
    x = data(3, 4)

    def fn(lib):
        keras = lib.keras
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.PReLU(),
                                  keras.layers.LeakyReLU(0.1), keras.layers.Dense(3), keras.layers.Softmax()])
        model.set_weights([data(4, 3, seed=1), data(3, seed=2), data(3, seed=3), data(3, 3, seed=4), data(3, seed=5)])
        return [model(x), [w.path for w in model.weights]]
    same(fn)


ERRORS = {
    "relu_max_value": lambda lib: lib.keras.layers.ReLU(max_value=-1.0),
    "relu_negative_slope": lambda lib: lib.keras.layers.ReLU(negative_slope=-0.5),
    "relu_slope_none": lambda lib: lib.keras.layers.ReLU(negative_slope=None),
    "relu_threshold": lambda lib: lib.keras.layers.ReLU(threshold=-1.0),
    "leaky_relu_slope": lambda lib: lib.keras.layers.LeakyReLU(negative_slope=-0.1),
    "activation_name": lambda lib: lib.keras.layers.Activation("no_such_activation"),
    "prelu_input_spec": lambda lib: _call_twice(lib.keras.layers.PReLU(), (2, 3), (2, 4)),
    "softmax_mask_rank": lambda lib: lib.keras.layers.Softmax()(np.zeros((2, 3), "float32"),
                                                                 mask=np.ones((1, 2, 3), bool)),
    "softmax_mask_shape": lambda lib: lib.keras.layers.Softmax()(np.zeros((2, 3), "float32"),
                                                                  mask=np.ones((2, 2), bool)),
}


def _call_twice(layer, shape1, shape2):
    layer(np.zeros(shape1, "float32"))
    return layer(np.zeros(shape2, "float32"))


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    real, ours = error_text(REAL, ERRORS[case]), error_text(VFW, ERRORS[case])
    assert real is not None and ours == real
