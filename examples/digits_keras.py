"""Train a digit classifier Keras-style: Sequential, compile, fit with a validation split, evaluate.

The same task as ``digits_torch.py`` (synthetic 8x8 digits, no download) in ordinary TF/Keras code;
only the import names vfw.  Images are channels-last, as Keras expects.
"""

import vfw.tensorflow as tf
from digits import make_digits

keras = tf.keras


def main():
    keras.utils.set_random_seed(0)
    train_images, train_labels = make_digits(2000, seed=0)
    test_images, test_labels = make_digits(500, seed=1)
    model = keras.Sequential([
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.summary()
    history = model.fit(train_images[..., None], train_labels, batch_size=32, epochs=5, validation_split=0.1,
                        verbose=0, callbacks=[keras.callbacks.ReduceLROnPlateau(patience=1)])
    for epoch, (loss, accuracy) in enumerate(zip(history.history["loss"], history.history["val_accuracy"]), 1):
        print(f"epoch {epoch}: loss {loss:.4f}, validation accuracy {accuracy:.3f}")
    test_loss, test_accuracy = model.evaluate(test_images[..., None], test_labels, verbose=0)
    print(f"test loss {test_loss:.4f}, test accuracy {test_accuracy:.3f}")


if __name__ == "__main__":
    main()
