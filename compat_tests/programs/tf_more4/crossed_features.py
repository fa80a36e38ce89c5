"""Feature engineering for structured data as in the Keras "structured data with FeatureSpace"-style examples, by
hand: a dict dataset (tf.data.Dataset.from_tensor_slices(dict(columns))), Discretization adapted with num_bins,
Hashing and HashedCrossing of two categorical features, IntegerLookup/StringLookup with output_mode="one_hot" and
num_oov_indices, CategoryEncoding(output_mode="count"), Normalization(axis=None) with a given mean/variance, the
preprocessing applied inside dataset.map, a wide-and-deep functional model on the encoded features, and
get_config/vocabulary reads."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_columns(rng, n):
    return {
        "age": rng.uniform(18, 80, n).astype(np.float32),
        "income": rng.lognormal(10, 0.5, n).astype(np.float32),
        "city": rng.choice(["paris", "lyon", "nice", "lille", "brest"], n),
        "plan": rng.choice([1, 2, 3, 9], n).astype(np.int64),
        "clicks": rng.integers(0, 5, (n, 3)).astype(np.int64),
    }


def main():
    keras.utils.set_random_seed(101)
    rng = np.random.default_rng(101)
    columns = make_columns(rng, 200)
    label = ((columns["age"] > 45) ^ (columns["city"] == "nice") | (columns["plan"] == 9)).astype(np.float32)
    values = []

    age_bins = keras.layers.Discretization(num_bins=5, epsilon=0.01)
    age_bins.adapt(columns["age"])
    income_norm = keras.layers.Normalization(axis=None, mean=float(np.log(columns["income"]).mean()),
                                             variance=float(np.log(columns["income"]).var()))
    city_lookup = keras.layers.StringLookup(output_mode="one_hot", num_oov_indices=1)
    city_lookup.adapt(columns["city"][:150])
    plan_lookup = keras.layers.IntegerLookup(output_mode="one_hot", num_oov_indices=2, vocabulary=[1, 2, 3])
    city_hash = keras.layers.Hashing(num_bins=8, output_mode="one_hot")
    cross = keras.layers.HashedCrossing(num_bins=16, output_mode="one_hot")
    clicks = keras.layers.CategoryEncoding(num_tokens=5, output_mode="count")
    age_onehot = keras.layers.CategoryEncoding(num_tokens=5, output_mode="one_hot")
    values += [float(v) for v in age_bins.bin_boundaries] + [str(city_lookup.get_vocabulary()),
                                                             str(plan_lookup.get_vocabulary())]
    values += [str(sorted(cross.get_config().items())), str(sorted(clicks.get_config().items()))]

    def encode(features, target):
        age = age_onehot(age_bins(features["age"]))
        lookups = tf.cast(tf.concat([city_lookup(features["city"]), plan_lookup(features["plan"])], -1), tf.float32)
        wide = tf.concat([lookups, cross((features["city"], tf.strings.as_string(features["plan"])))], axis=-1)
        deep = tf.concat([age, income_norm(tf.math.log(features["income"]))[:, None],
                          city_hash(features["city"]), clicks(features["clicks"])], axis=-1)
        return {"wide": wide, "deep": deep}, target

    dataset = tf.data.Dataset.from_tensor_slices((dict(columns), label)).batch(25).map(encode)
    sample, _ = next(iter(dataset))
    values += [str(sample["wide"].shape), str(sample["deep"].shape), float(tf.reduce_sum(sample["wide"])),
               float(tf.reduce_sum(sample["deep"])), str(sorted(dataset.element_spec[0]))]

    wide_in = keras.Input((sample["wide"].shape[-1],), name="wide")
    deep_in = keras.Input((sample["deep"].shape[-1],), name="deep")
    deep = keras.layers.Dense(16, activation="relu")(deep_in)
    deep = keras.layers.Dense(8, activation="relu")(deep)
    merged = keras.layers.concatenate([wide_in, deep])
    model = keras.Model({"wide": wide_in, "deep": deep_in}, keras.layers.Dense(1, activation="sigmoid")(merged))
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy",
                  metrics=["accuracy", keras.metrics.Precision(name="precision")])
    history = model.fit(dataset.take(6), validation_data=dataset.skip(6), epochs=3, verbose=0)
    values += history.history["loss"] + history.history["val_accuracy"] + history.history["precision"]
    values += [float(v) for v in model.predict(dataset.skip(7), verbose=0).ravel()[:6]]
    return values


if __name__ == "__main__":
    print(main())
