"""A keras.Model subclass with a custom train_step written with keras.ops (no tf.), gradients through the
backend's GradientTape obtained via keras' own trainer API: compute_loss, self.optimizer.apply, metric trackers
updated by hand and reported from the metrics property; a custom loss and custom metric written with keras.ops."""

import keras
import numpy as np
from keras import ops


def huberish_loss(y_true, y_pred):
    error = y_pred - y_true
    small = ops.abs(error) <= 0.5
    return ops.mean(ops.where(small, 0.5 * ops.square(error), 0.5 * ops.abs(error) - 0.125), axis=-1)


class MeanSignAgreement(keras.metrics.Metric):
    def __init__(self, name="sign_agreement", **kwargs):
        super().__init__(name=name, **kwargs)
        self.agree = self.add_variable(shape=(), initializer="zeros", name="agree")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        same = ops.cast(ops.equal(ops.sign(y_true), ops.sign(y_pred)), "float32")
        self.agree.assign_add(ops.sum(same))
        self.count.assign_add(ops.cast(ops.size(same), "float32"))

    def result(self):
        return ops.divide_no_nan(self.agree, self.count)

    def reset_state(self):
        self.agree.assign(0.0)
        self.count.assign(0.0)


class Regressor(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(16, activation="tanh")
        self.head = keras.layers.Dense(2)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.agreement = MeanSignAgreement()

    def call(self, inputs):
        return self.head(self.hidden(inputs))

    @property
    def metrics(self):
        return [self.loss_tracker, self.agreement]

    def train_step(self, data):
        import tensorflow as backend  # Keras 3's TF backend computes gradients with the backend's tape

        x, y = data
        with backend.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = huberish_loss(y, y_pred)
            loss = ops.mean(loss) + 1e-3 * ops.sum(ops.square(self.hidden.kernel))
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        self.agreement.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(ops.mean(huberish_loss(y, y_pred)))
        self.agreement.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def main():
    keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    x = rng.normal(size=(80, 5)).astype(np.float32)
    y = np.stack([x[:, 0] - 2 * x[:, 1], np.sin(x[:, 2]) + x[:, 3] * x[:, 4]], axis=1).astype(np.float32)
    model = Regressor()
    model.compile(optimizer=keras.optimizers.RMSprop(0.01))
    history = model.fit(x[:64], y[:64], batch_size=16, epochs=4, verbose=0, validation_data=(x[64:], y[64:]))
    values = []
    for key in sorted(history.history):
        values += [key] + history.history[key]
    values += [float(v) for v in model.evaluate(x[64:], y[64:], verbose=0)]
    values += [float(v) for v in ops.convert_to_numpy(huberish_loss(y[:5], model.predict(x[:5], verbose=0)))]
    return values
