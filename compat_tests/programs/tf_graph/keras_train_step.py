"""A Keras model with a custom train_step (model.fit): its body branches on Python values only (Keras leaves it
unconverted), and calls a tf.function-decorated helper whose tensor `if`/`for` AutoGraph converts (a per-batch
robust loss with a tensor-dependent branch, a loop over the output columns)."""

import keras
import numpy as np
import tensorflow as tf


@tf.function
def robust_loss(y_true, y_pred, delta):
    error = y_true - y_pred
    total = tf.constant(0.0)
    for j in tf.range(tf.shape(error)[1]):
        column = error[:, j]
        if tf.reduce_max(tf.abs(column)) > delta:
            total += tf.reduce_mean(delta * (tf.abs(column) - 0.5 * delta))
        else:
            total += tf.reduce_mean(0.5 * tf.square(column))
    return total / tf.cast(tf.shape(error)[1], tf.float32)


class RobustModel(keras.Model):
    def __init__(self, delta=1.0, use_l2=True, **kwargs):
        super().__init__(**kwargs)
        self.delta = delta
        self.use_l2 = use_l2
        self.body = keras.layers.Dense(12, activation="relu")
        self.head = keras.layers.Dense(2)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae = keras.metrics.MeanAbsoluteError(name="mae")

    def call(self, x):
        return self.head(self.body(x))

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = robust_loss(y, y_pred, self.delta)
            if self.use_l2:  # a Python bool: fine without conversion
                loss += 1e-3 * tf.add_n([tf.reduce_sum(tf.square(w)) for w in self.body.trainable_weights])
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply(grads, self.trainable_weights)
        self.loss_tracker.update_state(loss)
        self.mae.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(robust_loss(y, y_pred, self.delta))
        self.mae.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    x = rng.standard_normal((120, 4)).astype(np.float32)
    y = np.stack([x[:, 0] * 2.0 - x[:, 1], np.abs(x[:, 2]) * 3.0], axis=1).astype(np.float32)
    y[::17] += 6.0  # outliers: the tensor branch takes both sides
    values = []
    for delta, use_l2 in ((1.0, True), (20.0, False)):
        model = RobustModel(delta, use_l2)
        model.compile(optimizer=keras.optimizers.Adam(0.02))
        history = model.fit(x, y, batch_size=24, epochs=4, shuffle=True, validation_split=0.2, verbose=0)
        values += history.history["loss"] + history.history["mae"] + history.history["val_loss"]
        values += history.history["val_mae"] + model.evaluate(x, y, batch_size=40, verbose=0)
        values.append(float(tf.reduce_sum(model.predict(x[:10], verbose=0))))
    values.append(float(robust_loss(tf.constant(y), tf.zeros_like(y), 2.0)))
    return values


if __name__ == "__main__":
    print(main())
