"""keras.ops.vectorized_map / map / associative_scan and the array-update ops (scatter, scatter_update,
slice_update, slice) in a small backend-agnostic program: per-example polynomial features, a cumulative product
and a linear-recurrence solved with associative_scan, then a custom layer using vectorized_map trained with fit."""

import keras
import numpy as np
from keras import ops


class PerExampleGram(keras.layers.Layer):
    """For each example (t, f): the flattened upper triangle of its f x f Gram matrix, via vectorized_map."""

    def call(self, inputs):
        features = inputs.shape[-1]
        rows, cols = np.triu_indices(features)
        index = ops.convert_to_tensor((rows * features + cols).astype("int32"))

        def gram(example):
            return ops.take(ops.reshape(ops.matmul(ops.transpose(example), example), (-1,)), index)

        return ops.vectorized_map(gram, inputs)


def main():
    keras.utils.set_random_seed(5)
    values = []
    x = ops.convert_to_tensor(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
    poly = ops.vectorized_map(lambda row: ops.concatenate([row, row * row, ops.sum(row, keepdims=True)]), x)
    values += [str(tuple(poly.shape))] + [float(v) for v in ops.convert_to_numpy(poly).ravel()]
    mapped = ops.map(lambda row: ops.max(row) - ops.min(row), x)
    values += [float(v) for v in ops.convert_to_numpy(mapped)]

    series = ops.convert_to_tensor(np.array([1.0, 2.0, 0.5, 3.0, 1.5, 0.25], np.float32))
    values += [float(v) for v in ops.convert_to_numpy(ops.associative_scan(ops.multiply, series))]
    values += [float(v) for v in ops.convert_to_numpy(ops.associative_scan(ops.add, series, reverse=True))]

    # h_t = a_t * h_{t-1} + b_t as an associative scan over (a, b) pairs.
    a = ops.convert_to_tensor(np.array([0.9, 0.5, 0.8, 0.7, 0.95], np.float32))
    b = ops.convert_to_tensor(np.array([1.0, -1.0, 0.5, 2.0, 0.0], np.float32))

    def combine(left, right):
        return (left[0] * right[0], right[0] * left[1] + right[1])

    _, states = ops.associative_scan(combine, (a, b))
    values += [float(v) for v in ops.convert_to_numpy(states)]

    grid = ops.zeros((3, 4))
    grid = ops.scatter_update(grid, [[0, 1], [2, 3]], [5.0, 7.0])
    grid = ops.slice_update(grid, (1, 0), ops.ones((1, 2)) * 2.0)
    values += [float(v) for v in ops.convert_to_numpy(grid).ravel()]
    values += [float(v) for v in ops.convert_to_numpy(ops.scatter([[1], [3], [1]], [1.0, 2.0, 3.0], (5,)))]
    values += [float(v) for v in ops.convert_to_numpy(ops.slice(grid, (0, 1), (2, 3))).ravel()]

    rng = np.random.default_rng(5)
    data = rng.normal(size=(40, 5, 3)).astype(np.float32)
    target = (data[:, :, 0] * data[:, :, 1]).sum(axis=1, keepdims=True).astype(np.float32)
    inputs = keras.Input((5, 3))
    outputs = keras.layers.Dense(1)(keras.layers.LayerNormalization()(PerExampleGram()(inputs)))
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.AdamW(0.03, weight_decay=0.01), loss="mse")
    history = model.fit(data, target, batch_size=10, epochs=3, verbose=0)
    values += history.history["loss"]
    values += [float(v) for v in ops.convert_to_numpy(model(data[:3])).ravel()]
    return values
