"""tf.Module with tf.Variables mixed with Keras layers: a hand-written affine module with a non-trainable step
counter, tf.function methods, trainable_variables collection across nested modules, a Keras optimizer over them,
get/set_weights and a save_weights/load_weights round trip of a Keras model built from the trained values."""

import os
import tempfile

import numpy as np
import tensorflow as tf


class Affine(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features], stddev=0.5, seed=1), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class Regressor(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.hidden = Affine(3, 8, name="hidden")
        self.head = tf.keras.layers.Dense(1)
        self.steps = tf.Variable(0, trainable=False, dtype=tf.int64, name="steps")

    @tf.function
    def __call__(self, x):
        return self.head(tf.nn.relu(self.hidden(x)))


def main():
    tf.keras.utils.set_random_seed(24)
    rng = np.random.default_rng(24)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (np.abs(x).sum(1, keepdims=True) - 1.0).astype(np.float32)
    model = Regressor()
    model(x[:1])
    optimizer = tf.keras.optimizers.RMSprop(0.01)
    values = [float(len(model.trainable_variables)), float(len(model.variables)),
              float(len(model.submodules))]

    @tf.function
    def step(inputs, targets):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(inputs) - targets))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        model.steps.assign_add(1)
        return loss

    for _ in range(4):
        for start in range(0, 64, 16):
            values.append(float(step(x[start:start + 16], y[start:start + 16])))
    values.append(float(model.steps.numpy()))

    keras_model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8, activation="relu"),
                                       tf.keras.layers.Dense(1)])
    keras_model.set_weights([model.hidden.w.numpy(), model.hidden.b.numpy()] + model.head.get_weights())
    path = os.path.join(tempfile.mkdtemp(), "regressor.weights.h5")
    keras_model.save_weights(path)
    restored = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8, activation="relu"),
                                    tf.keras.layers.Dense(1)])
    restored.load_weights(path)
    values += [float(tf.reduce_max(tf.abs(restored(x) - model(x)))), float(tf.reduce_sum(restored(x)))]
    model.hidden.b.assign(tf.ones([8]))
    values.append(float(tf.reduce_sum(model(x))))
    return values


if __name__ == "__main__":
    print(main())
