"""tf.data transformations that Kaggle pipelines and Stack Overflow answers reach for beyond map/batch: enumerate,
scan (a running mean carried through the stream), take_while, shard, filter, unbatch after a vectorised map,
padded_batch with a dict of padded_shapes and padding_values, Dataset.reduce computing normalisation statistics,
choose_from_datasets driven by a choice dataset, concatenate and zip, group_by_window keyed by sequence length,
then a repeated dataset fed to a masked mean-pooling classifier through fit with steps_per_epoch, and evaluate on a
slice whose cardinality is declared with assert_cardinality."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


def make_records(rng, count):
    lengths = rng.integers(2, 7, size=count)
    tokens = [rng.integers(1, 12, size=n).astype(np.int32) for n in lengths]
    labels = np.array([int(t.sum() % 2) for t in tokens], np.int32)
    return tokens, labels


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    tokens, labels = make_records(rng, 40)
    values = []

    numbers = tf.data.Dataset.range(1, 11)
    running = numbers.scan(tf.constant(0, tf.int64), lambda total, x: (total + x, tf.cast(total + x, tf.float32)
                                                                        / tf.cast(x, tf.float32)))
    values += [float(v) for v in running.take_while(lambda mean: mean < 4.0)]
    values += [int(i) * 100 + int(v) for i, v in numbers.enumerate(start=5).shard(3, 1)]
    total = numbers.filter(lambda x: x % 2 == 0).reduce(tf.constant(0, tf.int64), lambda acc, x: acc + x * x)
    values.append(int(total))
    values += [int(v) for v in numbers.batch(4).map(lambda b: b * 10).unbatch().skip(6)]

    evens = tf.data.Dataset.from_tensor_slices([0, 2, 4, 6])
    odds = tf.data.Dataset.from_tensor_slices([1, 3, 5, 7])
    choice = tf.data.Dataset.from_tensor_slices(tf.constant([0, 0, 1, 0, 1, 1, 1, 0], tf.int64))
    values += [int(v) for v in tf.data.Dataset.choose_from_datasets([evens, odds], choice)]
    values += [int(a) - int(b) for a, b in tf.data.Dataset.zip((evens.concatenate(odds), odds.repeat(2)))]

    def generator():
        for t, y in zip(tokens, labels):
            yield {"tokens": t, "length": np.int32(len(t))}, y

    signature = ({"tokens": tf.TensorSpec([None], tf.int32), "length": tf.TensorSpec([], tf.int32)},
                 tf.TensorSpec([], tf.int32))
    ds = tf.data.Dataset.from_generator(generator, output_signature=signature)
    stats = ds.reduce((tf.constant(0.0), tf.constant(0.0)), lambda acc, item: (
        acc[0] + tf.cast(item[0]["length"], tf.float32), acc[1] + 1.0))
    values.append(float(stats[0] / stats[1]))

    grouped = ds.group_by_window(key_func=lambda f, y: tf.cast(f["length"] > 4, tf.int64),
                                 reduce_func=lambda key, window: window.padded_batch(4),
                                 window_size=4)
    values += [int(f["tokens"].shape[1]) for f, _ in grouped.take(4)]

    padded = ds.padded_batch(8, padded_shapes=({"tokens": [8], "length": []}, []),
                             padding_values=({"tokens": 0, "length": -1}, 0), drop_remainder=True)
    first = next(iter(padded))
    values += first[0]["tokens"][0].numpy().tolist() + first[0]["length"].numpy().tolist()
    train = padded.map(lambda f, y: (f["tokens"], y)).repeat()

    model = keras.Sequential([keras.Input((8,), dtype="int32"), layers.Embedding(12, 6, mask_zero=True),
                              layers.GlobalAveragePooling1D(), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(train, epochs=2, steps_per_epoch=3, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    # a generator's cardinality is unknown: evaluate would step past the end, where TF's graph may still update
    # the metrics' counts (a race), so declare it
    held_out = padded.map(lambda f, y: (f["tokens"], y)).take(2).apply(tf.data.experimental.assert_cardinality(2))
    values.append(int(held_out.cardinality()))
    values += model.evaluate(held_out, verbose=0)
    return values
