"""A TFRecord input pipeline as in the TF "TFRecord and tf.train.Example" tutorial: helper functions building
tf.train.Feature values (bytes/float/int64 lists, a tensor stored with tf.io.serialize_tensor), Examples written with
tf.io.TFRecordWriter (plain and GZIP), read back with tf.data.TFRecordDataset and tf.io.parse_single_example /
parse_example (FixedLenFeature with defaults, VarLenFeature as SparseTensor), tf.io.parse_tensor, Example.FromString,
then a Keras regressor trained on the parsed dataset."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras


def _bytes_feature(value):
    if isinstance(value, type(tf.constant(0))):
        value = value.numpy()
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def _float_feature(values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=list(values)))


def _int64_feature(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))


def serialize_example(x, label, tags, name, patch):
    feature = {"x": _float_feature(x), "label": _float_feature([label]), "tags": _int64_feature(tags),
               "name": _bytes_feature(name.encode()), "patch": _bytes_feature(tf.io.serialize_tensor(patch))}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


FEATURES = {
    "x": tf.io.FixedLenFeature([4], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.float32),
    "name": tf.io.FixedLenFeature([], tf.string),
    "weight": tf.io.FixedLenFeature([], tf.float32, default_value=1.0),
}


def main():
    keras.utils.set_random_seed(91)
    rng = np.random.default_rng(91)
    x = rng.normal(size=(60, 4)).astype(np.float32)
    y = (x @ np.array([0.5, -1.0, 2.0, 0.1], np.float32) + 0.3).astype(np.float32)
    values = []
    single = tf.train.Example(features=tf.train.Features(feature={"v": _int64_feature([1, -2, 300])}))
    values += [str(single.SerializeToString()), str(_float_feature([1.5, 2.0]).SerializeToString()),
               str(tf.io.serialize_tensor(tf.constant([[1, 2], [3, 4]], tf.int64)).numpy()),
               str(tf.io.serialize_tensor(tf.constant(["ab", "c"])).numpy()),
               str(tf.io.serialize_tensor(tf.constant(2.5)).numpy())]
    with tempfile.TemporaryDirectory() as directory:
        paths = [os.path.join(directory, f"part-{i}.tfrecord") for i in range(2)]
        for part, path in enumerate(paths):
            with tf.io.TFRecordWriter(path) as writer:
                for i in range(part * 30, part * 30 + 30):
                    tags = list(range(i % 4))
                    patch = tf.constant(rng.integers(0, 9, (2, 2)), tf.int32)
                    writer.write(serialize_example(x[i], y[i], tags, f"row{i}", patch))
        gzip_path = os.path.join(directory, "small.tfrecord.gz")
        with tf.io.TFRecordWriter(gzip_path, options="GZIP") as writer:
            for i in range(3):
                writer.write(tf.io.serialize_tensor(tf.fill([i + 1], float(i))).numpy())
        values += [float(os.path.getsize(paths[0])), float(os.path.getsize(paths[1]))]

        raw = tf.data.TFRecordDataset(paths)
        first = next(iter(raw))
        example = tf.train.Example.FromString(first.numpy())
        feature = example.features.feature
        values += [float(v) for v in feature["x"].float_list.value] + [feature["name"].bytes_list.value[0].decode(),
                                                                      feature["tags"].WhichOneof("kind")]
        parsed = tf.io.parse_single_example(first, {**FEATURES, "tags": tf.io.VarLenFeature(tf.int64),
                                                    "patch": tf.io.FixedLenFeature([], tf.string)})
        values += [" ".join(sorted(parsed)), float(parsed["weight"]), parsed["name"].numpy().decode(),
                   str(parsed["tags"].dense_shape.numpy().tolist())]
        patch = tf.io.parse_tensor(parsed["patch"], out_type=tf.int32)
        values += [str(patch.shape), float(tf.reduce_sum(patch))]
        batch = tf.io.parse_example(tf.stack([r for r in raw.skip(1).take(4)]),
                                    {"tags": tf.io.VarLenFeature(tf.int64), "x": FEATURES["x"]})
        values += [str(batch["tags"].indices.numpy().tolist()), str(batch["tags"].values.numpy().tolist()),
                   str(batch["tags"].dense_shape.numpy().tolist()), float(tf.reduce_sum(batch["x"]))]
        values += [float(tf.reduce_sum(tf.io.parse_tensor(r, tf.float32)))
                   for r in tf.data.TFRecordDataset(gzip_path, compression_type="GZIP")]
        values += [float(raw.reduce(0, lambda n, _: n + 1)),
                   float(tf.data.TFRecordDataset(paths, num_parallel_reads=2).cardinality())]

        def parse(record):
            features = tf.io.parse_single_example(record, FEATURES)
            return features["x"], features["label"], features["weight"]

        dataset = tf.data.TFRecordDataset(paths).map(parse).shuffle(60, seed=5).batch(12)
        xb, yb, wb = next(iter(dataset))
        values += [str(xb.shape), float(tf.reduce_sum(yb)), float(tf.reduce_sum(wb)), str(dataset.element_spec)]
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
        history = model.fit(dataset, epochs=3, verbose=0)
        values += history.history["loss"]
    return values


if __name__ == "__main__":
    print(main())
