"""``model.fit`` histories against real Keras 3.15.1 on TF 2.21, from the same initial weights.

Covers Sequential and Functional MLPs and a small CNN, shuffled (after ``set_random_seed``) and
not, validation data and splits, class and sample weights, multi-output losses and metrics,
tf.data input, dropout/batch-norm/regularized models, eager and traced steps.
"""

import numpy as np
import pytest

from compat_tests.keras.training_harness import VFW, assert_close, data, fresh, history, twin


def mlp(lib, classes=3, hidden=8, activation=None):
    keras = lib.keras
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(hidden, activation="relu"),
                             keras.layers.Dense(classes, activation=activation)])


def compiled(lib, model, optimizer=None, run_eagerly=False, **kwargs):
    keras = lib.keras
    kwargs.setdefault("loss", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    kwargs.setdefault("metrics", ["accuracy"])
    model.compile(optimizer=optimizer or keras.optimizers.Adam(0.01), run_eagerly=run_eagerly, **kwargs)
    return model


X, Y = data(40, 4, classes=3)


@pytest.mark.parametrize("run_eagerly", [False, True])
@pytest.mark.parametrize("shuffle", [False, True, "batch"])
def test_sequential_mlp(shuffle, run_eagerly):
    def train(lib, model):
        compiled(lib, model, run_eagerly=run_eagerly)
        return history(model.fit(X, Y, batch_size=16, epochs=3, shuffle=shuffle, verbose=0))

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_eager_and_traced_steps_give_the_same_numbers():
    runs = []
    for run_eagerly in (False, True):
        fresh(VFW)
        model = compiled(VFW, mlp(VFW), run_eagerly=run_eagerly)
        runs.append((history(model.fit(X, Y, batch_size=16, epochs=2, verbose=0)), model.get_weights()))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_array_equal(a, b)


def test_shuffled_batches_are_keras_order():
    # Which samples each batch holds (a linear model with SGD(0) leaves the loss per batch as a
    # fingerprint of the batch): Keras on TF uses the same seeded order every epoch.
    def train(lib, model):
        compiled(lib, model, optimizer=lib.keras.optimizers.SGD(0.0), metrics=[])
        losses = []
        callback = lib.keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: losses.append(logs["loss"]))
        model.fit(X, Y, batch_size=8, epochs=2, shuffle=True, verbose=0, callbacks=[callback])
        return losses

    real, mine = twin(mlp, train, seed=7)
    assert_close(real, mine)


def test_validation_split_and_data():
    def train(lib, model):
        compiled(lib, model)
        first = history(model.fit(X, Y, batch_size=8, epochs=2, validation_split=0.25, verbose=0))
        second = history(model.fit(X, Y, batch_size=8, epochs=3, validation_data=(X[:10], Y[:10]),
                                   validation_batch_size=4, validation_freq=[1, 3], verbose=0))
        return first, second

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_class_weight():
    def train(lib, model):
        compiled(lib, model, weighted_metrics=["accuracy"])
        return history(model.fit(X, Y, batch_size=16, epochs=2, class_weight={0: 0.5, 1: 2.0}, verbose=0))

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_sample_weight_and_weighted_metrics():
    weights = np.linspace(0.1, 1.0, 40).astype("float32")

    def train(lib, model):
        compiled(lib, model, metrics=["accuracy", "sparse_categorical_crossentropy"],
                 weighted_metrics=["accuracy", "sparse_categorical_crossentropy"])
        return history(model.fit(X, Y, batch_size=16, epochs=2, sample_weight=weights, validation_split=0.2,
                                 verbose=0))

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def functional(lib):
    keras = lib.keras
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(6, activation="tanh", name="hidden")(inputs)
    value = keras.layers.Dense(1, name="value")(hidden)
    label = keras.layers.Dense(3, activation="softmax", name="label")(hidden)
    return keras.Model(inputs, [value, label])


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_multi_output_losses_and_metrics(run_eagerly):
    # Eager and traced steps differ in the per-output loss means on a partial batch, as in Keras.
    targets = X[:, 0]

    def train(lib, model):
        model.compile(lib.keras.optimizers.SGD(0.05), loss=["mse", "sparse_categorical_crossentropy"],
                      loss_weights=[0.5, 2.0], metrics=[["mae"], ["accuracy", "acc"]], run_eagerly=run_eagerly)
        first = history(model.fit(X, [targets, Y], batch_size=16, epochs=2, verbose=0))
        model.compile(lib.keras.optimizers.SGD(0.05), loss={"value": "mse", "label": "sparse_categorical_crossentropy"},
                      metrics={"label": "accuracy"}, run_eagerly=run_eagerly)
        second = history(model.fit(X, {"value": targets, "label": Y}, batch_size=16, epochs=2, verbose=0))
        evaluated = model.evaluate(X, {"value": targets, "label": Y}, verbose=0)
        return first, second, evaluated, model.metrics_names

    real, mine = twin(functional, train)
    assert_close(real, mine)


def test_multi_input_dict():
    def build(lib):
        keras = lib.keras
        a, b = keras.Input((4,), name="a"), keras.Input((2,), name="b")
        merged = keras.layers.Concatenate()([keras.layers.Dense(3, name="da")(a), keras.layers.Dense(3, name="db")(b)])
        return keras.Model({"a": a, "b": b}, keras.layers.Dense(1, name="out")(merged))

    def train(lib, model):
        model.compile("rmsprop", loss="mse", metrics=["mae"])
        h = model.fit({"a": X, "b": X[:, :2]}, X[:, 1], batch_size=8, epochs=2, verbose=0)
        return history(h), model.predict({"a": X, "b": X[:, :2]}, verbose=0)

    real, mine = twin(build, train)
    assert_close(real, mine)


def test_tf_data_input():
    def train(lib, model):
        compiled(lib, model)
        dataset = lib.tf.data.Dataset.from_tensor_slices((X, Y)).batch(16)
        validation = lib.tf.data.Dataset.from_tensor_slices((X[:12], Y[:12])).batch(5)
        h = model.fit(dataset, epochs=2, validation_data=validation, verbose=0)
        weighted = model.fit(dataset, epochs=1, class_weight={2: 3.0}, verbose=0)
        return history(h), history(weighted), model.evaluate(dataset, verbose=0)

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_generator_and_py_dataset_inputs():
    def train(lib, model):
        compiled(lib, model)

        def batches():
            for start in range(0, 40, 10):
                yield X[start:start + 10], Y[start:start + 10]

        class Batches(lib.keras.utils.PyDataset):
            def __len__(self):
                return 4

            def __getitem__(self, index):
                return X[index * 10:(index + 1) * 10], Y[index * 10:(index + 1) * 10]

        from_generator = history(model.fit(batches(), epochs=2, verbose=0))
        from_py_dataset = history(model.fit(Batches(), epochs=2, shuffle=True, verbose=0))
        return from_generator, from_py_dataset

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_regularized_dropout_batch_norm_model():
    def build(lib):
        keras = lib.keras
        return keras.Sequential([
            keras.Input((4,)), keras.layers.Dense(8, activation="relu", kernel_regularizer="l2"),
            keras.layers.Dropout(0.3), keras.layers.BatchNormalization(),
            keras.layers.Dense(3, activity_regularizer=keras.regularizers.L1(0.01))])

    def train(lib, model):
        compiled(lib, model)
        h = model.fit(X, Y, batch_size=16, epochs=3, validation_split=0.25, verbose=0)
        return history(h), model.get_weights()

    real, mine = twin(build, train)
    assert_close(real, mine)


def test_small_cnn():
    images, labels = data(24, 8, 8, 1, classes=4, seed=3)

    def build(lib):
        layers = lib.keras.layers
        return lib.keras.Sequential([lib.keras.Input((8, 8, 1)), layers.Conv2D(4, 3, activation="relu"),
                                     layers.MaxPooling2D(), layers.Flatten(), layers.Dense(4)])

    def train(lib, model):
        compiled(lib, model)
        h = model.fit(images, labels, batch_size=8, epochs=2, shuffle=True, verbose=0)
        return history(h), model.predict(images, verbose=0)

    real, mine = twin(build, train)
    assert_close(real, mine)


def test_steps_per_epoch_initial_epoch_and_steps_per_execution():
    def train(lib, model):
        compiled(lib, model, steps_per_execution=2)
        first = model.fit(X, Y, batch_size=8, epochs=2, verbose=0)
        second = model.fit(X, Y, batch_size=8, epochs=4, initial_epoch=2, steps_per_epoch=3, verbose=0)
        return history(first), history(second), second.epoch, second.params

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_validation_steps_and_repeated_dataset():
    def train(lib, model):
        compiled(lib, model, optimizer=lib.keras.optimizers.SGD(0.1))
        data = lib.tf.data.Dataset
        first = model.fit(X, Y, epochs=3, batch_size=8, steps_per_epoch=3, verbose=0,
                          validation_data=data.from_tensor_slices((X, Y)).batch(5), validation_steps=3)
        second = model.fit(data.from_tensor_slices((X, Y)).batch(8).repeat(), epochs=3, steps_per_epoch=3, verbose=0,
                           validation_data=(X, Y), validation_steps=2, validation_batch_size=4)
        return history(first), history(second)

    real, mine = twin(mlp, train)
    assert_close(real, mine)
