"""A Kaggle-style tf.data pipeline for tabular records and a sensor series: Dataset.from_generator with a dict
output_signature, take/skip train/validation splits, cache, shuffle(reshuffle_each_iteration=False), reduce to count
elements and sum a column and to build class counts, interleave over shard ids with deterministic order, a sliding
window of the series through window + flat_map + zip with shifted targets, unbatch/rebatch with drop_remainder,
cardinality, and a functional model with named inputs fitted on the dict dataset."""

import numpy as np
import tensorflow as tf

FEATURES = 5


def records():
    rng = np.random.default_rng(29)
    for _ in range(120):
        numbers = rng.normal(size=FEATURES).astype(np.float32)
        category = np.int32(rng.integers(0, 3))
        label = np.int32(numbers[0] + numbers[1] * (category - 1) > 0)
        yield {"numbers": numbers, "category": category}, label


def main():
    tf.keras.utils.set_random_seed(29)
    signature = ({"numbers": tf.TensorSpec((FEATURES,), tf.float32), "category": tf.TensorSpec((), tf.int32)},
                 tf.TensorSpec((), tf.int32))
    dataset = tf.data.Dataset.from_generator(records, output_signature=signature)
    values = [str(dataset.element_spec), int(dataset.cardinality())]

    dataset = dataset.cache()
    count = dataset.reduce(np.int64(0), lambda total, _: total + 1)
    positives = dataset.reduce(tf.constant(0), lambda total, element: total + element[1])
    class_counts = dataset.reduce(tf.zeros(3, tf.int32),
                                  lambda counts, element: counts + tf.one_hot(element[0]["category"], 3,
                                                                              dtype=tf.int32))
    values += [int(count), int(positives), str(class_counts.numpy().tolist())]

    shuffled = dataset.shuffle(120, seed=3, reshuffle_each_iteration=False)
    train = shuffled.take(90)
    validation = shuffled.skip(90)
    first_epoch = [int(label) for _, label in train.take(6)]
    second_epoch = [int(label) for _, label in train.take(6)]
    values += [str(first_epoch), str(second_epoch), int(train.cardinality()), int(validation.cardinality())]

    shards = tf.data.Dataset.range(4).interleave(
        lambda shard: tf.data.Dataset.range(shard * 10, shard * 10 + 5).map(lambda v: v * 2),
        cycle_length=2, block_length=2, num_parallel_calls=2, deterministic=True)
    values += [str([int(v) for v in shards])]

    series = tf.data.Dataset.from_tensor_slices(np.sin(np.arange(30, dtype=np.float32) / 3.0))
    windows = series.window(6, shift=3, drop_remainder=True).flat_map(lambda w: w.batch(6))
    targets = series.skip(6).window(1, shift=3, drop_remainder=True).flat_map(lambda w: w.batch(1))
    pairs = tf.data.Dataset.zip((windows, targets))
    values += [len(list(pairs)), str(pairs.element_spec)]
    values += [float(v) for v in next(iter(pairs.skip(2)))[0].numpy()]
    rebatched = pairs.batch(3).unbatch().batch(2, drop_remainder=True)
    values += [str([list(w.shape) for w, _ in rebatched])]

    numbers = tf.keras.Input(shape=(FEATURES,), name="numbers")
    category = tf.keras.Input(shape=(), dtype="int32", name="category")
    embedded = tf.keras.layers.Embedding(3, 2)(category)
    hidden = tf.keras.layers.Dense(8, activation="relu")(tf.keras.layers.Concatenate()([numbers, embedded]))
    output = tf.keras.layers.Dense(1, activation="sigmoid")(hidden)
    model = tf.keras.Model({"numbers": numbers, "category": category}, output)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.03), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(train.batch(30), validation_data=validation.batch(30), epochs=2, verbose=0)
    values += history.history["loss"] + history.history["val_loss"] + history.history["val_accuracy"]
    return values


if __name__ == "__main__":
    print(main())
