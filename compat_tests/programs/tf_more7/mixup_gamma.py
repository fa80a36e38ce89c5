"""The Keras "MixUp augmentation for image classification" example, shrunk: two shuffled copies of the training
set zipped together, mixing weights drawn from a Beta distribution made of two tf.random.gamma samples (after
tf.random.set_seed, eager, and with tf.random.stateless_gamma), one-hot labels mixed like the images, the mixed
dataset fit with categorical_crossentropy and compared with the unmixed baseline; plus keras.random.gamma and
keras.random.beta with a SeedGenerator."""

import keras
import numpy as np
import tensorflow as tf


def sample_beta_distribution(size, concentration_0=0.2, concentration_1=0.2):
    gamma_1_sample = tf.random.gamma(shape=[size], alpha=concentration_1)
    gamma_2_sample = tf.random.gamma(shape=[size], alpha=concentration_0)
    return gamma_1_sample / (gamma_1_sample + gamma_2_sample)


def mix_up(ds_one, ds_two, alpha=0.2):
    images_one, labels_one = ds_one
    images_two, labels_two = ds_two
    batch_size = tf.shape(images_one)[0]
    weights = sample_beta_distribution(int(batch_size), alpha, alpha)
    x_l = tf.reshape(weights, (batch_size, 1, 1, 1))
    y_l = tf.reshape(weights, (batch_size, 1))
    images = images_one * x_l + images_two * (1 - x_l)
    labels = labels_one * y_l + labels_two * (1 - y_l)
    return images, labels


def make_model():
    return keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(4, 3, activation="relu"),
                             keras.layers.Flatten(), keras.layers.Dense(3, activation="softmax")])


def main():
    keras.utils.set_random_seed(53)
    tf.random.set_seed(53)
    rng = np.random.default_rng(53)
    labels = rng.integers(0, 3, 48)
    images = (rng.normal(size=(48, 6, 6, 1)) * 0.3 + labels[:, None, None, None]).astype(np.float32)
    y = keras.utils.to_categorical(labels, 3).astype("float32")

    values = [float(v) for v in sample_beta_distribution(4).numpy()]
    values += [float(v) for v in tf.random.stateless_gamma([3], seed=[1, 2], alpha=[0.5, 2.0, 4.0]).numpy()]
    values += [float(v) for v in tf.random.gamma([2, 2], alpha=1.5, beta=2.0, seed=4).numpy().ravel()]

    ds_one = tf.data.Dataset.from_tensor_slices((images, y)).shuffle(48, seed=1).batch(16)
    ds_two = tf.data.Dataset.from_tensor_slices((images, y)).shuffle(48, seed=2).batch(16)
    mixed = [mix_up(a, b) for a, b in tf.data.Dataset.zip((ds_one, ds_two))]
    mixed_images = np.concatenate([m[0].numpy() for m in mixed])
    mixed_labels = np.concatenate([m[1].numpy() for m in mixed])
    values += [float(v) for v in mixed_labels[:4].ravel()] + [float(mixed_images.sum())]

    model = make_model()
    initial = model.get_weights()
    model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(mixed_images, mixed_labels, batch_size=16, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"]
    baseline = make_model()
    baseline.set_weights(initial)
    baseline.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
    history = baseline.fit(images, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]

    generator = keras.random.SeedGenerator(9)
    values += [float(v) for v in keras.ops.convert_to_numpy(keras.random.gamma((3,), alpha=0.7, seed=generator))]
    values += [float(v) for v in keras.ops.convert_to_numpy(keras.random.beta((3,), 0.4, 0.6, seed=generator))]
    return values


if __name__ == "__main__":
    print(main())
