"""The keras.io guide "Customizing what happens in fit()" (TensorFlow backend): a train_step override using
self.compute_loss and updating self.metrics (compiled metrics via update_state), a lower-level train_step with
keras.metrics.Mean / MeanAbsoluteError trackers listed in the metrics property so that reset_state runs each
epoch, sample_weight unpacking, a test_step override used by evaluate, and the GAN example with a custom compile
and two optimizers."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class LowLevelModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


class WeightedModel(keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


class EvalModel(keras.Model):
    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self.seed_generator = keras.random.SeedGenerator(1337)

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = tf.shape(real_images)[0]
        random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        generated_images = self.generator(random_latent_vectors)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * keras.random.uniform(tf.shape(labels), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        misleading_labels = tf.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def _regressor(cls):
    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    return cls(inputs, outputs)


def main():
    keras.utils.set_random_seed(99)
    rng = np.random.default_rng(99)
    x = rng.random((200, 32)).astype("float32")
    y = rng.random((200, 1)).astype("float32")
    values = []

    model = _regressor(CustomModel)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=3, verbose=0)
    values += [str(sorted(history.history))] + history.history["loss"] + history.history["mae"]
    values += [str([m.name for m in model.metrics])]

    model = _regressor(LowLevelModel)
    model.compile(optimizer="adam")
    history = model.fit(x, y, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["mae"]

    model = _regressor(WeightedModel)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    sw = rng.random((200, 1)).astype("float32")
    history = model.fit(x, y, sample_weight=sw, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["mae"]

    model = _regressor(EvalModel)
    model.compile(loss="mse", metrics=["mae"])
    values += model.evaluate(x, y, verbose=0)

    discriminator = keras.Sequential([keras.Input(shape=(8, 8, 1)),
                                      layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
                                      layers.LeakyReLU(negative_slope=0.2),
                                      layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
                                      layers.LeakyReLU(negative_slope=0.2),
                                      layers.GlobalMaxPooling2D(), layers.Dense(1)], name="discriminator")
    latent_dim = 6
    generator = keras.Sequential([keras.Input(shape=(latent_dim,)), layers.Dense(2 * 2 * 8),
                                  layers.LeakyReLU(negative_slope=0.2), layers.Reshape((2, 2, 8)),
                                  layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
                                  layers.LeakyReLU(negative_slope=0.2),
                                  layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
                                  layers.LeakyReLU(negative_slope=0.2),
                                  layers.Conv2D(1, (3, 3), padding="same", activation="sigmoid")], name="generator")
    images = rng.random((48, 8, 8, 1)).astype("float32")
    dataset = tf.data.Dataset.from_tensor_slices(images).shuffle(buffer_size=48, seed=3).batch(16)
    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
                loss_fn=keras.losses.BinaryCrossentropy(from_logits=True))
    history = gan.fit(dataset, epochs=2, verbose=0)
    values += history.history["d_loss"] + history.history["g_loss"]
    return values


if __name__ == "__main__":
    print(main())
