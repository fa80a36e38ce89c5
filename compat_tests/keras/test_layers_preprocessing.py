"""Preprocessing layers (Rescaling, Normalization, CategoryEncoding, Discretization) against real Keras 3.15.1:
outputs, ``adapt`` on arrays, tensors, datasets and iterables, weights, use in tf.data pipelines and models, configs
and errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

X = data(6, 3) * 3.0 + 2.0
IMAGES = data(2, 4, 4, 3)

ADAPT_SOURCES = {
    "array": lambda lib: X,
    "tensor": lambda lib: lib.tf.constant(X),
    "batched_dataset": lambda lib: lib.tf.data.Dataset.from_tensor_slices(X).batch(4),
    "unbatched_dataset": lambda lib: lib.tf.data.Dataset.from_tensor_slices(X[:, 0]),
    "list_of_batches": lambda lib: [X[:2], X[2:]],
    "dataset_of_pairs": lambda lib: lib.tf.data.Dataset.from_tensor_slices((X, X[:, 0])).batch(5),
}


@pytest.mark.parametrize("source", sorted(ADAPT_SOURCES))
@pytest.mark.parametrize("axis", [-1, None])
def test_normalization_adapt(source, axis):
    def fn(lib):
        layer = lib.keras.layers.Normalization(axis=axis)
        layer.adapt(ADAPT_SOURCES[source](lib))
        inputs = X[:, :1] if source == "unbatched_dataset" and axis == -1 else X
        return [layer(inputs), variable_values(layer), layer.get_config(), layer.get_build_config()]
    same(fn, rtol=2e-5, atol=2e-5)


def test_normalization_given_statistics_invert_and_axes():
    images = IMAGES * 2.0 + 1.0

    def fn(lib):
        keras = lib.keras
        given = keras.layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0])
        inverted = keras.layers.Normalization(mean=2.0, variance=4.0, invert=True)
        per_pixel = keras.layers.Normalization(axis=(1, 2))
        per_pixel.adapt(images)
        scalar_axes = keras.layers.Normalization(axis=(1, 3), mean=[0.5, 1.0, 1.5], variance=[1.0, 2.0, 3.0])
        return [given(X), given.variables, inverted(X), per_pixel(images), scalar_axes(images),
                given.get_config(), call_with_gradients(lib, keras.layers.Normalization(mean=1.0, variance=2.0), [X])]
    same(fn, rtol=2e-5, atol=2e-5)


def test_normalization_in_model_and_pipeline():
    def fn(lib):
        keras, tf = lib.keras, lib.tf
        norm = keras.layers.Normalization()
        norm.adapt(X)
        model = keras.Sequential([keras.Input((3,)), norm, keras.layers.Dense(1, kernel_initializer="ones")])
        pipeline = tf.data.Dataset.from_tensor_slices(X).batch(4).map(lambda t: norm(t))
        return [model(X), [b for b in pipeline], model.layers[0].mean]
    same(fn)


def test_rescaling():
    pixels = np.array([[[0, 128, 255]]], "uint8")

    def fn(lib):
        keras = lib.keras
        layer = keras.layers.Rescaling(1.0 / 255, offset=-1.0)
        per_channel = keras.layers.Rescaling([0.5, 1.0, 2.0], offset=[1.0, 0.0, -1.0])
        half = keras.layers.Rescaling(2.0, dtype="float16")
        pipeline = lib.tf.data.Dataset.from_tensor_slices(IMAGES).batch(2).map(keras.layers.Rescaling(0.5))
        return [layer(pixels), per_channel(IMAGES), half(IMAGES), layer.get_config(), per_channel.get_config(),
                keras.layers.Rescaling.from_config(per_channel.get_config())(IMAGES), [b for b in pipeline],
                layer(keras.Input((4, 3))).shape, call_with_gradients(lib, layer, [IMAGES])]
    same(fn)


CATEGORIES = {
    "multi_hot_rows": ({"num_tokens": 6}, np.array([[1, 2, 2], [0, 5, 4]])),
    "multi_hot_vector": ({"num_tokens": 5, "output_mode": "binary"}, np.array([1, 3, 3])),
    "one_hot_column": ({"num_tokens": 5, "output_mode": "one_hot"}, np.array([[1], [3], [0]])),
    "one_hot_vector": ({"num_tokens": 4, "output_mode": "one_hot"}, np.array([3, 0, 2], "int64")),
    "count": ({"num_tokens": 5, "output_mode": "count"}, np.array([[1, 2, 2], [0, 4, 4]])),
    "count_float64": ({"num_tokens": 5, "output_mode": "count", "dtype": "float64"}, np.array([[4, 4, 1]])),
    "scalar": ({"num_tokens": 3}, np.array(2)),
}


@pytest.mark.parametrize("case", sorted(CATEGORIES))
def test_category_encoding(case):
    kwargs, ids = CATEGORIES[case]

    def fn(lib):
        layer = lib.keras.layers.CategoryEncoding(**kwargs)
        return [layer(ids), layer(lib.tf.constant(ids)), layer.get_config(), layer.compute_output_shape(ids.shape),
                layer(lib.keras.Input(ids.shape[1:], dtype="int32")).shape if ids.ndim else None]
    same(fn)


def test_category_encoding_count_weights_and_errors():
    ids = np.array([[1, 2, 2], [0, 4, 4]])

    def fn(lib):
        layers = lib.keras.layers
        out = [layers.CategoryEncoding(5, output_mode="count")(ids, count_weights=np.array([[0.5, 1, 2], [1, 1, 3]]))]
        for make in (lambda: layers.CategoryEncoding(5, output_mode="tf_idf"), lambda: layers.CategoryEncoding(),
                     lambda: layers.CategoryEncoding(0),
                     lambda: layers.CategoryEncoding(5)(ids, count_weights=np.ones((2, 3)))):
            try:
                make()
            except ValueError as e:
                out.append(str(e).split("\x1b[1m")[-1].split("\x1b[0m")[0])
        return out
    same(fn)


DISCRETIZATIONS = {
    "int": ({"bin_boundaries": [0.0, 1.5, 3.0]}, lambda lib: None),
    "one_hot": ({"bin_boundaries": [0.0, 1.5], "output_mode": "one_hot"}, lambda lib: None),
    "multi_hot": ({"bin_boundaries": [0.0, 1.5], "output_mode": "multi_hot"}, lambda lib: None),
    "count": ({"bin_boundaries": [-1.0, 2.0], "output_mode": "count"}, lambda lib: None),
    "adapt_array": ({"num_bins": 4}, lambda lib: X),
    "adapt_dataset": ({"num_bins": 5, "epsilon": 0.02},
                      lambda lib: lib.tf.data.Dataset.from_tensor_slices(data(1000, 7, seed=1)).batch(300)),
    "adapt_batches_steps": ({"num_bins": 3, "epsilon": 0.1}, lambda lib: [X[:2], X[2:4], X[4:]]),
}


@pytest.mark.parametrize("case", sorted(DISCRETIZATIONS))
def test_discretization(case):
    kwargs, source = DISCRETIZATIONS[case]

    def fn(lib):
        layer = lib.keras.layers.Discretization(**kwargs)
        adapt_data = source(lib)
        if adapt_data is not None:
            if case == "adapt_batches_steps":
                layer.adapt(adapt_data, steps=2)
            else:
                layer.adapt(adapt_data)
        config = layer.get_config()
        return [layer(X), layer(X.astype("float64")), layer(np.array([[0, 3], [-2, 1]], "int32")), config,
                lib.keras.layers.Discretization.from_config(config)(X), layer.compute_output_shape((None, 3)),
                layer(lib.keras.Input((3,))).dtype]
    same(fn)


@pytest.mark.parametrize("case", ["both", "neither", "negative_bins", "mode", "sparse_int", "adapt_boundaries",
                                  "unadapted_call", "mean_without_variance", "mean_variance_shapes", "mean_rank",
                                  "axis_range", "unknown_axis", "adapt_shape", "adapt_type", "adapt_empty",
                                  "unbuilt_call"])
def test_errors(case):
    def fn(lib):
        layers = lib.keras.layers
        if case == "adapt_boundaries":
            return layers.Discretization(bin_boundaries=[1.0]).adapt(X)
        if case == "unadapted_call":
            return layers.Discretization(num_bins=2)(X)
        if case == "adapt_shape":
            layer = layers.Normalization()
            layer.adapt(X)
            return layer.adapt(np.ones((2, 4), "float32"))
        if case == "unbuilt_call":
            return layers.Normalization().call(X)
        return {"both": lambda: layers.Discretization(bin_boundaries=[1.0], num_bins=2),
                "neither": lambda: layers.Discretization(),
                "negative_bins": lambda: layers.Discretization(num_bins=-1),
                "mode": lambda: layers.Discretization(num_bins=2, output_mode="tf_idf"),
                "sparse_int": lambda: layers.Discretization(num_bins=2, sparse=True),
                "mean_without_variance": lambda: layers.Normalization(mean=1.0),
                "mean_variance_shapes": lambda: layers.Normalization(mean=[1.0, 2.0], variance=1.0),
                "mean_rank": lambda: layers.Normalization(mean=[[1.0]], variance=[[1.0]]),
                "axis_range": lambda: layers.Normalization(axis=3).adapt(X),
                "unknown_axis": lambda: layers.Normalization(axis=1).build((None, None)),
                "adapt_type": lambda: layers.Normalization().adapt(3.0),
                "adapt_empty": lambda: layers.Normalization().adapt([])}[case]()
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[0] == "raised" and ours[:2] == real[:2]
    assert ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]
