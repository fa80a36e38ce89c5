"""A tf.data image and audio pipeline in the style of the tensorflow.org data augmentation and audio tutorials:
tf.image.stateless_random_* augmentations (brightness, contrast, saturation, hue, flips, crop, JPEG quality) driven
by per-element seeds from tf.random.experimental.stateless_split, tf.signal.frame with pad_end and tf.signal.stft
magnitude features in float64, and a CTC head trained for a few steps with tf.nn.ctc_loss on dense labels with
label_length/logit_length and blank_index=-1 (printing the per-step loss and gradient norm), then the same loss
on the labels as a tf.SparseTensor (as the Keras OCR example builds them)."""

import numpy as np
import tensorflow as tf


def augment(image, seed):
    seeds = tf.random.experimental.stateless_split(seed, num=7)
    image = tf.image.stateless_random_brightness(image, 0.2, seed=seeds[0])
    image = tf.image.stateless_random_contrast(image, 0.7, 1.3, seed=seeds[1])
    image = tf.image.stateless_random_saturation(image, 0.5, 1.5, seed=seeds[2])
    image = tf.image.stateless_random_hue(image, 0.1, seed=seeds[3])
    image = tf.image.stateless_random_flip_left_right(image, seed=seeds[4])
    image = tf.image.stateless_random_crop(image, [6, 6, 3], seed=seeds[5])
    return tf.image.stateless_random_jpeg_quality(tf.clip_by_value(image, 0.0, 1.0), 60, 95, seed=seeds[6])


def main():
    rng = np.random.default_rng(7)
    tf.random.set_seed(7)
    values = []
    images = rng.uniform(size=(4, 8, 8, 3)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices(images)
    seeds = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]], tf.int64))
    augmented = tf.data.Dataset.zip((ds, seeds)).map(augment).batch(2)
    for batch in augmented:
        values += [str(batch.shape), float(tf.reduce_sum(batch)), float(tf.reduce_max(batch))]
        values += batch[0, 0, :2].numpy().ravel().tolist()
    flipped = tf.image.stateless_random_flip_up_down(tf.constant(images), seed=(9, 1))
    values.append(float(tf.reduce_sum(flipped[:, 0] - images[:, 0])))

    wave = tf.constant(np.sin(np.linspace(0, 40, 200)) + 0.1 * rng.normal(size=200))
    frames = tf.signal.frame(wave, frame_length=32, frame_step=24, pad_end=True, pad_value=0.0)
    values += [str(frames.shape), str(frames.dtype), float(tf.reduce_sum(frames[-1]))]
    spectrum = tf.signal.stft(tf.cast(wave[None], tf.float32), frame_length=32, frame_step=16, fft_length=32,
                              window_fn=tf.signal.hann_window)
    magnitude = tf.abs(spectrum)
    values += [str(spectrum.shape), str(spectrum.dtype), float(tf.reduce_sum(magnitude))]
    values += magnitude[0, 2, :6].numpy().tolist()
    log_mag = tf.math.log(magnitude + 1e-6)

    time_steps = log_mag.shape[1]
    features = tf.concat([log_mag, log_mag[:, ::-1]], axis=0)
    labels = tf.constant([[1, 2, 1, 0], [3, 3, 0, 0]], tf.int32)
    label_length = tf.constant([3, 2], tf.int32)
    logit_length = tf.constant([time_steps, time_steps - 2], tf.int32)
    w = tf.Variable(tf.random.normal([features.shape[-1], 5], stddev=0.1, seed=1))
    b = tf.Variable(tf.zeros([5]))
    opt = tf.keras.optimizers.Adam(0.05)
    for _ in range(4):
        with tf.GradientTape() as tape:
            logits = tf.einsum("btf,fc->btc", features, w) + b
            loss = tf.nn.ctc_loss(labels, logits, label_length, logit_length, logits_time_major=False,
                                  blank_index=-1)
            mean = tf.reduce_mean(loss)
        grads = tape.gradient(mean, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        values += loss.numpy().tolist() + [float(tf.linalg.global_norm(grads))]
    logits = tf.einsum("btf,fc->btc", features, w) + b
    sparse = tf.sparse.from_dense(labels)
    sparse_loss = tf.nn.ctc_loss(sparse, logits, None, logit_length, logits_time_major=False, blank_index=-1)
    values += sparse_loss.numpy().tolist()
    return values
