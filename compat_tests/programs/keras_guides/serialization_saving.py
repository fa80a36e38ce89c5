"""The keras.io guide "Save, serialize, and export models": .keras save/load of a functional model, a subclassed
model with get_config/from_config registered with register_keras_serializable, custom objects passed through
custom_objects and custom_object_scope, get_config/from_config of layers and Sequential/functional models,
to_json/model_from_json, clone_model, get_weights/set_weights transfer between models, save_weights and
load_weights with .weights.h5 files, and a registered custom function (activation) reloaded by name."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


@keras.saving.register_keras_serializable(package="my_package", name="custom_fn")
def custom_fn(x):
    return x ** 2


@keras.saving.register_keras_serializable(package="MyLayers")
class CustomLayer(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor})
        return config


@keras.saving.register_keras_serializable(package="my_package", name="MyDense")
class MyDense(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True,
                                 name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="random_normal", trainable=True, name="b")

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@keras.saving.register_keras_serializable(package="my_package", name="MyModel")
class MyModel(keras.Model):
    def __init__(self, hidden_units, **kwargs):
        super().__init__(**kwargs)
        self.hidden_units = hidden_units
        self.dense_layers = [keras.layers.Dense(u, activation="relu") for u in hidden_units]
        self.head = keras.layers.Dense(1)

    def call(self, inputs):
        x = inputs
        for layer in self.dense_layers:
            x = layer(x)
        return self.head(x)

    def get_config(self):
        return {**super().get_config(), "hidden_units": self.hidden_units}


class UnregisteredLayer(keras.layers.Layer):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units)

    def call(self, inputs):
        return tf.nn.relu(self.dense(inputs))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@keras.saving.register_keras_serializable(package="my_custom_package")
class LayerWithCustomVariable(keras.layers.Dense):
    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.my_variable = keras.Variable(np.random.default_rng(0).random((units,)), name="my_variable",
                                          dtype="float32")

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["variables"] = self.my_variable.numpy()

    def load_own_variables(self, store):
        # The guide assigns store[str(i)] to each of self.weights, which Keras 3.15.1 itself refuses (Dense saves
        # only its kernel and bias, and self.weights starts with my_variable): let Dense read its own entries.
        super().load_own_variables(store)
        self.my_variable.assign(store["variables"])

    def call(self, inputs):
        dense_out = super().call(inputs)
        return dense_out + self.my_variable


def get_model():
    inputs = keras.Input(shape=(6,))
    x = MyDense(4, name="my_dense")(inputs)
    x = CustomLayer(0.5, name="custom_layer")(x)
    x = keras.layers.Activation(custom_fn)(x)
    outputs = keras.layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mean_squared_error")
    return model


def main():
    keras.utils.set_random_seed(8)
    rng = np.random.default_rng(8)
    x = rng.random((32, 6)).astype("float32")
    y = rng.random((32, 1)).astype("float32")
    values = []
    with tempfile.TemporaryDirectory() as directory:
        model = get_model()
        values += model.fit(x, y, epochs=2, batch_size=8, verbose=0).history["loss"]
        path = os.path.join(directory, "my_model.keras")
        model.save(path)
        reconstructed = keras.models.load_model(path)
        values += [float(np.max(np.abs(model.predict(x, verbose=0) - reconstructed.predict(x, verbose=0))))]
        values += reconstructed.fit(x, y, epochs=1, batch_size=8, verbose=0).history["loss"]
        values += [str([type(layer).__name__ for layer in reconstructed.layers]),
                   str(keras.saving.get_registered_name(CustomLayer)),
                   str(keras.saving.get_registered_object("my_package>custom_fn") is custom_fn)]

        subclassed = MyModel([8, 4])
        subclassed.compile(optimizer="sgd", loss="mse")
        values += subclassed.fit(x, y, epochs=2, batch_size=8, verbose=0).history["loss"]
        sub_path = os.path.join(directory, "subclassed.keras")
        subclassed.save(sub_path)
        loaded = keras.models.load_model(sub_path)
        values += [str(type(loaded).__name__), str(loaded.hidden_units), str(loaded.get_config())]
        values += [float(v) for v in np.ravel(loaded.predict(x[:3], verbose=0))]
        values += loaded.fit(x, y, epochs=1, batch_size=8, verbose=0).history["loss"]

        inputs = keras.Input((6,))
        outputs = UnregisteredLayer(3)(inputs)
        functional = keras.Model(inputs, outputs)
        fpath = os.path.join(directory, "unregistered.keras")
        functional.save(fpath)
        try:
            keras.models.load_model(fpath)
            values += ["loaded"]
        except TypeError as error:
            values += ["TypeError"] + [str("UnregisteredLayer" in str(error))]
        loaded = keras.models.load_model(fpath, custom_objects={"UnregisteredLayer": UnregisteredLayer})
        values += [float(np.max(np.abs(loaded(x) - functional(x))))]
        with keras.saving.custom_object_scope({"UnregisteredLayer": UnregisteredLayer}):
            loaded = keras.models.load_model(fpath)
        values += [float(np.sum(loaded(x)))]

        layer = keras.layers.Dense(3, activation="relu")
        layer_config = layer.get_config()
        new_layer = keras.layers.Dense.from_config(layer_config)
        values += [str(layer_config), str(new_layer.get_config() == layer_config)]
        serialized = keras.layers.serialize(layer)
        values += [str(serialized), type(keras.layers.deserialize(serialized)).__name__]

        sequential = keras.Sequential([keras.Input((32,)), keras.layers.Dense(1)])
        config = sequential.get_config()
        new_model = keras.Sequential.from_config(config)
        values += [str(config), str(len(new_model.weights))]
        json_config = sequential.to_json()
        new_model = keras.models.model_from_json(json_config)
        values += [json_config, str(len(new_model.layers))]
        clone = keras.models.clone_model(model)
        values += [str([w.path for w in clone.weights]), str(len(clone.weights) == len(model.weights))]

        def create_layer():
            layer = keras.layers.Dense(8, activation="relu", name="dense_1")
            layer.build((None, 6))
            return layer

        layer_1 = create_layer()
        layer_2 = create_layer()
        layer_2.set_weights(layer_1.get_weights())
        values += [float(np.max(np.abs(layer_1(x) - layer_2(x))))]

        weights_path = os.path.join(directory, "ckpt.weights.h5")
        model.save_weights(weights_path)
        fresh = get_model()
        before = float(np.max(np.abs(fresh.predict(x, verbose=0) - model.predict(x, verbose=0))))
        fresh.load_weights(weights_path)
        after = float(np.max(np.abs(fresh.predict(x, verbose=0) - model.predict(x, verbose=0))))
        values += [str(before > 0), after]
        try:
            model.save_weights(os.path.join(directory, "ckpt.h5"))
        except ValueError as error:
            values += ["ValueError", str(error).replace(directory, "<dir>")]
        values += _configs_and_custom_state(directory, x)
    return values


def _configs_and_custom_state(directory, x):
    model = keras.Sequential([keras.Input((6,)), LayerWithCustomVariable(units=2)])
    model.layers[0].my_variable.assign(np.array([0.25, -0.5], dtype="float32"))
    model.compile(optimizer="rmsprop", loss="mse")
    path = os.path.join(directory, "custom_vars.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    values = [float(np.max(np.abs(restored.layers[0].my_variable.numpy() - model.layers[0].my_variable.numpy()))),
              float(np.max(np.abs(restored.predict(x[:4], verbose=0) - model.predict(x[:4], verbose=0))))]
    values += [str(model.layers[0].get_build_config()), str(model.get_compile_config()),
               str(keras.saving.serialize_keras_object(model.layers[0]))]
    dense = keras.layers.Dense(2)
    dense.build_from_config({"input_shape": (None, 6)})
    values += [str(dense.built), str(tuple(dense.kernel.shape))]
    optimizer = keras.saving.deserialize_keras_object({"class_name": "Adam", "config": {"learning_rate": 0.01},
                                                       "module": "keras.optimizers", "registered_name": None})
    values += [type(optimizer).__name__, float(optimizer.learning_rate)]
    return values


if __name__ == "__main__":
    print(main())
