"""Custom Keras objects passed by hand rather than registered: a layer with add_weight (a regularizer and a
constraint), get_config holding a serialized initializer and from_config rebuilding it, a keras.losses.Loss
subclass and a keras.metrics.Metric subclass (weighted by sample_weight) compiled into a Sequential model; save to
.keras, load_model with custom_objects=, then a custom_object_scope, model.to_json/model_from_json, and
layer.from_config(layer.get_config()) giving the same outputs once weights are set."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


class GatedDense(keras.layers.Layer):
    def __init__(self, units, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.kernel_initializer = keras.initializers.get(kernel_initializer)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2 * self.units), initializer=self.kernel_initializer,
                                      regularizer=keras.regularizers.L2(1e-3), name="kernel")
        self.gate_bias = self.add_weight(shape=(self.units,), initializer="ones", name="gate_bias",
                                         constraint=keras.constraints.NonNeg())

    def call(self, inputs):
        value, gate = tf.split(tf.matmul(inputs, self.kernel), 2, axis=-1)
        return value * tf.sigmoid(gate + self.gate_bias)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units,
                       "kernel_initializer": keras.initializers.serialize(self.kernel_initializer)})
        return config

    @classmethod
    def from_config(cls, config):
        config["kernel_initializer"] = keras.initializers.deserialize(config["kernel_initializer"])
        return cls(**config)


class FocalBinaryLoss(keras.losses.Loss):
    def __init__(self, gamma=2.0, name="focal_binary", **kwargs):
        super().__init__(name=name, **kwargs)
        self.gamma = gamma

    def call(self, y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-6, 1 - 1e-6)
        p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
        return tf.reduce_mean(-((1 - p_t) ** self.gamma) * tf.math.log(p_t), axis=-1)

    def get_config(self):
        return {**super().get_config(), "gamma": self.gamma}


class PositiveRate(keras.metrics.Metric):
    def __init__(self, name="positive_rate", threshold=0.5, **kwargs):
        super().__init__(name=name, **kwargs)
        self.threshold = threshold
        self.positives = self.add_variable(shape=(), initializer="zeros", name="positives")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        predicted = tf.cast(y_pred > self.threshold, self.dtype)
        if sample_weight is None:
            sample_weight = tf.ones_like(predicted)
        sample_weight = tf.reshape(tf.cast(sample_weight, self.dtype), tf.shape(predicted))
        self.positives.assign_add(tf.reduce_sum(predicted * sample_weight))
        self.count.assign_add(tf.reduce_sum(sample_weight))

    def result(self):
        return tf.math.divide_no_nan(self.positives, self.count)

    def get_config(self):
        return {**super().get_config(), "threshold": self.threshold}


def main():
    keras.utils.set_random_seed(41)
    rng = np.random.default_rng(41)
    x = rng.normal(size=(80, 5)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.float32)[:, None]

    model = keras.Sequential([keras.Input((5,)),
                              GatedDense(6, kernel_initializer=keras.initializers.HeNormal(seed=4), name="gated"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.03), loss=FocalBinaryLoss(gamma=1.5),
                  metrics=[PositiveRate(threshold=0.4), "binary_accuracy"])
    history = model.fit(x, y, sample_weight=np.where(y[:, 0] > 0, 2.0, 1.0), batch_size=20, epochs=2, verbose=0)
    values = [str(sorted(history.history))] + history.history["loss"] + history.history["positive_rate"]
    values += [float(loss) for loss in model.losses]
    values += [float(v) for v in model.get_layer("gated").gate_bias.numpy()]

    custom = {"GatedDense": GatedDense, "FocalBinaryLoss": FocalBinaryLoss, "PositiveRate": PositiveRate}
    path = os.path.join(tempfile.mkdtemp(), "gated.keras")
    model.save(path)
    loaded = keras.models.load_model(path, custom_objects=custom)
    values += [float(v) for v in loaded.evaluate(x, y, verbose=0)]
    values += [str(type(loaded.loss).__name__), float(loaded.loss.gamma)]
    with keras.saving.custom_object_scope(custom):
        scoped = keras.models.load_model(path)
        rebuilt = keras.models.model_from_json(model.to_json())
    rebuilt.set_weights(model.get_weights())
    values += [float(v) for v in scoped.predict(x[:4], verbose=0).ravel()]
    values += [float(v) for v in rebuilt(x[:4]).numpy().ravel()]

    layer = model.get_layer("gated")
    config = layer.get_config()
    values += [str(sorted(config)), str(config["kernel_initializer"])]
    clone = GatedDense.from_config(layer.get_config())
    clone.build((None, 5))
    clone.set_weights(layer.get_weights())
    values += [float(v) for v in clone(x[:2]).numpy().ravel()]
    return values


if __name__ == "__main__":
    print(main())
