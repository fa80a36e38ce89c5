"""WGAN-GP as in the Keras "WGAN-GP" example, on 2-D points: a critic and a generator as functional models, the
gradient penalty from a nested tf.GradientTape on points interpolated with tf.random.uniform, n_critic critic steps per
generator step inside one tf.function (a Python loop unrolled by tracing), Adam with beta_1=0.5, beta_2=0.9, noise from
a seeded tf.random.Generator, and the critic's Wasserstein estimate."""

import numpy as np
import tensorflow as tf

LATENT, N_CRITIC, GP_WEIGHT = 3, 3, 10.0


def make_critic():
    inputs = tf.keras.Input((2,))
    x = tf.keras.layers.Dense(16)(inputs)
    x = tf.keras.layers.LeakyReLU(negative_slope=0.2)(x)
    x = tf.keras.layers.Dense(16)(x)
    x = tf.keras.layers.LeakyReLU(negative_slope=0.2)(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(1)(x), name="critic")


def make_generator():
    inputs = tf.keras.Input((LATENT,))
    x = tf.keras.layers.Dense(16, activation="relu")(inputs)
    x = tf.keras.layers.Dense(16, activation="tanh")(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2)(x), name="generator")


def main():
    tf.keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    angles = rng.uniform(0, 2 * np.pi, 256)
    real_points = np.stack([np.cos(angles), np.sin(angles)], 1).astype(np.float32) * 2.0
    critic, generator = make_critic(), make_generator()
    c_opt = tf.keras.optimizers.Adam(2e-3, beta_1=0.5, beta_2=0.9)
    g_opt = tf.keras.optimizers.Adam(2e-3, beta_1=0.5, beta_2=0.9)
    noise = tf.random.Generator.from_seed(5)

    def gradient_penalty(real, fake):
        alpha = tf.random.uniform([tf.shape(real)[0], 1], 0.0, 1.0, seed=3)
        mixed = real + alpha * (fake - real)
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(mixed)
            scores = critic(mixed, training=True)
        grads = gp_tape.gradient(scores, [mixed])[0]
        norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1]))
        return tf.reduce_mean((norm - 1.0) ** 2)

    @tf.function
    def train_step(real):
        batch = tf.shape(real)[0]
        for _ in range(N_CRITIC):
            z = noise.normal([batch, LATENT])
            with tf.GradientTape() as tape:
                fake = generator(z, training=True)
                wasserstein = tf.reduce_mean(critic(fake, training=True)) - tf.reduce_mean(critic(real, training=True))
                gp = gradient_penalty(real, fake)
                c_loss = wasserstein + GP_WEIGHT * gp
            c_grads = tape.gradient(c_loss, critic.trainable_variables)
            c_opt.apply_gradients(zip(c_grads, critic.trainable_variables))
        z = noise.normal([batch, LATENT])
        with tf.GradientTape() as tape:
            g_loss = -tf.reduce_mean(critic(generator(z, training=True), training=True))
        g_grads = tape.gradient(g_loss, generator.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
        return c_loss, g_loss, gp

    values = []
    dataset = tf.data.Dataset.from_tensor_slices(real_points).shuffle(256, seed=2).batch(64, drop_remainder=True)
    for _ in range(3):
        for batch in dataset:
            c_loss, g_loss, gp = train_step(batch)
            values += [float(c_loss), float(g_loss), float(gp)]
    samples = generator(noise.normal([64, LATENT]), training=False)
    radius = tf.norm(samples, axis=1)
    values += [float(tf.reduce_mean(radius)), float(tf.math.reduce_std(radius)),
               float(c_opt.iterations.numpy()), float(g_opt.iterations.numpy()),
               float(train_step.experimental_get_tracing_count())]
    return values


if __name__ == "__main__":
    print(main())
