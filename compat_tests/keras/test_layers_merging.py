"""Merging layers (Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot and the functional forms)
against real Keras 3.15.1: outputs, gradients of every input, broadcasting, dtypes, masks, symbolic shapes, configs and
errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, same
from compat_tests.keras.layers_harness import config_round_trip, error_text, outputs_and_gradients, symbolic

CASES = {
    "add": ("Add", dict(), [(2, 3, 4), (2, 3, 4), (2, 3, 4)]),
    "add_broadcast_rank": ("Add", dict(), [(2, 3, 4), (2, 4)]),
    "add_broadcast_ones": ("Add", dict(), [(2, 1, 4), (2, 3, 1)]),
    "subtract": ("Subtract", dict(), [(2, 5), (2, 5)]),
    "multiply": ("Multiply", dict(), [(2, 3, 4), (2, 3, 4), (2, 1, 4)]),
    "average": ("Average", dict(), [(2, 5), (2, 5), (2, 5)]),
    "maximum": ("Maximum", dict(), [(2, 3, 4), (2, 3, 4)]),
    "minimum": ("Minimum", dict(), [(2, 6), (2, 6), (2, 6)]),
    "concatenate": ("Concatenate", dict(), [(2, 3, 4), (2, 3, 2)]),
    "concatenate_axis1": ("Concatenate", dict(axis=1), [(2, 3, 4), (2, 1, 4), (2, 2, 4)]),
    "dot_last": ("Dot", dict(axes=-1), [(2, 5), (2, 5)]),
    "dot_normalize": ("Dot", dict(axes=1, normalize=True), [(2, 5), (2, 5)]),
    "dot_3d": ("Dot", dict(axes=(2, 2)), [(2, 3, 4), (2, 5, 4)]),
    "dot_3d_mixed": ("Dot", dict(axes=(1, 2)), [(2, 3, 4), (2, 5, 3)]),
    "dot_3d_2d": ("Dot", dict(axes=(2, 1)), [(2, 3, 4), (2, 4)]),
    "dot_4d": ("Dot", dict(axes=(3, 1)), [(2, 2, 3, 4), (2, 4, 3, 2)]),
    "dot_normalize_3d": ("Dot", dict(axes=[1, 1], normalize=True), [(2, 4, 3), (2, 4, 2)]),
}


def _maker(name, kwargs):
    return lambda lib: getattr(lib.keras.layers, name)(**kwargs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients(case):
    name, kwargs, shapes = CASES[case]
    inputs = [data(*shape, seed=i) for i, shape in enumerate(shapes)]
    same(lambda lib: outputs_and_gradients(lib, _maker(name, kwargs), inputs), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", sorted(CASES))
def test_symbolic_shapes_and_configs(case):
    name, kwargs, shapes = CASES[case]

    def fn(lib):
        make = _maker(name, kwargs)
        return [symbolic(lib, make, *(shape[1:] for shape in shapes)), config_round_trip(lib, make)]
    same(fn)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"])
def test_functional_forms(name):
    a, b = data(2, 4, seed=1), data(2, 4, seed=2)

    def fn(lib):
        keras = lib.keras
        function = getattr(keras.layers, name)
        eager = function([a, b], axes=1) if name == "dot" else function([a, b])
        x, y = keras.Input((4,)), keras.Input((4,))
        out = function([x, y], axes=1, name="merged") if name == "dot" else function([x, y], name="merged")
        model = keras.Model([x, y], out)
        return [eager, tuple(out.shape), model([a, b]), model.layers[-1].name]
    same(fn)


def test_mixed_dtypes_promote():
    def fn(lib):
        ints = lib.tf.constant(np.arange(6, dtype="int32").reshape(2, 3))
        floats = data(2, 3)
        return [lib.keras.layers.Add()([ints, floats]), lib.keras.layers.Maximum()([ints, ints]),
                lib.keras.layers.Concatenate()([ints, ints]), symbolic(lib, lambda lib: lib.keras.layers.Add(), (3,),
                                                                       (3,), dtype="int32")]
    same(fn)


def test_masks():
    """Maximum/Minimum/Multiply mask rules, output masks of every merge, Concatenate of masked and unmasked inputs."""
    ids_a = np.array([[1, 2, 0], [3, 0, 0]], "int32")
    ids_b = np.array([[1, 0, 2], [0, 0, 0]], "int32")

    def fn(lib):
        keras = lib.keras
        embed = keras.layers.Embedding(4, 2, mask_zero=True)
        embed.build()
        embed.set_weights([data(4, 2, seed=1)])
        a, b = embed(ids_a), embed(ids_b)
        plain = lib.tf.constant(data(2, 3, 2, seed=2))
        results = []
        for layer in (keras.layers.Add(), keras.layers.Maximum(), keras.layers.Minimum(), keras.layers.Multiply(),
                      keras.layers.Average(), keras.layers.Concatenate(), keras.layers.Concatenate(axis=1)):
            y = layer([a, b])
            results.append([y, getattr(y, "_keras_mask", None)])
        for layer in (keras.layers.Maximum(), keras.layers.Multiply(), keras.layers.Concatenate(),
                      keras.layers.Dot(axes=2)):
            y = layer([a, plain])
            results.append([y, getattr(y, "_keras_mask", None)])
        return results
    same(fn)


def test_symbolic_masks_in_functional_model():
    ids_a = np.array([[1, 2, 0], [3, 0, 0]], "int32")
    ids_b = np.array([[1, 0, 2], [0, 0, 0]], "int32")

    def fn(lib):
        keras = lib.keras
        x, y = keras.Input((3,), dtype="int32"), keras.Input((3,), dtype="int32")
        embed = keras.layers.Embedding(4, 2, mask_zero=True)
        merged = keras.layers.Concatenate()([embed(x), embed(y)])
        pooled = keras.layers.GlobalAveragePooling1D()(keras.layers.Maximum()([merged, merged]))
        model = keras.Model([x, y], pooled)
        model.set_weights([data(4, 2, seed=1)])
        return [model([ids_a, ids_b]), tuple(merged.shape)]
    same(fn)


ERRORS = {
    "not_a_list": lambda lib: lib.keras.layers.Add()(np.zeros((2, 3), "float32")),
    "batch_sizes": lambda lib: lib.keras.layers.Add()([np.zeros((2, 3), "float32"), np.zeros((3, 3), "float32")]),
    "shapes": lambda lib: lib.keras.layers.Multiply()([np.zeros((2, 3), "float32"), np.zeros((2, 4), "float32")]),
    "subtract_three": lambda lib: lib.keras.layers.Subtract()([np.zeros((2, 3), "float32")] * 3),
    "concatenate_shapes": lambda lib: lib.keras.layers.Concatenate()([np.zeros((2, 3, 4), "float32"),
                                                                       np.zeros((2, 2, 4), "float32")]),
    "concatenate_ranks": lambda lib: lib.keras.layers.Concatenate()([np.zeros((2, 3, 4), "float32"),
                                                                      np.zeros((2, 4), "float32")]),
    "concatenate_symbolic": lambda lib: lib.keras.layers.Concatenate(axis=1)([lib.keras.Input((3, 4)),
                                                                               lib.keras.Input((3, 5))]),
    "dot_axes_type": lambda lib: lib.keras.layers.Dot(axes="a"),
    "dot_axes_length": lambda lib: lib.keras.layers.Dot(axes=(1, 2, 3)),
    "dot_axes_items": lambda lib: lib.keras.layers.Dot(axes=(1, "a")),
    "dot_three_inputs": lambda lib: lib.keras.layers.Dot(axes=1)([np.zeros((2, 3), "float32")] * 3),
    "dot_sizes": lambda lib: lib.keras.layers.Dot(axes=1)([np.zeros((2, 3), "float32"), np.zeros((2, 4), "float32")]),
    "dot_axis_zero": lambda lib: lib.keras.layers.Dot(axes=0)([np.zeros((2, 3), "float32")] * 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    real, ours = error_text(REAL, ERRORS[case]), error_text(VFW, ERRORS[case])
    assert real is not None and ours == real
