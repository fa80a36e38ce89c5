"""A subclassed model overriding train_step and test_step as in the Keras guide "Customizing what happens in
fit()": compute_loss, optimizer.apply, its own loss tracker and MAE metric, the metrics property, a return dict."""

import keras
import numpy as np
import tensorflow as tf


class CustomModel(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(16, activation="relu")
        self.out = keras.layers.Dense(1)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

    def call(self, inputs):
        return self.out(self.hidden(inputs))

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class WeightedModel(keras.Model):
    """The guide's second variant: sample weights unpacked from the data, compiled metrics updated by hand."""

    def train_step(self, data):
        x, y, sample_weight = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        trainable_vars = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, trainable_vars), trainable_vars))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


def main():
    keras.utils.set_random_seed(13)
    rng = np.random.default_rng(13)
    x = rng.standard_normal((160, 8)).astype(np.float32)
    y = (x @ rng.standard_normal((8, 1)) + 0.3 * np.sin(x[:, :1])).astype(np.float32)
    model = CustomModel()
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse")
    history = model.fit(x, y, epochs=3, batch_size=32, validation_data=(x[:40], y[:40]), verbose=0)
    values = history.history["loss"] + history.history["mae"] + history.history["val_loss"] + history.history[
        "val_mae"]
    values += model.evaluate(x, y, verbose=0)

    inputs = keras.Input(shape=(8,))
    weighted = WeightedModel(inputs, keras.layers.Dense(1)(keras.layers.Dense(8, activation="tanh")(inputs)))
    weighted.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    sample_weight = rng.uniform(0.2, 1.0, (160,)).astype(np.float32)
    history = weighted.fit(x, y, sample_weight=sample_weight, epochs=3, batch_size=40, verbose=0)
    return values + history.history["loss"] + history.history["mae"] + [float(weighted.optimizer.iterations)]


if __name__ == "__main__":
    print(main())
