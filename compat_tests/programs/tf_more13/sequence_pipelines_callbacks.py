"""tf.data sequence pipelines from the "Load and preprocess data" and time-series tutorials: window + flat_map
into fixed-length examples, timeseries_dataset_from_array with sampling_rate/sequence_stride/targets, interleave
of per-series datasets, bucket_by_sequence_length over variable-length sequences, group_by_window, scan for a
running mean, cache/prefetch; then a GRU regressor trained on them with EarlyStopping(restore_best_weights=True,
start_from_epoch) and ReduceLROnPlateau watching val_loss, reporting which epoch was restored."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def main():
    keras.utils.set_random_seed(61)
    rng = np.random.default_rng(61)
    values = []
    series = np.sin(np.arange(80) / 5.0).astype("float32") + 0.05 * rng.normal(size=80).astype("float32")

    windows = tf.data.Dataset.from_tensor_slices(series).window(6, shift=3, drop_remainder=True)
    windows = windows.flat_map(lambda w: w.batch(6)).map(lambda w: (w[:-1, None], w[-1:]))
    values += [str(windows.element_spec), int(windows.cardinality()) if windows.cardinality() >= 0 else -1]
    first = next(iter(windows))
    values += [float(v) for v in first[0].numpy().ravel()] + [float(first[1][0])]
    values += [sum(1 for _ in windows)]

    ts = keras.utils.timeseries_dataset_from_array(series[:-5], targets=series[5:], sequence_length=4,
                                                   sampling_rate=2, sequence_stride=3, batch_size=7)
    xs, ys = next(iter(ts))
    values += [str(xs.shape), float(xs[1, 2]), float(ys[1]), sum(int(b[0].shape[0]) for b in ts)]

    offsets = tf.data.Dataset.range(3)
    mixed = offsets.interleave(lambda k: tf.data.Dataset.range(4).map(lambda i: k * 10 + i), cycle_length=2,
                               block_length=2)
    values += [str([int(v) for v in mixed])]

    lengths = [3, 7, 2, 9, 4, 5, 8, 1, 6, 3]
    ragged = tf.ragged.constant([list(range(1, n + 1)) for n in lengths])
    seqs = tf.data.Dataset.from_tensor_slices(ragged).map(lambda r: r)
    buckets = seqs.bucket_by_sequence_length(lambda s: tf.shape(s)[0], bucket_boundaries=[4, 7],
                                             bucket_batch_sizes=[3, 2, 2], pad_to_bucket_boundary=False)
    values += [str([b.shape.as_list() for b in buckets])]
    grouped = tf.data.Dataset.range(10).group_by_window(key_func=lambda x: x % 3,
                                                          reduce_func=lambda key, w: w.batch(2), window_size=2)
    values += [str([b.numpy().tolist() for b in grouped])]
    running = tf.data.Dataset.from_tensor_slices(series[:6]).scan(
        (tf.constant(0.0), tf.constant(0.0)), lambda state, x: ((state[0] + x, state[1] + 1.0),
                                                                 (state[0] + x) / (state[1] + 1.0)))
    values += [float(v) for v in running]

    train = windows.take(16).cache().shuffle(16, seed=3).batch(4).prefetch(tf.data.AUTOTUNE)
    val = windows.skip(16).batch(4)
    model = keras.Sequential([keras.Input((5, 1)), keras.layers.GRU(6), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"])
    stopper = keras.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True,
                                            start_from_epoch=1)
    plateau = keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=1e-3)
    history = model.fit(train, validation_data=val, epochs=8, verbose=0, callbacks=[stopper, plateau])
    values += history.history["loss"] + history.history["val_loss"] + history.history["learning_rate"]
    values += [len(history.epoch), stopper.stopped_epoch, stopper.best_epoch, float(stopper.best)]
    values += [model.evaluate(val, verbose=0)[0]]
    return values
