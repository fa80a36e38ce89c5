"""tf.io.decode_csv, tf.data.experimental.CsvDataset and make_csv_dataset against real TF 2.21: parsed values and
dtypes per record_defaults, defaults for empty and na_value fields, quoting, select_cols, record shapes, errors
(missing required fields, wrong field counts, bad numbers), and make_csv_dataset's column type inference,
label_name, select_columns and batching."""

import os

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

LINES = np.array([b"1,2.5,abc,7", b"3,,x y,", b"-4,1e3,\"q,uoted\",9"], dtype=object)


def _defaults(tf):
    return [tf.constant(0, tf.int32), [0.0], [""], tf.constant([5], tf.int64)]


def test_decode_csv_values_and_defaults():
    check(lambda tf: tf.io.decode_csv(LINES, _defaults(tf)))
    check(lambda tf: tf.io.decode_csv(LINES.reshape(3, 1), _defaults(tf)))
    check(lambda tf: tf.io.decode_csv(LINES[0], _defaults(tf)))
    check(lambda tf: tf.io.decode_csv(np.array([b"1;2;;NA"], object), [[0], [0.0], ["d"], [1.5]], field_delim=";",
                                      na_value="NA"))
    check(lambda tf: tf.io.decode_csv(np.array([b"1,\"a\"\"b\",3"], object), [[0], [""], [0.0]]))
    check(lambda tf: tf.io.decode_csv(np.array([b"1,2,3,4"], object), [[0.0], [0]], select_cols=[1, 3]))
    check(lambda tf: tf.io.decode_csv(np.array([b"1,2.0"], object), [tf.constant(0, tf.float64), [0]]))


@pytest.mark.parametrize("records, defaults", [
    ([b"1,,3"], "required"),  # a required (empty default) field missing
    ([b"1,2"], "three"),  # too few fields
    ([b"1,2,3,4"], "three"),  # too many fields
    ([b"1,x,3"], "three"),  # not a number
    ([b"1,2.5,3"], "three"),  # not an int
    ([b"1,99999999999,3"], "three"),  # out of int32 range
])
def test_decode_csv_errors(records, defaults):
    def run(tf):
        chosen = {"required": [[0], tf.constant([], tf.int32), [0]], "three": [[0], [0], [0]]}[defaults]
        return tf.io.decode_csv(np.array(records, object), chosen)

    check(run)


def test_decode_csv_in_dataset_map():
    check(lambda tf: [x for x in tf.data.Dataset.from_tensor_slices(LINES).map(
        lambda line: tuple(tf.io.decode_csv(line, _defaults(tf))))])


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    path = os.path.join(tmp_path_factory.mktemp("csv"), "data.csv")
    rows = ["a,b,c,d,e", "1,0.5,x,3000000000,", "2,1.5,y,4,2.5", "3,,z,5,", "4,2.25,x,6,1"]
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")
    return path


def test_csv_dataset(csv_path):
    check(lambda tf: [x for x in tf.data.experimental.CsvDataset(csv_path, [tf.int32, [0.0], tf.string, tf.int64,
                                                                            [9.0]], header=True)])
    check(lambda tf: [x for x in tf.data.experimental.CsvDataset(csv_path, [[0.0], [""]], header=True,
                                                                  select_cols=[1, 2])])


@pytest.mark.parametrize("kwargs", [dict(), dict(label_name="a"), dict(select_columns=["b", "d"]),
                                    dict(label_name="c", select_columns=[0, 2, 4]), dict(column_defaults=[[0]] * 5)],
                         ids=str)
def test_make_csv_dataset(csv_path, kwargs):
    def run(tf):
        ds = tf.data.experimental.make_csv_dataset(csv_path, batch_size=3, num_epochs=1, shuffle=False, **kwargs)
        return [(dict(x[0]), x[1]) if isinstance(x, tuple) else (dict(x), list(x)) for x in ds]

    if "column_defaults" in kwargs:
        check(lambda tf: [(k, s.dtype, s.shape) for k, s in tf.data.experimental.make_csv_dataset(
            csv_path, 3, num_epochs=1, shuffle=False, **kwargs).element_spec.items()])
    else:
        check(run)


def test_make_csv_dataset_repeats_and_errors(csv_path):
    check(lambda tf: [x["a"] for x in tf.data.experimental.make_csv_dataset(csv_path, 3, num_epochs=None,
                                                                             shuffle=False).take(3)])
    check(lambda tf: tf.data.experimental.make_csv_dataset(csv_path, 3, label_name="zz"))
