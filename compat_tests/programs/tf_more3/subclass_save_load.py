"""A subclassed keras.Model with call(training=...): BatchNormalization and Dropout behave differently in fit,
evaluate and predict; get_config/from_config for the model and a custom layer; model.save("x.keras") and
keras.models.load_model with custom_objects, predictions compared after loading; save_weights/load_weights into a
model built from the config; the loaded model trains on."""

import os
import tempfile

import keras
import numpy as np
from keras import layers


class ScaledResidual(layers.Layer):
    def __init__(self, units, scale=0.5, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.scale = scale
        self.dense = layers.Dense(units, activation="relu")

    def call(self, inputs):
        return inputs + self.scale * self.dense(inputs)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "scale": self.scale})
        return config


class Classifier(keras.Model):
    def __init__(self, hidden=12, classes=3, rate=0.3, **kwargs):
        super().__init__(**kwargs)
        self.hidden, self.classes, self.rate = hidden, classes, rate
        self.project = layers.Dense(hidden, use_bias=False)  # BatchNormalization follows: a bias would only drift
        self.norm = layers.BatchNormalization(momentum=0.8)
        self.block = ScaledResidual(hidden)
        self.dropout = layers.Dropout(rate)
        self.head = layers.Dense(classes, activation="softmax")

    def call(self, inputs, training=False):
        x = self.norm(self.project(inputs), training=training)
        x = self.block(keras.activations.relu(x))
        return self.head(self.dropout(x, training=training))

    def get_config(self):
        return {"hidden": self.hidden, "classes": self.classes, "rate": self.rate, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def main():
    keras.utils.set_random_seed(46)
    rng = np.random.default_rng(46)
    x = rng.normal(size=(96, 5)).astype(np.float32)
    y = np.argmax(x[:, :3] + 0.3 * rng.normal(size=(96, 3)), axis=1)
    model = Classifier(name="classifier")
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x[:80], y[:80], batch_size=16, epochs=3, verbose=0)
    values = history.history["loss"] + history.history["accuracy"]
    values += model.evaluate(x[80:], y[80:], verbose=0)
    predicted = model.predict(x[80:], verbose=0)
    training_out = model(x[80:], training=True)
    values += [float(np.sum(predicted)), float(np.sum(predicted[:, 0])), float(keras.ops.sum(training_out[:, 0]))]
    values += [float(v) for v in model.norm.moving_mean.numpy()[:4]]

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "classifier.keras")
        model.save(path)
        loaded = keras.models.load_model(path, custom_objects={"Classifier": Classifier,
                                                               "ScaledResidual": ScaledResidual})
        values += [float(np.max(np.abs(loaded.predict(x[80:], verbose=0) - predicted))), type(loaded).__name__,
                   str(sorted(loaded.get_config().items())), str(sorted(os.listdir(directory)))]
        weights_path = os.path.join(directory, "classifier.weights.h5")
        model.save_weights(weights_path)
        clone = Classifier.from_config(model.get_config())
        clone(x[:1])
        clone.load_weights(weights_path)
        values += [float(np.max(np.abs(clone.predict(x[80:], verbose=0) - predicted)))]
        history = loaded.fit(x[:80], y[:80], batch_size=16, epochs=2, verbose=0, shuffle=False)
        values += history.history["loss"] + [float(loaded.optimizer.iterations.numpy())]
        block = ScaledResidual.from_config(model.block.get_config())
        values += [str(sorted(block.get_config().items())), len(clone.weights), len(clone.trainable_weights)]
    return values


if __name__ == "__main__":
    print(main())
