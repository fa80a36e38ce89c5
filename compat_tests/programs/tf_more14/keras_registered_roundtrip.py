"""Keras 3 serialization of custom objects as in the keras.io "Save, serialize, and export models" guide: a custom
layer, a custom activation function, a custom loss and a custom metric, each registered with
@keras.saving.register_keras_serializable; a functional model compiled with them, fit, saved to .keras and reloaded
(compile state and optimizer state restored, training continuing with the same losses), to_json/model_from_json and
get_config/from_config clones, and keras.saving.serialize_keras_object/deserialize_keras_object."""

import json
import os
import tempfile

import keras
import numpy as np
from keras import ops


@keras.saving.register_keras_serializable(package="tf_more14")
def scaled_swish(x):
    return x * ops.sigmoid(1.5 * x)


@keras.saving.register_keras_serializable(package="tf_more14")
class ResidualScale(keras.layers.Layer):
    def __init__(self, units=4, init_scale=0.5, **kwargs):
        super().__init__(**kwargs)
        self.units, self.init_scale = units, init_scale
        self.proj = keras.layers.Dense(units, activation=scaled_swish)

    def build(self, input_shape):
        self.proj.build(input_shape)
        self.scale = self.add_weight(shape=(), initializer=keras.initializers.Constant(self.init_scale),
                                     name="scale")

    def call(self, x):
        h = self.proj(x)
        return h + self.scale * ops.mean(x, axis=-1, keepdims=True)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "init_scale": self.init_scale}


@keras.saving.register_keras_serializable(package="tf_more14")
class WeightedMSE(keras.losses.Loss):
    def __init__(self, weight=2.0, name="weighted_mse", **kwargs):
        super().__init__(name=name, **kwargs)
        self.weight = weight

    def call(self, y_true, y_pred):
        return self.weight * ops.mean(ops.square(y_true - y_pred), axis=-1)

    def get_config(self):
        return {**super().get_config(), "weight": self.weight}


@keras.saving.register_keras_serializable(package="tf_more14")
class MaxAbsError(keras.metrics.Metric):
    def __init__(self, name="max_abs_error", **kwargs):
        super().__init__(name=name, **kwargs)
        self.worst = self.add_variable(shape=(), initializer="zeros", name="worst")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.worst.assign(ops.maximum(self.worst, ops.max(ops.abs(y_true - y_pred))))

    def result(self):
        return self.worst

    def reset_state(self):
        self.worst.assign(0.0)


def build():
    inputs = keras.Input((5,), name="features")
    h = ResidualScale(6, name="residual")(inputs)
    outputs = keras.layers.Dense(2, name="head")(h)
    model = keras.Model(inputs, outputs, name="regressor")
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss=WeightedMSE(1.5), metrics=[MaxAbsError()])
    return model


def main():
    keras.utils.set_random_seed(1414)
    rng = np.random.default_rng(1414)
    x = rng.normal(size=(40, 5)).astype("float32")
    y = np.stack([x[:, 0] - x[:, 1], np.tanh(x[:, 2])], axis=1).astype("float32")
    model = build()
    history = model.fit(x, y, batch_size=10, epochs=3, verbose=0, shuffle=False)
    values = history.history["loss"] + history.history["max_abs_error"]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "regressor.keras")
        model.save(path)
        reloaded = keras.models.load_model(path)
    values += [type(reloaded.get_layer("residual")).__name__, type(reloaded.loss).__name__,
               float(reloaded.loss.weight), int(reloaded.optimizer.iterations.numpy()),
               str([m.name for m in reloaded.metrics])]
    values += [float(np.abs(reloaded.predict(x, verbose=0) - model.predict(x, verbose=0)).max())]
    more = model.fit(x, y, batch_size=10, epochs=2, verbose=0, shuffle=False).history["loss"]
    more_reloaded = reloaded.fit(x, y, batch_size=10, epochs=2, verbose=0, shuffle=False).history["loss"]
    values += more + more_reloaded
    values += reloaded.evaluate(x, y, verbose=0, return_dict=False)

    config = json.loads(model.to_json())
    values += [config["class_name"], str([layer["class_name"] for layer in config["config"]["layers"]])]
    clone = keras.models.model_from_json(model.to_json())
    clone.set_weights(model.get_weights())
    values += [float(np.abs(clone.predict(x[:4], verbose=0) - model.predict(x[:4], verbose=0)).max())]
    layer = model.get_layer("residual")
    copy = ResidualScale.from_config(layer.get_config())
    values += [copy.units, copy.init_scale, copy.name]
    serialized = keras.saving.serialize_keras_object(WeightedMSE(3.0))
    values += [serialized["registered_name"], str(sorted(serialized["config"].items()))]
    restored = keras.saving.deserialize_keras_object(serialized)
    values += [float(restored(y, y * 0.5))]
    values += [keras.saving.get_registered_name(scaled_swish), keras.saving.get_registered_name(MaxAbsError),
               keras.saving.get_registered_object("tf_more14>ResidualScale").__name__]
    return values
