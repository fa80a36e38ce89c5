"""Transfer learning as in the Keras guide: a pretrained base (trained here on a first task) is frozen with
layer.trainable = False, a new head is trained, then the base is unfrozen and the whole model recompiled and
fine-tuned with a small learning rate; BatchNormalization stays in inference mode (training=False)."""

import numpy as np
from tensorflow import keras


def main():
    keras.utils.set_random_seed(15)
    rng = np.random.default_rng(15)
    x = rng.standard_normal((128, 10)).astype(np.float32)
    first_task = (x[:, 0] * x[:, 1] > 0).astype(np.float32)
    second_task = (x[:, 0] + x[:, 2] > 0).astype(np.float32)

    base = keras.Sequential([keras.Input((10,)), keras.layers.Dense(24, activation="relu"),
                             keras.layers.BatchNormalization(), keras.layers.Dense(12, activation="relu")],
                            name="base")
    pretrain = keras.Sequential([base, keras.layers.Dense(1, activation="sigmoid")])
    pretrain.compile(optimizer="adam", loss="binary_crossentropy")
    values = pretrain.fit(x, first_task, batch_size=32, epochs=2, verbose=0).history["loss"]

    base.trainable = False
    inputs = keras.Input((10,))
    features = base(inputs, training=False)
    outputs = keras.layers.Dense(1)(keras.layers.Dropout(0.2)(features))
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])
    frozen = [w.numpy().copy() for w in base.weights]
    history = model.fit(x, second_task, batch_size=32, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["binary_accuracy"]
    values += [float(len(model.trainable_weights)), float(len(model.non_trainable_weights)),
               float(max(np.abs(a - w.numpy()).max() for a, w in zip(frozen, base.weights)))]

    base.trainable = True
    model.compile(optimizer=keras.optimizers.Adam(1e-4), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])
    history = model.fit(x, second_task, batch_size=32, epochs=2, verbose=0)
    values += history.history["loss"] + [float(len(model.trainable_weights))]
    moving_mean = base.layers[1].moving_mean.numpy()
    return values + [float(np.abs(moving_mean).sum())] + model.evaluate(x, second_task, verbose=0)


if __name__ == "__main__":
    print(main())
