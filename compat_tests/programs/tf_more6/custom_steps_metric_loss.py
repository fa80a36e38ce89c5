"""Customizing fit() the Keras 3 way with one's own Loss and Metric classes: a subclassed model whose train_step
unpacks (x, y, sample_weight) with keras.utils.unpack_x_y_sample_weight, calls self.compute_loss(x, y, y_pred,
sample_weight) and self.compute_metrics, and whose test_step updates the compiled metrics by hand; a Huber-like
keras.losses.Loss subclass with get_config, a weighted keras.metrics.Metric subclass (add_variable, update_state
with sample_weight, reset_state), fit with sample weights and validation data, evaluate(return_dict=True),
reset_metrics and get_metrics_result."""

import keras
import numpy as np
import tensorflow as tf


class SmoothL1(keras.losses.Loss):
    def __init__(self, delta=1.0, name="smooth_l1", **kwargs):
        super().__init__(name=name, **kwargs)
        self.delta = delta

    def call(self, y_true, y_pred):
        error = tf.abs(y_true - y_pred)
        quadratic = tf.minimum(error, self.delta)
        return tf.reduce_mean(0.5 * quadratic ** 2 + self.delta * (error - quadratic), axis=-1)

    def get_config(self):
        return {**super().get_config(), "delta": self.delta}


class WeightedAbsError(keras.metrics.Metric):
    def __init__(self, name="weighted_abs_error", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")
        self.weight_sum = self.add_variable(shape=(), initializer="zeros", name="weight_sum")

    def update_state(self, y_true, y_pred, sample_weight=None):
        errors = tf.reduce_mean(tf.abs(tf.cast(y_true, tf.float32) - y_pred), axis=-1)
        weights = tf.ones_like(errors) if sample_weight is None else tf.cast(sample_weight, tf.float32)
        self.total.assign_add(tf.reduce_sum(errors * weights))
        self.weight_sum.assign_add(tf.reduce_sum(weights))

    def result(self):
        return self.total / tf.maximum(self.weight_sum, 1e-7)

    def reset_state(self):
        self.total.assign(0.0)
        self.weight_sum.assign(0.0)


class Regressor(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(12, activation="tanh")
        self.head = keras.layers.Dense(2)

    def call(self, inputs):
        return self.head(self.hidden(inputs))

    def train_step(self, data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


def main():
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(96, 6)).astype(np.float32)
    y = np.stack([x[:, 0] * 2 - x[:, 1], np.cos(x[:, 2]) * 3], axis=1).astype(np.float32)
    weights = rng.uniform(0.1, 2.0, 96).astype(np.float32)

    loss = SmoothL1(delta=0.5)
    values = [str(sorted(loss.get_config().items())), float(loss(y[:4], y[:4] * 0.5))]
    metric = WeightedAbsError()
    metric.update_state(y[:8], y[:8] + 1.0, sample_weight=weights[:8])
    values.append(float(metric.result()))
    metric.reset_state()
    values.append(float(metric.result()))

    model = Regressor()
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss=SmoothL1(delta=0.5),
                  metrics=[WeightedAbsError(), keras.metrics.MeanSquaredError(name="mse")])
    history = model.fit(x[:72], y[:72], sample_weight=weights[:72], batch_size=24, epochs=2,
                        validation_data=(x[72:], y[72:], weights[72:]), verbose=0)
    values += [str(sorted(history.history))]
    for key in sorted(history.history):
        values += history.history[key]
    results = model.evaluate(x[72:], y[72:], sample_weight=weights[72:], verbose=0, return_dict=True)
    values += [str(sorted(results))] + [results[k] for k in sorted(results)]
    values += [str([m.name for m in model.metrics])]
    model.reset_metrics()
    values += [str(sorted(model.get_metrics_result()))]
    values += [float(v) for v in model.get_metrics_result().values()]
    return values


if __name__ == "__main__":
    print(main())
