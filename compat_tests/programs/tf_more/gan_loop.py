"""A small GAN trained with a custom loop as in the TF DCGAN tutorial: a generator and a discriminator, two Adam
optimizers, one tf.GradientTape per network inside a tf.function, BinaryCrossentropy(from_logits=True), LeakyReLU and
BatchNormalization, noise from a seeded tf.random.Generator (the tutorial's tf.random.normal inside the tf.function
draws with an op seed TF takes from its graph's op count: see function_random_seeds.py)."""

import numpy as np
import tensorflow as tf

NOISE = 4


def make_generator():
    return tf.keras.Sequential([
        tf.keras.layers.Input((NOISE,)),
        tf.keras.layers.Dense(16, use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Dense(2),
    ])


def make_discriminator():
    return tf.keras.Sequential([tf.keras.layers.Input((2,)), tf.keras.layers.Dense(16),
                                tf.keras.layers.LeakyReLU(negative_slope=0.2), tf.keras.layers.Dropout(0.3),
                                tf.keras.layers.Dense(1)])


def main():
    tf.keras.utils.set_random_seed(22)
    rng = np.random.default_rng(22)
    angles = rng.uniform(0, 2 * np.pi, 128)
    real = np.stack([np.cos(angles), np.sin(angles)], 1).astype(np.float32) * 2.0
    noise_generator = tf.random.Generator.from_seed(22)
    dataset = tf.data.Dataset.from_tensor_slices(real).shuffle(128, seed=22).batch(32)
    generator, discriminator = make_generator(), make_discriminator()
    cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)
    generator_optimizer = tf.keras.optimizers.Adam(2e-3, beta_1=0.5)
    discriminator_optimizer = tf.keras.optimizers.Adam(2e-3, beta_1=0.5)

    def discriminator_loss(real_output, fake_output):
        return (cross_entropy(tf.ones_like(real_output), real_output)
                + cross_entropy(tf.zeros_like(fake_output), fake_output))

    def generator_loss(fake_output):
        return cross_entropy(tf.ones_like(fake_output), fake_output)

    @tf.function
    def train_step(points):
        noise = noise_generator.normal([tf.shape(points)[0], NOISE])
        with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
            generated = generator(noise, training=True)
            real_output = discriminator(points, training=True)
            fake_output = discriminator(generated, training=True)
            gen_loss = generator_loss(fake_output)
            disc_loss = discriminator_loss(real_output, fake_output)
        gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
        gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
        generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
        discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))
        return gen_loss, disc_loss

    losses = []
    for _ in range(3):
        for batch in dataset:
            gen_loss, disc_loss = train_step(batch)
            losses += [float(gen_loss), float(disc_loss)]
    seed = tf.random.normal([8, NOISE])
    samples = generator(seed, training=False)
    return losses + [float(tf.reduce_mean(tf.norm(samples, axis=1))), float(generator_optimizer.iterations.numpy()),
                     float(train_step.experimental_get_tracing_count())]


if __name__ == "__main__":
    print(main())
