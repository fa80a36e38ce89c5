"""The Keras guide "Customizing what happens in fit()" with the Keras 3 hooks: a subclassed Model overriding
train_step/test_step/predict_step with keras.metrics.Mean trackers listed by the metrics property, compute_loss
overridden to add an L1 penalty, fit with validation_data and a custom callback reading logs, evaluate
return_dict; then summary() text (print_fn, expand_nested, show_trainable, line_length) of a functional model
holding a nested Sequential, clone_model with a clone_function, and get_config/from_config round trips."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


class TrackedModel(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(12, activation="relu")
        self.out = keras.layers.Dense(1)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_tracker = keras.metrics.MeanAbsoluteError(name="mae")

    def call(self, x, training=False):
        return self.out(self.hidden(x))

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_tracker]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        mse = keras.ops.mean(keras.ops.square(y - y_pred))
        return mse + 1e-3 * keras.ops.sum(keras.ops.abs(self.hidden.kernel))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae_tracker.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.compute_loss(x=x, y=y, y_pred=y_pred, training=False))
        self.mae_tracker.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def predict_step(self, data):
        return {"value": self(data, training=False), "doubled": 2 * self(data, training=False)}


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen += [" ".join(sorted(logs))] + [float(logs[k]) for k in sorted(logs)]


def main():
    keras.utils.set_random_seed(8)
    rng = np.random.default_rng(8)
    values = []
    x = rng.normal(size=(60, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], "float32") + 0.1).astype("float32")

    model = TrackedModel()
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.5))
    recorder = Recorder()
    history = model.fit(x[:48], y[:48], batch_size=12, epochs=3, validation_data=(x[48:], y[48:]), verbose=0,
                        callbacks=[recorder])
    values += [str(sorted(history.history))] + recorder.seen
    result = model.evaluate(x, y, batch_size=20, verbose=0, return_dict=True)
    values += [str(sorted(result))] + [float(result[k]) for k in sorted(result)]
    predicted = model.predict(x[:5], batch_size=2, verbose=0)
    values += [str(sorted(predicted)), str(predicted["value"].shape)]
    values += [float(v) for v in predicted["doubled"].ravel()]
    values += [str([m.name for m in model.metrics])]

    block = keras.Sequential([keras.layers.Dense(6, activation="tanh"), keras.layers.Dense(3)], name="block")
    inputs = keras.Input((4,), name="features")
    frozen = keras.layers.Dense(4, name="frozen")
    frozen.trainable = False
    outputs = keras.layers.Dense(1, name="head")(block(frozen(inputs)))
    functional = keras.Model(inputs, outputs, name="wrapped")
    lines = []
    functional.summary(print_fn=lambda line, **kwargs: lines.append(line), expand_nested=True, show_trainable=True,
                       line_length=90)
    values += ["\n".join(lines)]
    lines = []
    block.summary(print_fn=lambda line, **kwargs: lines.append(line))
    values += ["\n".join(lines), functional.count_params()]

    def widen(layer):
        if isinstance(layer, keras.layers.Dense) and layer.name == "head":
            return keras.layers.Dense(2, name="head2")
        return layer.__class__.from_config(layer.get_config())

    clone = keras.models.clone_model(functional, clone_function=widen)
    values += [str([layer.name for layer in clone.layers]), str(clone.output.shape), clone.count_params()]
    config = functional.get_config()
    values += [str([layer["class_name"] for layer in config["layers"]])]
    rebuilt = keras.Model.from_config(config)  # (Keras empties the config it reads)
    rebuilt.set_weights(functional.get_weights())
    values += [str(sorted(config)), str(rebuilt.layers[1].trainable)]
    values += [float(np.abs(rebuilt.predict(x, verbose=0) - functional.predict(x, verbose=0)).max())]
    return values
