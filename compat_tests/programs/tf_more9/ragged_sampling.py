"""Variable-length token lists as ragged tensors, mixed from two sources with tf.data sampling, as in the tf.data
and ragged-tensor guides: tf.ragged.constant sources, Dataset.from_tensor_slices over a RaggedTensor,
tf.data.Dataset.sample_from_datasets with weights and a seed, choose_from_datasets driven by a choice dataset,
Dataset.ragged_batch, RaggedTensor.row_lengths / to_tensor / with_flat_values / ragged reduce_mean, tf.unique,
tf.sort / tf.argsort and tf.searchsorted bucketing; a bag-of-embeddings classifier (an Embedding applied to the
ragged batch's flat values, averaged per row) trained by a GradientTape loop with an RMSprop optimizer."""

import keras
import numpy as np
import tensorflow as tf


def make_source(rng, count, low, high, label):
    rows = [rng.integers(low, high, size=rng.integers(1, 6)).tolist() for _ in range(count)]
    return tf.data.Dataset.from_tensor_slices((tf.ragged.constant(rows, dtype=tf.int64),
                                               tf.fill([count], label)))


def main():
    keras.utils.set_random_seed(21)
    rng = np.random.default_rng(21)
    short_ds = make_source(rng, 24, 1, 10, 0)
    long_ds = make_source(rng, 24, 8, 20, 1)
    values = [str(short_ds.element_spec[0]), str(short_ds.element_spec[1])]

    mixed = tf.data.Dataset.sample_from_datasets([short_ds, long_ds], weights=[0.3, 0.7], seed=4,
                                                 stop_on_empty_dataset=True)
    labels_seen = [int(label) for _, label in mixed]
    values += labels_seen

    choice = tf.data.Dataset.range(2).repeat(3)
    chosen = tf.data.Dataset.choose_from_datasets([short_ds.map(lambda tokens, label: label),
                                                   long_ds.map(lambda tokens, label: label)], choice)
    values += [int(v) for v in chosen]

    train_ds = tf.data.Dataset.sample_from_datasets([short_ds, long_ds], seed=9).ragged_batch(8)
    values.append(str(train_ds.element_spec[0]))

    embedding = keras.layers.Embedding(20, 4)
    head = keras.layers.Dense(1)
    optimizer = keras.optimizers.RMSprop(0.05)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

    def forward(tokens):
        embedded = tokens.with_flat_values(embedding(tokens.flat_values))
        pooled = tf.reduce_mean(embedded, axis=1)
        return tf.squeeze(head(pooled), -1)

    for _ in range(2):
        for tokens, labels in train_ds:
            with tf.GradientTape() as tape:
                logits = forward(tokens)
                loss = loss_fn(tf.cast(labels, tf.float32), logits)
            variables = embedding.trainable_variables + head.trainable_variables
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            values.append(float(loss))

    tokens, labels = next(iter(train_ds))
    values += tokens.row_lengths().numpy().tolist()
    values += tokens.to_tensor(default_value=-1, shape=[8, 6]).numpy().ravel().tolist()
    values += tf.reduce_mean(tf.cast(tokens, tf.float32), axis=1).numpy().tolist()
    unique, index = tf.unique(tokens.flat_values)
    values += unique.numpy().tolist() + index.numpy().tolist()
    lengths = tokens.row_lengths()
    values += tf.sort(lengths, direction="DESCENDING").numpy().tolist()
    values += tf.argsort(lengths, stable=True).numpy().tolist()
    values += tf.searchsorted(tf.constant([2, 4], tf.int64), lengths, side="right").numpy().tolist()
    values += forward(tokens).numpy().tolist()
    return values


if __name__ == "__main__":
    print(main())
