"""A tf.data input pipeline into fit: from_tensor_slices, map with tf ops (normalisation, feature crosses), cache,
shuffle with a seed, batch, prefetch(AUTOTUNE), a validation dataset, steps_per_epoch on a repeated dataset."""

import numpy as np
import tensorflow as tf


def preprocess(features, label):
    features = tf.cast(features, tf.float32) / 10.0
    crossed = tf.concat([features, features[:, :1] * features[:, 1:2], tf.math.log1p(tf.abs(features))], axis=-1)
    return crossed, tf.one_hot(label, 3)


def main():
    tf.keras.utils.set_random_seed(16)
    rng = np.random.default_rng(16)
    raw = rng.integers(-20, 20, (200, 4)).astype(np.int32)
    labels = np.digitize(raw[:, 0] + raw[:, 1], [-8, 8]).astype(np.int32)
    train = (tf.data.Dataset.from_tensor_slices((raw[:160], labels[:160]))
             .shuffle(160, seed=16).batch(20).map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)
             .cache().prefetch(tf.data.AUTOTUNE))
    valid = tf.data.Dataset.from_tensor_slices((raw[160:], labels[160:])).batch(20).map(preprocess)
    model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.Adam(5e-3),
                  loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
                  metrics=["categorical_accuracy"])
    history = model.fit(train, validation_data=valid, epochs=3, verbose=0)
    values = (history.history["loss"] + history.history["val_loss"] + history.history["categorical_accuracy"]
              + history.history["val_categorical_accuracy"])
    repeated = tf.data.Dataset.from_tensor_slices((raw, labels)).batch(16).map(preprocess).repeat()
    values += model.fit(repeated, steps_per_epoch=5, epochs=2, verbose=0).history["loss"]
    values += model.evaluate(valid, verbose=0)
    first = next(iter(train))
    values += [float(tf.reduce_sum(first[0])), float(train.cardinality()), float(model.predict(valid, verbose=0).sum())]
    return values


if __name__ == "__main__":
    print(main())
