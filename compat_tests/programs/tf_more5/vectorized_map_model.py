"""A keras.Model whose call uses ops.vectorized_map (a per-example pairwise-distance feature and a per-example
affine transform read from the input) and ops.map / ops.fori_loop, trained with fit, differentiated by a
GradientTape (gradients through the mapped function) and run inside a tf.function; tf.vectorized_map directly on
a per-example Jacobian-free computation with fallback_to_while_loop."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops


class SetEncoder(keras.Model):
    """Each example is a set of points: per example, a Gram-like matrix of its points, reduced; then a head."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.embed = layers.Dense(4, activation="tanh")
        self.head = layers.Dense(1)

    def call(self, points):
        embedded = self.embed(points)

        def per_example(e):
            gram = ops.matmul(e, ops.transpose(e))
            return ops.concatenate([ops.mean(gram, axis=-1), ops.max(e, axis=0)], axis=0)

        features = ops.vectorized_map(per_example, embedded)
        scaled = ops.map(lambda f: f * ops.sum(f), features)
        smoothed = ops.fori_loop(0, 2, lambda i, acc: acc * 0.5 + scaled * 0.5, features)
        return self.head(smoothed)


def main():
    keras.utils.set_random_seed(12)
    rng = np.random.default_rng(12)
    points = rng.normal(size=(40, 5, 3)).astype(np.float32)
    target = (np.linalg.norm(points, axis=-1).mean(axis=-1, keepdims=True) - 1.5).astype(np.float32)

    model = SetEncoder()
    model.compile(optimizer=keras.optimizers.RMSprop(0.01), loss="mse")
    history = model.fit(points, target, batch_size=10, epochs=2, verbose=0)
    values = history.history["loss"] + [str(model(points[:2]).shape)]

    with tf.GradientTape() as tape:
        loss = ops.mean((model(points[:8]) - target[:8]) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    values += [float(loss)] + [float(ops.sum(ops.abs(g))) for g in grads]

    @tf.function
    def predict(x):
        return model(x, training=False)

    values += [float(v) for v in predict(tf.constant(points[:3])).numpy().ravel()]
    matrices = tf.constant(rng.normal(size=(4, 3, 3)).astype(np.float32))
    traces = tf.vectorized_map(lambda m: tf.linalg.trace(tf.matmul(m, m, transpose_b=True)), matrices,
                               fallback_to_while_loop=True)
    values += [float(v) for v in traces.numpy()]
    return values


if __name__ == "__main__":
    print(main())
