"""keras.ops control flow in backend-agnostic code: fori_loop (power iteration), while_loop with a tuple state
(Newton's square root), scan (a running exponential average with per-step outputs), cond, switch and a custom
layer whose call unrolls a recurrence with fori_loop, trained with fit."""

import keras
import numpy as np
from keras import ops


class Recurrence(keras.layers.Layer):
    """h_{t+1} = tanh(h_t W + b) applied `steps` times with keras.ops.fori_loop."""

    def __init__(self, steps=3, **kwargs):
        super().__init__(**kwargs)
        self.steps = steps

    def build(self, input_shape):
        units = input_shape[-1]
        self.w = self.add_weight(name="w", shape=(units, units), initializer="orthogonal")
        self.b = self.add_weight(name="b", shape=(units,), initializer="zeros")

    def call(self, inputs):
        return ops.fori_loop(0, self.steps, lambda i, h: ops.tanh(ops.matmul(h, self.w) + self.b), inputs)


def main():
    keras.utils.set_random_seed(21)
    values = []
    matrix = ops.convert_to_tensor(np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], np.float32))

    def power_step(i, v):
        w = ops.matmul(matrix, v)
        return w / ops.norm(w)

    vector = ops.fori_loop(0, 25, power_step, ops.ones((3,)))
    values += [float(v) for v in ops.convert_to_numpy(vector)]

    def newton_body(x, count):
        return (0.5 * (x + 10.0 / x), count + 1)

    root, count = ops.while_loop(lambda x, count: ops.abs(x * x - 10.0) > 1e-4, newton_body,
                                 (ops.convert_to_tensor(10.0), ops.convert_to_tensor(0)))
    values += [float(root), int(count)]
    root_bounded = ops.while_loop(lambda x: x > 0.0, lambda x: (x - 1.5,), (ops.convert_to_tensor(7.0),),
                                  maximum_iterations=3)
    values += [float(root_bounded[0])]

    def average_step(carry, x):
        carry = 0.8 * carry + 0.2 * x
        return carry, carry * 2.0

    series = ops.convert_to_tensor(np.sin(np.arange(10, dtype=np.float32)))
    final, stacked = ops.scan(average_step, ops.convert_to_tensor(0.0), series)
    values += [float(final)] + [float(v) for v in ops.convert_to_numpy(stacked)]
    _, reversed_out = ops.scan(average_step, ops.convert_to_tensor(0.0), series, reverse=True)
    values += [float(v) for v in ops.convert_to_numpy(reversed_out)]
    values += [float(ops.cond(ops.sum(series) > 0, lambda: ops.sum(series), lambda: -ops.sum(series)))]
    branches = [lambda x: x + 1.0, lambda x: x * 3.0, lambda x: -x]
    values += [float(ops.switch(i, branches, ops.convert_to_tensor(2.0))) for i in range(3)]

    rng = np.random.default_rng(21)
    x = rng.normal(size=(48, 4)).astype(np.float32)
    y = np.tanh(x[:, :1] - x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    inputs = keras.Input((4,))
    outputs = keras.layers.Dense(1)(Recurrence(steps=3)(inputs))
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mae", metrics=["mse"])
    history = model.fit(x, y, batch_size=12, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["mse"]
    return values
