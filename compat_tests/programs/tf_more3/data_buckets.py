"""tf.data for variable-length sequences into a masked LSTM: files-like shards merged with interleave, sliding
windows with window + flat_map, group_by_window by length bucket, padded_batch, bucket_by_sequence_length with
pad_to_bucket_boundary, ragged generators through from_generator with an output_signature, and a
Masking/Embedding(mask_zero) LSTM model fitted on the bucketed dataset."""

import keras
import numpy as np
import tensorflow as tf

VOCAB = 12


def sequences(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        length = int(rng.integers(2, 9))
        tokens = rng.integers(1, VOCAB, length).astype(np.int32)
        yield tokens, np.int32(tokens.sum() % 2)


def shard(index):
    signature = (tf.TensorSpec(shape=(None,), dtype=tf.int32), tf.TensorSpec(shape=(), dtype=tf.int32))
    return tf.data.Dataset.from_generator(sequences, args=(index, 24), output_signature=signature)


def main():
    keras.utils.set_random_seed(47)
    values = []

    merged = tf.data.Dataset.range(3).interleave(shard, cycle_length=2, block_length=3)
    lengths = [int(tf.size(tokens)) for tokens, _ in merged]
    values += [len(lengths), str(lengths[:12])]

    windows = tf.data.Dataset.range(10).window(4, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(4))
    values += [str([w.numpy().tolist() for w in windows])]

    grouped = merged.group_by_window(key_func=lambda tokens, label: tf.cast(tf.size(tokens) // 3, tf.int64),
                                     reduce_func=lambda key, ds: ds.padded_batch(4), window_size=4)
    values += [str([list(batch[0].shape) for batch in grouped][:8])]

    bucketed = merged.bucket_by_sequence_length(element_length_func=lambda tokens, label: tf.size(tokens),
                                                bucket_boundaries=[4, 10], bucket_batch_sizes=[8, 8, 8],
                                                pad_to_bucket_boundary=True, drop_remainder=False)
    values += [str([list(batch[0].shape) for batch in bucketed])]

    padded = merged.padded_batch(8, padded_shapes=([None], []), padding_values=(0, -1))
    first = next(iter(padded))
    values += [str(first[0].numpy().tolist()), str(padded.element_spec)]

    model = keras.Sequential([keras.layers.Embedding(VOCAB, 8, mask_zero=True), keras.layers.LSTM(10),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy", metrics=["accuracy"])
    train = merged.bucket_by_sequence_length(lambda tokens, label: tf.size(tokens), [4, 7], [8, 8, 8])
    history = model.fit(train, epochs=3, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]
    values += [float(v) for v in model.predict(first[0], verbose=0).ravel()]

    masked = keras.Sequential([keras.Input((None, 1)), keras.layers.Masking(mask_value=0.0),
                               keras.layers.LSTM(6, return_sequences=True), keras.layers.GlobalAveragePooling1D(),
                               keras.layers.Dense(1)])
    series = tf.cast(first[0][..., None], tf.float32) / VOCAB
    values += [float(v) for v in masked(series).numpy().ravel()]
    return values


if __name__ == "__main__":
    print(main())
