"""The Keras "Timeseries classification from scratch" example, shrunk: a fully convolutional network (Conv1D +
BatchNormalization + ReLU blocks, GlobalAveragePooling1D, softmax) on synthetic univariate series, labels shifted
to 0..n-1, sparse_categorical_crossentropy with sparse_categorical_accuracy, callbacks ModelCheckpoint
(save_best_only to a .keras file, reloaded), ReduceLROnPlateau and EarlyStopping, validation_split, then evaluate
of the reloaded best model."""

import os
import tempfile

import keras
import numpy as np


def make_model(input_shape, num_classes):
    input_layer = keras.layers.Input(input_shape)
    x = input_layer
    for _ in range(3):
        x = keras.layers.Conv1D(filters=8, kernel_size=3, padding="same")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
    gap = keras.layers.GlobalAveragePooling1D()(x)
    output_layer = keras.layers.Dense(num_classes, activation="softmax")(gap)
    return keras.models.Model(inputs=input_layer, outputs=output_layer)


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    t = np.linspace(0, 4 * np.pi, 40)
    labels = rng.choice([-1, 1], 120)
    freq = np.where(labels > 0, 1.0, 2.0)
    x = np.sin(freq[:, None] * t[None, :] + rng.uniform(0, 6, (120, 1))) + 0.3 * rng.normal(size=(120, 40))
    x = x.reshape((x.shape[0], x.shape[1], 1)).astype(np.float32)
    y = labels.copy()
    y[y == -1] = 0
    num_classes = len(np.unique(y))

    model = make_model(x.shape[1:], num_classes)
    path = os.path.join(tempfile.mkdtemp(), "best_model.keras")
    callbacks = [
        keras.callbacks.ModelCheckpoint(path, save_best_only=True, monitor="val_loss"),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=0.0001),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=3, verbose=0),
    ]
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    history = model.fit(x[:100], y[:100], batch_size=16, epochs=4, callbacks=callbacks, validation_split=0.2,
                        verbose=0)
    values = (history.history["loss"] + history.history["val_loss"] + history.history["learning_rate"]
              + history.history["sparse_categorical_accuracy"])
    best = keras.models.load_model(path)
    test_loss, test_acc = best.evaluate(x[100:], y[100:], verbose=0)
    values += [test_loss, test_acc, str(sorted(history.history)), str(len(best.layers))]
    values += [float(v) for v in best.predict(x[100:104], verbose=0).ravel()]
    return values


if __name__ == "__main__":
    print(main())
