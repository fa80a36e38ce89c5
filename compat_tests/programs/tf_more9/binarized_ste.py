"""A binarized network with a straight-through estimator, as in Stack Overflow answers on tf.custom_gradient:
a sign() whose gradient passes through where |x| <= 1 (a @tf.custom_gradient function), a gradient-reversal
layer (a custom_gradient with an argument), a BinaryDense layer whose kernel is binarized in call and kept in
[-1, 1] by a keras.constraints.Constraint subclass; trained with fit under Adamax, then a second copy from the same
initial weights by an eager GradientTape loop with Nadam and clipnorm."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


@tf.custom_gradient
def binarize(x):
    def grad(upstream):
        return upstream * tf.cast(tf.abs(x) <= 1.0, upstream.dtype)
    return tf.where(x >= 0.0, tf.ones_like(x), -tf.ones_like(x)), grad


def reverse_gradient(x, scale):
    @tf.custom_gradient
    def flip(x):
        return tf.identity(x), lambda dy: -scale * dy
    return flip(x)


class ClipWeights(keras.constraints.Constraint):
    def __init__(self, limit):
        self.limit = limit

    def __call__(self, w):
        return tf.clip_by_value(w, -self.limit, self.limit)

    def get_config(self):
        return {"limit": self.limit}


class BinaryDense(layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform",
                                      constraint=ClipWeights(1.0), name="kernel")
        self.scale = self.add_weight(shape=(self.units,), initializer="ones", name="scale")

    def call(self, inputs):
        # custom_gradient functions must not read variables themselves: pass the kernel's value
        return tf.matmul(inputs, binarize(tf.convert_to_tensor(self.kernel))) * self.scale


class GradientReversal(layers.Layer):
    def __init__(self, scale=0.5, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs):
        return reverse_gradient(inputs, self.scale)


def build_model():
    return keras.Sequential([keras.Input((6,)), BinaryDense(8), layers.BatchNormalization(),
                             layers.Activation("tanh"), GradientReversal(0.5), layers.Dense(2)])


def main():
    keras.utils.set_random_seed(41)
    rng = np.random.default_rng(41)
    x = rng.normal(size=(48, 6)).astype(np.float32)
    y = (x[:, 0] - x[:, 2] > 0).astype(np.int64)

    values = []
    probe = tf.Variable([-1.5, -0.5, 0.0, 0.7, 2.0])  # a variable argument is an input: no `variables` keyword
    with tf.GradientTape() as tape:
        out = binarize(probe) * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    values += out.numpy().tolist() + tape.gradient(out, probe).numpy().tolist()

    model = build_model()
    initial = model.get_weights()
    model.compile(optimizer=keras.optimizers.Adamax(0.02),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
    values += history.history["loss"] + history.history["accuracy"]
    kernel = model.layers[0].kernel.numpy()
    values += [float(np.abs(kernel).max()), float(kernel.sum())]

    second = build_model()
    second.set_weights(initial)
    optimizer = keras.optimizers.Nadam(0.01, clipnorm=1.0)
    for start in range(0, 48, 16):
        with tf.GradientTape() as tape:
            logits = second(x[start:start + 16], training=True)
            loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y[start:start + 16], logits,
                                                                               from_logits=True))
        grads = tape.gradient(loss, second.trainable_weights)
        optimizer.apply_gradients(zip(grads, second.trainable_weights))
        values += [float(loss)] + [float(tf.norm(g)) for g in grads]
    values.append(str(second.layers[0].kernel.constraint.get_config()))
    return values


if __name__ == "__main__":
    print(main())
