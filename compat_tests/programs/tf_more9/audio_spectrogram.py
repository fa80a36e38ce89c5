"""The TF "simple audio recognition" tutorial, shrunk, on synthetic tones: waveforms padded to a fixed length in
numpy (as audio_dataset_from_directory's output_sequence_length does), tf.signal.stft with a Hann window turned
into magnitude spectrograms (tf.abs, tf.newaxis), a log-mel version via tf.signal.linear_to_mel_weight_matrix and
tensordot, MFCCs with tf.signal.mfccs_from_log_mel_spectrograms,
tf.signal.frame; the dataset mapped to spectrograms, a Normalization layer adapted on the spectrogram dataset, a
Resizing layer, Conv2D/MaxPooling2D/Dropout/Flatten/Dense trained with fit, and a confusion matrix."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers

LENGTH = 512


def make_waves(rng, count):
    labels = rng.integers(0, 3, count)
    t = np.arange(LENGTH, dtype=np.float32) / 2000.0
    freqs = np.array([150.0, 400.0, 800.0], np.float32)[labels] * rng.uniform(0.9, 1.1, count).astype(np.float32)
    waves = np.sin(2 * np.pi * freqs[:, None] * t[None]) + 0.2 * rng.normal(size=(count, LENGTH))
    cut = rng.integers(LENGTH // 2, LENGTH, count)
    waves = np.stack([np.pad(w[:c], (0, LENGTH - c)) for w, c in zip(waves, cut)]).astype(np.float32)
    return waves, labels.astype(np.int64)


def get_spectrogram(waveform):
    spectrogram = tf.signal.stft(waveform, frame_length=64, frame_step=32)
    spectrogram = tf.abs(spectrogram)
    return spectrogram[..., tf.newaxis]


def main():
    keras.utils.set_random_seed(31)
    rng = np.random.default_rng(31)
    waves, labels = make_waves(rng, 32)
    wave_ds = tf.data.Dataset.from_tensor_slices((waves, labels))
    spectrogram_ds = wave_ds.map(lambda wave, label: (get_spectrogram(wave), label))
    values = [str(spectrogram_ds.element_spec)]

    sample = get_spectrogram(tf.constant(waves[0]))
    values.append(str(sample.shape))
    mel_matrix = tf.signal.linear_to_mel_weight_matrix(num_mel_bins=8, num_spectrogram_bins=33,
                                                       sample_rate=2000, lower_edge_hertz=20.0,
                                                       upper_edge_hertz=1000.0)
    mel = tf.tensordot(sample[..., 0], mel_matrix, 1)
    log_mel = tf.math.log(mel + 1e-6)
    mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :4]
    values += mel_matrix.numpy().sum(axis=0).tolist() + mfccs.numpy()[:3].ravel().tolist()
    frames = tf.signal.frame(tf.constant(waves[1]), frame_length=100, frame_step=50, pad_end=True)
    values += [str(frames.shape), float(tf.reduce_sum(frames))]
    values += tf.signal.hann_window(6).numpy().tolist()

    train_ds = spectrogram_ds.take(24).cache().shuffle(24, seed=3).batch(8)
    val_ds = spectrogram_ds.skip(24).batch(8)
    norm_layer = layers.Normalization()
    norm_layer.adapt(data=spectrogram_ds.map(map_func=lambda spec, label: spec))
    values += [float(norm_layer.mean.numpy().ravel()[0]), float(norm_layer.variance.numpy().ravel()[0])]

    model = keras.Sequential([
        layers.Input(shape=(15, 33, 1)),
        layers.Resizing(16, 16),
        norm_layer,
        layers.Conv2D(4, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Dropout(0.25),
        layers.Flatten(),
        layers.Dense(3),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    history = model.fit(train_ds, epochs=1, verbose=0)
    for key in sorted(history.history):
        values += history.history[key]
    y_pred = tf.argmax(model.predict(val_ds, verbose=0), axis=1)
    y_true = tf.concat(list(val_ds.map(lambda spec, label: label)), axis=0)
    values += tf.math.confusion_matrix(y_true, y_pred, num_classes=3).numpy().ravel().tolist()
    return values


if __name__ == "__main__":
    print(main())
