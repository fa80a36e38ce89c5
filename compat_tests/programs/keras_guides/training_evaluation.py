"""The keras.io guide "Training & evaluation with built-in methods": compile/fit with validation_data,
history.history, evaluate and predict, string shortcuts for optimizer/loss/metrics, custom losses (a function and a
Loss subclass with get_config), a custom Metric subclass (CategoricalTruePositives), add_loss in a layer and
through a model, metrics_names, evaluate(return_dict=True), validation_split, tf.data datasets with steps_per_epoch
and validation_steps, class_weight, sample_weight (arrays and in a dataset), multi-input multi-output models with
dict losses/metrics/loss_weights, and losses left out for an output."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def get_uncompiled_model():
    inputs = keras.Input(shape=(20,), name="digits")
    x = layers.Dense(16, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(16, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, activation="softmax", name="predictions")(x)
    return keras.Model(inputs=inputs, outputs=outputs)


def get_compiled_model():
    model = get_uncompiled_model()
    model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    return model


def _dict_values(logs):
    return [" ".join(sorted(logs))] + [logs[key] for key in sorted(logs)]


def custom_mean_squared_error(y_true, y_pred):
    return tf.math.reduce_mean(tf.square(y_true - y_pred), axis=-1)


class CustomMSE(keras.losses.Loss):
    def __init__(self, regularization_factor=0.1, name="custom_mse"):
        super().__init__(name=name)
        self.regularization_factor = regularization_factor

    def call(self, y_true, y_pred):
        mse = tf.math.reduce_mean(tf.square(y_true - y_pred), axis=-1)
        reg = tf.math.reduce_mean(tf.square(0.5 - y_pred), axis=-1)
        return mse + reg * self.regularization_factor


class CategoricalTruePositives(keras.metrics.Metric):
    def __init__(self, name="categorical_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), name="ctp", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.reshape(tf.argmax(y_pred, axis=1), shape=(-1, 1))
        values = tf.cast(y_true, "int32") == tf.cast(y_pred, "int32")
        values = tf.cast(values, "float32")
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, "float32")
            values = tf.multiply(values, sample_weight)
        self.true_positives.assign_add(tf.reduce_sum(values))

    def result(self):
        return self.true_positives

    def reset_state(self):
        self.true_positives.assign(0.0)


class ActivityRegularizationLayer(layers.Layer):
    def call(self, inputs):
        self.add_loss(tf.reduce_sum(inputs) * 0.1)
        return inputs


def main():
    keras.utils.set_random_seed(2024)
    rng = np.random.default_rng(2024)
    x_train = rng.random((120, 20)).astype("float32")
    y_train = rng.integers(0, 10, size=(120,)).astype("float32")
    x_val, y_val = x_train[-30:], y_train[-30:]
    x_train, y_train = x_train[:-30], y_train[:-30]
    x_test, y_test = rng.random((20, 20)).astype("float32"), rng.integers(0, 10, size=(20,)).astype("float32")
    values = []

    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.RMSprop(),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[keras.metrics.SparseCategoricalAccuracy()])
    history = model.fit(x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val), verbose=0)
    values += [str(sorted(history.history))] + history.history["loss"] + history.history["val_loss"]
    values += model.evaluate(x_test, y_test, batch_size=64, verbose=0)
    values += [str(model.predict(x_test[:3], verbose=0).shape), str(model.metrics_names)]
    values += _dict_values(model.evaluate(x_test, y_test, verbose=0, return_dict=True))

    model = get_uncompiled_model()
    model.compile(optimizer="adam", loss=custom_mean_squared_error)
    y_train_one_hot = tf.one_hot(y_train, depth=10)
    values += model.fit(x_train, y_train_one_hot, batch_size=32, epochs=1, verbose=0).history["loss"]
    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.Adam(), loss=CustomMSE())
    values += model.fit(x_train, y_train_one_hot, batch_size=32, epochs=1, verbose=0).history["loss"]
    values += [str(CustomMSE().get_config())]

    model = get_uncompiled_model()
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(), metrics=[CategoricalTruePositives()])
    history = model.fit(x_train, y_train, batch_size=32, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["categorical_true_positives"] + [str(model.metrics_names)]

    inputs = keras.Input(shape=(20,), name="digits")
    x = layers.Dense(16, activation="relu", name="dense_1")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = layers.Dense(16, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    values += model.fit(x_train, y_train, batch_size=32, epochs=1, verbose=0).history["loss"]

    model = get_compiled_model()
    history = model.fit(x_train, y_train, batch_size=32, validation_split=0.2, epochs=1, verbose=0)
    values += history.history["val_loss"] + history.history["sparse_categorical_accuracy"]

    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(buffer_size=90, seed=1).batch(16)
    val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(16)
    model = get_compiled_model()
    history = model.fit(train_dataset, epochs=2, steps_per_epoch=4, validation_data=val_dataset, validation_steps=1,
                        verbose=0)
    values += history.history["loss"] + history.history["val_loss"]
    values += _dict_values(model.evaluate(val_dataset, verbose=0, return_dict=True))

    class_weight = {i: 1.0 for i in range(10)}
    class_weight[5] = 2.0
    model = get_compiled_model()
    values += model.fit(x_train, y_train, class_weight=class_weight, batch_size=32, epochs=1,
                        verbose=0).history["loss"]
    sample_weight = np.ones(shape=(len(y_train),))
    sample_weight[y_train == 5] = 2.0
    model = get_compiled_model()
    values += model.fit(x_train, y_train, sample_weight=sample_weight, batch_size=32, epochs=1,
                        verbose=0).history["loss"]
    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train, sample_weight)).batch(32)
    model = get_compiled_model()
    values += model.fit(train_dataset, epochs=1, verbose=0).history["loss"]

    image_input = keras.Input(shape=(8, 8, 3), name="img_input")
    timeseries_input = keras.Input(shape=(None, 4), name="ts_input")
    x1 = layers.Conv2D(3, 3)(image_input)
    x1 = layers.GlobalMaxPooling2D()(x1)
    x2 = layers.Conv1D(3, 3)(timeseries_input)
    x2 = layers.GlobalMaxPooling1D()(x2)
    x = layers.concatenate([x1, x2])
    score_output = layers.Dense(1, name="score_output")(x)
    class_output = layers.Dense(5, name="class_output")(x)
    model = keras.Model(inputs=[image_input, timeseries_input], outputs=[score_output, class_output])
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss={"score_output": keras.losses.MeanSquaredError(),
                        "class_output": keras.losses.CategoricalCrossentropy()},
                  metrics={"score_output": [keras.metrics.MeanAbsolutePercentageError(),
                                            keras.metrics.MeanAbsoluteError()],
                           "class_output": [keras.metrics.CategoricalAccuracy()]},
                  loss_weights={"score_output": 2.0, "class_output": 1.0})
    img_data = rng.random((24, 8, 8, 3)).astype("float32")
    ts_data = rng.random((24, 10, 4)).astype("float32")
    score_targets = rng.random((24, 1)).astype("float32")
    class_targets = rng.random((24, 5)).astype("float32")
    history = model.fit([img_data, ts_data], [score_targets, class_targets], batch_size=8, epochs=2, verbose=0)
    values += [str(sorted(history.history))] + [history.history[k][-1] for k in sorted(history.history)]
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3), loss=[None, keras.losses.CategoricalCrossentropy()])
    history = model.fit({"img_input": img_data, "ts_input": ts_data}, [score_targets, class_targets], batch_size=8,
                        epochs=1, verbose=0)
    values += [str(sorted(history.history))] + history.history["loss"]
    train_dataset = tf.data.Dataset.from_tensor_slices(
        ({"img_input": img_data, "ts_input": ts_data}, {"score_output": score_targets, "class_output": class_targets}))
    values += model.fit(train_dataset.batch(8), epochs=1, verbose=0).history["loss"]
    values += _schedules_checkpoints_pydataset(x_train, y_train, x_val, y_val)
    return values


class ExamplePyDataset(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x = x
        self.y = y
        self.batch_size = batch_size

    def __len__(self):
        return int(np.ceil(len(self.x) / float(self.batch_size)))

    def __getitem__(self, idx):
        batch_x = self.x[idx * self.batch_size:(idx + 1) * self.batch_size]
        batch_y = self.y[idx * self.batch_size:(idx + 1) * self.batch_size]
        return batch_x, batch_y


def _schedules_checkpoints_pydataset(x_train, y_train, x_val, y_val):
    values = []
    lr_schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=3, decay_rate=0.96, staircase=True)
    optimizer = keras.optimizers.RMSprop(learning_rate=lr_schedule)
    model = get_uncompiled_model()
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    callbacks = [keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=1e-2, patience=2, verbose=0)]
    history = model.fit(x_train, y_train, epochs=20, batch_size=32, callbacks=callbacks, validation_split=0.2,
                        verbose=0)
    values += history.history["loss"] + [float(optimizer.learning_rate), float(optimizer.iterations)]
    values += [str(lr_schedule.get_config())]
    with tempfile.TemporaryDirectory() as directory:
        model = get_compiled_model()
        callbacks = [keras.callbacks.ModelCheckpoint(filepath=os.path.join(directory, "mymodel_{epoch}.keras"),
                                                     save_best_only=True, monitor="val_loss", verbose=0)]
        model.fit(x_train, y_train, epochs=3, batch_size=32, callbacks=callbacks, validation_split=0.2, verbose=0)
        saved = sorted(os.listdir(directory))
        values += [str(saved)]
        restored = keras.models.load_model(os.path.join(directory, saved[-1]))
        values += restored.evaluate(x_val, y_val, verbose=0)
    train_py_dataset = ExamplePyDataset(x_train, y_train, batch_size=32)
    val_py_dataset = ExamplePyDataset(x_val, y_val, batch_size=32)
    model = get_compiled_model()
    history = model.fit(train_py_dataset, validation_data=val_py_dataset, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["val_loss"]
    values += model.evaluate(val_py_dataset, verbose=0)
    return values


if __name__ == "__main__":
    print(main())
