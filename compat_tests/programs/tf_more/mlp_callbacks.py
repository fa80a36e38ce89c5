"""An MNIST-style Sequential MLP on synthetic 28x28 images: to_categorical labels, validation_split, EarlyStopping,
ModelCheckpoint to a temporary directory, ReduceLROnPlateau, evaluate, predict and learning-rate reads."""

import os
import tempfile

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    images = rng.uniform(0, 255, (300, 28, 28)).astype(np.float32)
    digits = (images[:, 10:18, 10:18].mean(axis=(1, 2)) // 26).astype(np.int64) % 10
    x = images / 255.0
    y = tf.keras.utils.to_categorical(digits, num_classes=10)
    model = tf.keras.Sequential([
        tf.keras.layers.Input(shape=(28, 28)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=3e-3), loss="categorical_crossentropy",
                  metrics=["accuracy"])
    folder = tempfile.mkdtemp()
    checkpoint = os.path.join(folder, "best.keras")
    callbacks = [
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True),
        tf.keras.callbacks.ModelCheckpoint(checkpoint, monitor="val_loss", save_best_only=True),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=1e-4),
    ]
    history = model.fit(x, y, validation_split=0.2, batch_size=32, epochs=6, callbacks=callbacks, verbose=0)
    values = (history.history["loss"] + history.history["val_loss"] + history.history["accuracy"]
              + history.history["val_accuracy"] + [float(v) for v in history.history["learning_rate"]])
    test_loss, test_accuracy = model.evaluate(x[:64], y[:64], batch_size=16, verbose=0)
    probabilities = model.predict(x[:10], verbose=0)
    best = tf.keras.models.load_model(checkpoint)
    values += [test_loss, test_accuracy, float(probabilities.sum()), float(probabilities.argmax(axis=1).sum()),
               float(model.optimizer.learning_rate.numpy()), float(len(history.epoch)),
               float(best.evaluate(x[:64], y[:64], verbose=0)[0]), float(os.path.exists(checkpoint))]
    return values


if __name__ == "__main__":
    print(main())
