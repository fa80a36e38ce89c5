"""A tiny DDPM in the style of the Keras "Denoising Diffusion Probabilistic Models" example, on 8-D vectors: a linear
beta schedule as constants, tf.gather of the schedule coefficients at sampled timesteps, sinusoidal timestep
embeddings (tf.math.log/exp/concat of sin and cos), a keras.Model subclass with a custom train_step/test_step
(tf.random.Generator.from_seed noise, metrics tracked with keras.metrics.Mean), EMA weights kept in a second network
through assign, and a few reverse-diffusion sampling steps with the EMA network."""

import math

import numpy as np
import tensorflow as tf
from tensorflow import keras

STEPS, DIM, EMB = 20, 8, 8


def timestep_embedding(t, dim=EMB):
    half = dim // 2
    freqs = tf.exp(-math.log(10000.0) * tf.range(half, dtype=tf.float32) / half)
    args = tf.cast(t, tf.float32)[:, None] * freqs[None, :]
    return tf.concat([tf.sin(args), tf.cos(args)], axis=-1)


def make_network():
    x_in = keras.Input((DIM,), name="x")
    t_in = keras.Input((EMB,), name="t_emb")
    t = keras.layers.Dense(16, activation="swish")(t_in)
    h = keras.layers.Dense(16, activation="swish")(x_in)
    h = keras.layers.Add()([h, t])
    h = keras.layers.LayerNormalization()(h)
    h = keras.layers.Dense(16, activation="swish")(h)
    return keras.Model([x_in, t_in], keras.layers.Dense(DIM)(h))


class Diffusion(keras.Model):
    def __init__(self, ema=0.9):
        super().__init__()
        self.network, self.ema_network = make_network(), make_network()
        self.ema_network.set_weights(self.network.get_weights())
        self.ema = ema
        betas = np.linspace(1e-3, 0.2, STEPS, dtype=np.float64)
        alphas_cumprod = np.cumprod(1.0 - betas)
        self.betas = tf.constant(betas, tf.float32)
        self.sqrt_ac = tf.constant(np.sqrt(alphas_cumprod), tf.float32)
        self.sqrt_1m_ac = tf.constant(np.sqrt(1.0 - alphas_cumprod), tf.float32)
        self.alphas = tf.constant(1.0 - betas, tf.float32)
        self.noise = tf.random.Generator.from_seed(17)
        self.loss_tracker = keras.metrics.Mean(name="loss")

    @property
    def metrics(self):
        return [self.loss_tracker]

    def q_sample(self, x0, t, eps):
        return tf.gather(self.sqrt_ac, t)[:, None] * x0 + tf.gather(self.sqrt_1m_ac, t)[:, None] * eps

    def _loss(self, x0, network, training):
        batch = tf.shape(x0)[0]
        t = self.noise.uniform([batch], minval=0, maxval=STEPS, dtype=tf.int64)
        eps = self.noise.normal(tf.shape(x0))
        predicted = network([self.q_sample(x0, t, eps), timestep_embedding(t)], training=training)
        return tf.reduce_mean(tf.square(eps - predicted))

    def train_step(self, x0):
        with tf.GradientTape() as tape:
            loss = self._loss(x0, self.network, True)
        grads = tape.gradient(loss, self.network.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.network.trainable_weights))
        for weight, ema_weight in zip(self.network.weights, self.ema_network.weights):
            ema_weight.assign(self.ema * ema_weight + (1 - self.ema) * weight)
        self.loss_tracker.update_state(loss)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, x0):
        self.loss_tracker.update_state(self._loss(x0, self.ema_network, False))
        return {m.name: m.result() for m in self.metrics}

    def sample(self, n):
        x = self.noise.normal([n, DIM])
        for step in reversed(range(STEPS)):
            t = tf.fill([n], step)
            eps = self.ema_network([x, timestep_embedding(t)], training=False)
            coef = tf.gather(self.betas, step) / tf.gather(self.sqrt_1m_ac, step)
            mean = (x - coef * eps) / tf.sqrt(tf.gather(self.alphas, step))
            x = mean + (tf.sqrt(self.betas[step]) * self.noise.normal([n, DIM]) if step > 0 else 0.0)
        return x


def main():
    keras.utils.set_random_seed(23)
    rng = np.random.default_rng(23)
    centers = rng.normal(size=(3, DIM)).astype(np.float32) * 2
    data = (centers[rng.integers(0, 3, 192)] + 0.1 * rng.normal(size=(192, DIM))).astype(np.float32)
    model = Diffusion()
    model.compile(optimizer=keras.optimizers.AdamW(learning_rate=3e-3, weight_decay=1e-4))
    dataset = tf.data.Dataset.from_tensor_slices(data).shuffle(192, seed=1).batch(32)
    history = model.fit(dataset, epochs=4, validation_data=tf.data.Dataset.from_tensor_slices(data[:64]).batch(32),
                        verbose=0)
    values = history.history["loss"] + history.history["val_loss"]
    values += [float(v) for v in timestep_embedding(tf.constant([0, 5, 19]))[:, ::3].numpy().ravel()]
    samples = model.sample(16).numpy()
    distances = np.min(np.linalg.norm(samples[:, None] - centers[None], axis=-1), axis=1)
    values += [float(samples.mean()), float(samples.std()), float(distances.mean())]
    values += [float(np.abs(a - b).max()) for a, b in zip(model.network.get_weights()[:2],
                                                          model.ema_network.get_weights()[:2])]
    return values


if __name__ == "__main__":
    print(main())
