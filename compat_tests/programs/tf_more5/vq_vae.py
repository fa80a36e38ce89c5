"""The Keras "Vector-Quantized Variational Autoencoder" example, shrunk: a VectorQuantizer layer (a codebook made
with add_weight, nearest codes by ops.argmin over squared distances, one-hot codes, commitment and codebook losses
through add_loss, the straight-through estimator with ops.stop_gradient), a Conv2D encoder / Conv2DTranspose
decoder, a VQVAETrainer model with its own train_step (GradientTape over the reconstruction loss plus the
layer's losses, Mean metric trackers), then code indices of a batch and a reconstruction."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers, ops


class VectorQuantizer(layers.Layer):
    def __init__(self, num_embeddings, embedding_dim, beta=0.25, **kwargs):
        super().__init__(**kwargs)
        self.embedding_dim = embedding_dim
        self.num_embeddings = num_embeddings
        self.beta = beta
        self.embeddings = self.add_weight(shape=(self.embedding_dim, self.num_embeddings),
                                          initializer=keras.initializers.RandomUniform(), trainable=True,
                                          name="embeddings_vqvae")

    def call(self, x):
        input_shape = ops.shape(x)
        flattened = ops.reshape(x, [-1, self.embedding_dim])
        encoding_indices = self.get_code_indices(flattened)
        encodings = ops.one_hot(encoding_indices, self.num_embeddings)
        quantized = ops.matmul(encodings, ops.transpose(self.embeddings))
        quantized = ops.reshape(quantized, input_shape)
        commitment_loss = ops.mean((ops.stop_gradient(quantized) - x) ** 2)
        codebook_loss = ops.mean((quantized - ops.stop_gradient(x)) ** 2)
        self.add_loss(self.beta * commitment_loss + codebook_loss)
        return x + ops.stop_gradient(quantized - x)

    def get_code_indices(self, flattened_inputs):
        similarity = ops.matmul(flattened_inputs, self.embeddings)
        distances = (ops.sum(flattened_inputs ** 2, axis=1, keepdims=True) + ops.sum(self.embeddings ** 2, axis=0)
                     - 2 * similarity)
        return ops.argmin(distances, axis=1)


def get_vqvae(latent_dim=4, num_embeddings=8):
    vq_layer = VectorQuantizer(num_embeddings, latent_dim, name="vector_quantizer")
    inputs = keras.Input(shape=(8, 8, 1))
    x = layers.Conv2D(8, 3, activation="relu", strides=2, padding="same")(inputs)
    encoder_outputs = layers.Conv2D(latent_dim, 1, padding="same")(x)
    quantized_latents = vq_layer(encoder_outputs)
    x = layers.Conv2DTranspose(8, 3, activation="relu", strides=2, padding="same")(quantized_latents)
    reconstructions = layers.Conv2DTranspose(1, 3, padding="same")(x)
    return keras.Model(inputs, reconstructions, name="vq_vae"), keras.Model(inputs, encoder_outputs)


class VQVAETrainer(keras.models.Model):
    def __init__(self, train_variance, latent_dim=4, num_embeddings=8, **kwargs):
        super().__init__(**kwargs)
        self.train_variance = train_variance
        self.vqvae, self.encoder = get_vqvae(latent_dim, num_embeddings)
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
        self.vq_loss_tracker = keras.metrics.Mean(name="vq_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.vq_loss_tracker]

    def train_step(self, x):
        with tf.GradientTape() as tape:
            reconstructions = self.vqvae(x)
            reconstruction_loss = tf.reduce_mean((x - reconstructions) ** 2) / self.train_variance
            total_loss = reconstruction_loss + sum(self.vqvae.losses)
        grads = tape.gradient(total_loss, self.vqvae.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.vqvae.trainable_variables))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.vq_loss_tracker.update_state(sum(self.vqvae.losses))
        return {"loss": self.total_loss_tracker.result(),
                "reconstruction_loss": self.reconstruction_loss_tracker.result(),
                "vqvae_loss": self.vq_loss_tracker.result()}


def main():
    keras.utils.set_random_seed(55)
    rng = np.random.default_rng(55)
    images = (rng.uniform(size=(64, 8, 8, 1)) > 0.6).astype(np.float32)
    images = (images + np.roll(images, 1, axis=1)) / 2.0 - 0.5
    data_variance = float(np.var(images))

    trainer = VQVAETrainer(data_variance, latent_dim=4, num_embeddings=8)
    trainer.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01))
    history = trainer.fit(images, epochs=3, batch_size=16, verbose=0)
    values = history.history["loss"] + history.history["reconstruction_loss"] + history.history["vqvae_loss"]

    vqvae = trainer.vqvae
    quantizer = vqvae.get_layer("vector_quantizer")
    encoded = trainer.encoder.predict(images[:4], verbose=0)
    flat = encoded.reshape(-1, encoded.shape[-1])
    codes = quantizer.get_code_indices(flat)
    values += [str(codes.dtype), str(list(ops.convert_to_numpy(codes)))]
    values += [float(v) for v in vqvae.predict(images[:2], verbose=0).ravel()[:10]]
    values += [float(ops.sum(quantizer.embeddings)), str(vqvae.count_params())]
    return values


if __name__ == "__main__":
    print(main())
