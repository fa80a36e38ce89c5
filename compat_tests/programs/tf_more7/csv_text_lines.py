"""Reading a CSV file as the TF "load CSV data" tutorial does, on a temporary file: tf.data.TextLineDataset with
skip(1) and tf.io.decode_csv (record_defaults of several dtypes, an empty field taking its default), the columns
packed into a dict, tf.data.experimental.make_csv_dataset (label_name, column type inference, shuffle=False);
preprocessing without feature columns: Normalization adapted on a mapped dataset, StringLookup(output_mode=
"one_hot") and IntegerLookup(output_mode="one_hot") adapted on columns, Discretization(bin_boundaries) and
HashedCrossing; a Functional model on dict keras.Inputs fit on the dataset and evaluated."""

import os
import tempfile

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    path = os.path.join(tempfile.mkdtemp(), "abalone.csv")
    towns = ["north", "south", "east"]
    rows = []
    for i in range(48):
        length, weight = rng.uniform(0.2, 0.8), rng.uniform(0.1, 2.5)
        rings = int(3 + 20 * length + 2 * weight + rng.integers(0, 3))
        town = towns[i % 3]
        grade = "" if i % 7 == 3 else str(int(rng.integers(1, 4)))
        rows.append(f"{length:.3f},{weight:.3f},{town},{grade},{rings}")
    with open(path, "w") as f:
        f.write("length,weight,town,grade,rings\n" + "\n".join(rows) + "\n")

    defaults = [tf.constant(0.0), [0.0], [""], tf.constant(0, tf.int32), [0]]
    lines = tf.data.TextLineDataset(path).skip(1)
    first = tf.io.decode_csv(next(iter(lines)), record_defaults=defaults)
    values = [str([t.dtype.name for t in first]), str(first[2].numpy()), int(first[4])]
    names = ["length", "weight", "town", "grade", "rings"]

    def parse(line):
        fields = tf.io.decode_csv(line, record_defaults=defaults)
        features = dict(zip(names[:-1], fields[:-1]))
        return features, tf.cast(fields[-1], tf.float32)

    ds = lines.map(parse)
    batched = ds.batch(16)
    features, labels = next(iter(batched))
    values += [str(sorted(features)), str(features["grade"].numpy().tolist()), float(tf.reduce_sum(labels))]

    csv_ds = tf.data.experimental.make_csv_dataset(path, batch_size=12, label_name="rings", num_epochs=1,
                                                   shuffle=False)
    csv_features, csv_labels = next(iter(csv_ds))
    values += [str(list(csv_features)), str({k: v.dtype.name for k, v in csv_features.items()}),
               str(csv_labels.dtype.name), str(csv_labels.numpy().tolist())]
    values += [float(v) for v in csv_features["weight"].numpy()]

    normalizer = tf.keras.layers.Normalization(axis=None)
    normalizer.adapt(ds.map(lambda x, y: x["weight"]))
    town_lookup = tf.keras.layers.StringLookup(output_mode="one_hot")
    town_lookup.adapt(ds.map(lambda x, y: x["town"]))
    grade_lookup = tf.keras.layers.IntegerLookup(output_mode="one_hot", num_oov_indices=1)
    grade_lookup.adapt(ds.map(lambda x, y: x["grade"]))
    values += [float(normalizer.mean.numpy().ravel()[0]), str(town_lookup.get_vocabulary()),
               str(grade_lookup.get_vocabulary())]

    inputs = {"length": tf.keras.Input(shape=(), name="length"),
              "weight": tf.keras.Input(shape=(), name="weight"),
              "town": tf.keras.Input(shape=(), name="town", dtype="string"),
              "grade": tf.keras.Input(shape=(), name="grade", dtype="int32")}
    length_bins = tf.keras.layers.Discretization(bin_boundaries=[0.35, 0.5, 0.65])(inputs["length"])
    crossed = tf.keras.layers.HashedCrossing(num_bins=8, output_mode="one_hot")(
        (length_bins, inputs["grade"]))
    parts = [tf.keras.layers.Reshape((1,))(inputs["length"]),
             tf.keras.layers.Reshape((1,))(normalizer(inputs["weight"])),
             town_lookup(inputs["town"]), grade_lookup(inputs["grade"]), crossed]
    hidden = tf.keras.layers.Dense(8, activation="relu")(tf.keras.layers.Concatenate()(parts))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(hidden))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"])
    history = model.fit(batched, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["mae"]
    values += model.evaluate(batched.take(1), verbose=0)
    return values


if __name__ == "__main__":
    print(main())
