"""The Keras VAE example, shrunk: a Sampling layer drawing with keras.random.normal and a SeedGenerator, an encoder
and a decoder model, a custom train_step with reconstruction and KL losses tracked by Mean metrics; a second
variant adds the KL term with add_loss and trains with compile(loss=...)."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops

LATENT = 2


class Sampling(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ops.shape(z_mean)[0]
        dim = ops.shape(z_mean)[1]
        epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


def make_encoder():
    inputs = keras.Input(shape=(16,))
    x = layers.Dense(12, activation="relu")(inputs)
    z_mean = layers.Dense(LATENT, name="z_mean")(x)
    z_log_var = layers.Dense(LATENT, name="z_log_var")(x)
    z = Sampling()([z_mean, z_log_var])
    return keras.Model(inputs, [z_mean, z_log_var, z], name="encoder")


def make_decoder():
    latent = keras.Input(shape=(LATENT,))
    x = layers.Dense(12, activation="relu")(latent)
    return keras.Model(latent, layers.Dense(16, activation="sigmoid")(x), name="decoder")


class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = ops.mean(ops.sum(keras.losses.binary_crossentropy(
                data[:, :, None], reconstruction[:, :, None]), axis=1))
            kl_loss = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
            kl_loss = ops.mean(ops.sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {"loss": self.total_loss_tracker.result(),
                "reconstruction_loss": self.reconstruction_loss_tracker.result(),
                "kl_loss": self.kl_loss_tracker.result()}


class KLDivergence(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        self.add_loss(-0.5 * ops.mean(1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var)))
        return z_mean


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    data = (rng.uniform(size=(64, 16)) > 0.6).astype(np.float32)
    vae = VAE(make_encoder(), make_decoder())
    vae.compile(optimizer=keras.optimizers.Adam(1e-2))
    history = vae.fit(data, epochs=3, batch_size=16, verbose=0)
    values = history.history["loss"] + history.history["reconstruction_loss"] + history.history["kl_loss"]

    inputs = keras.Input(shape=(16,))
    hidden = layers.Dense(12, activation="relu")(inputs)
    z_mean, z_log_var = layers.Dense(LATENT)(hidden), layers.Dense(LATENT)(hidden)
    z = Sampling()([KLDivergence()([z_mean, z_log_var]), z_log_var])
    outputs = layers.Dense(16, activation="sigmoid")(layers.Dense(12, activation="relu")(z))
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy")
    values += model.fit(data, data, epochs=3, batch_size=16, verbose=0).history["loss"]
    values += [model.evaluate(data, data, verbose=0), float(len(model.losses))]
    return values


if __name__ == "__main__":
    print(main())
