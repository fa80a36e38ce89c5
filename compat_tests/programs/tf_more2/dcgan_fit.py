"""The Keras "DCGAN" example, shrunk: a GAN model with its own compile(d_optimizer, g_optimizer, loss_fn), a
custom train_step drawing latent vectors with keras.random.normal and a SeedGenerator, label noise, Conv2D with
LeakyReLU in the discriminator, Dense + Reshape + Conv2DTranspose + BatchNormalization in the generator, Mean
metrics reported by the metrics property, and a callback generating images at every epoch end."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

LATENT = 8


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.seed_generator = keras.random.SeedGenerator(1337)

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn
        self.d_loss_metric = keras.metrics.Mean(name="d_loss")
        self.g_loss_metric = keras.metrics.Mean(name="g_loss")

    @property
    def metrics(self):
        return [self.d_loss_metric, self.g_loss_metric]

    def train_step(self, real_images):
        batch_size = ops.shape(real_images)[0]
        random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        generated_images = self.generator(random_latent_vectors)
        combined_images = ops.concatenate([generated_images, real_images], axis=0)
        labels = ops.concatenate([ops.ones((batch_size, 1)), ops.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * tf.random.uniform(tf.shape(labels), seed=5)
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))

        random_latent_vectors = keras.random.normal(shape=(batch_size, self.latent_dim), seed=self.seed_generator)
        misleading_labels = ops.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        self.d_loss_metric.update_state(d_loss)
        self.g_loss_metric.update_state(g_loss)
        return {"d_loss": self.d_loss_metric.result(), "g_loss": self.g_loss_metric.result()}


class GANMonitor(keras.callbacks.Callback):
    def __init__(self, num_img=2, latent_dim=LATENT):
        super().__init__()
        self.num_img = num_img
        self.latent_dim = latent_dim
        self.seed_generator = keras.random.SeedGenerator(42)
        self.sums = []

    def on_epoch_end(self, epoch, logs=None):
        latent = keras.random.normal(shape=(self.num_img, self.latent_dim), seed=self.seed_generator)
        generated = self.model.generator(latent)
        images = ops.convert_to_numpy(generated * 255)
        self.sums.append(float(images.sum()))
        self.sums.append(sorted(logs))


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    real = (rng.uniform(0, 1, (64, 8, 8, 1)) > 0.5).astype(np.float32)
    real[:, 2:6, 2:6, 0] = 1.0
    discriminator = keras.Sequential([
        keras.Input(shape=(8, 8, 1)),
        layers.Conv2D(8, kernel_size=4, strides=2, padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(16, kernel_size=4, strides=2, padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Flatten(),
        layers.Dropout(0.2),
        layers.Dense(1, activation="sigmoid"),
    ], name="discriminator")
    generator = keras.Sequential([
        keras.Input(shape=(LATENT,)),
        layers.Dense(2 * 2 * 16),
        layers.Reshape((2, 2, 16)),
        layers.Conv2DTranspose(16, kernel_size=4, strides=2, padding="same"),
        layers.BatchNormalization(),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2DTranspose(8, kernel_size=4, strides=2, padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(1, kernel_size=5, padding="same", activation="sigmoid"),
    ], name="generator")
    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=LATENT)
    gan.compile(d_optimizer=keras.optimizers.Adam(learning_rate=2e-4, beta_1=0.5),
                g_optimizer=keras.optimizers.Adam(learning_rate=2e-4, beta_1=0.5),
                loss_fn=keras.losses.BinaryCrossentropy())
    monitor = GANMonitor()
    dataset = tf.data.Dataset.from_tensor_slices(real).shuffle(64, seed=21).batch(16)
    history = gan.fit(dataset, epochs=3, callbacks=[monitor], verbose=0)
    values = history.history["d_loss"] + history.history["g_loss"]
    values += [v if isinstance(v, float) else " ".join(v) for v in monitor.sums]
    values += [float(np.sum(generator.layers[3].moving_variance.numpy()))]
    return values


if __name__ == "__main__":
    print(main())
