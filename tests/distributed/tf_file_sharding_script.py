"""How a 2-worker MultiWorkerMirroredStrategy shards datasets read from files (AUTO and FILE policies), for vfw
(under its launcher) and real TF (one process per ``TF_CONFIG`` task) alike: ``argv[1]`` names the module
(``vfw.tensorflow`` or ``tensorflow``); each task writes its own copy of the files under ``argv[2]/files<task>``
and what it read to ``argv[2]/<task>.json`` (compat_tests/tensorflow/test_distribute_sharding.py).
"""

import importlib
import json
import os
import sys

tf = importlib.import_module(sys.argv[1])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
task = strategy.cluster_resolver.task_id
folder = os.path.join(sys.argv[2], f"files{task}")
os.makedirs(folder)
out = {}


def text_files(prefix, count, lines):
    """``count`` text files of ``lines`` lines each (line ``j`` of file ``i`` reads ``<prefix>i-j``)."""
    names = []
    for i in range(count):
        names.append(os.path.join(folder, f"{prefix}{i}.txt"))
        with open(names[-1], "w") as f:
            f.write("".join(f"{prefix}{i}-{j}\n" for j in range(lines)))
    return names


def record_files(prefix, count, records):
    names = []
    for i in range(count):
        names.append(os.path.join(folder, f"{prefix}{i}.tfrecord"))
        with tf.io.TFRecordWriter(names[-1]) as writer:
            for j in range(records):
                writer.write(f"{prefix}{i}-{j}".encode())
    return names


def with_policy(dataset, policy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
    return dataset.with_options(options)


def read(name, make, policy=None):
    """Every local value ``experimental_distribute_dataset(make())`` gives (or the error it raises)."""
    try:
        dataset = make()
        if policy:
            dataset = with_policy(dataset, policy)
        distributed = strategy.experimental_distribute_dataset(dataset)
        out[name] = [[v.decode() for v in strategy.experimental_local_results(batch)[0].numpy().tolist()]
                     for batch in distributed]
    except Exception as e:  # noqa: BLE001 - the outcome compared is the exception's type and first line
        out[name] = [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]


four = text_files("t", 4, 3)
pattern = os.path.join(folder, "t*.txt")
read("text_auto", lambda: tf.data.TextLineDataset(four).batch(4))
read("text_file", lambda: tf.data.TextLineDataset(four).batch(4), "FILE")
read("text_data", lambda: tf.data.TextLineDataset(four).batch(4), "DATA")
read("text_odd_batch", lambda: tf.data.TextLineDataset(four).batch(5))
read("list_files_interleave", lambda: tf.data.Dataset.list_files(pattern, shuffle=False).interleave(
    tf.data.TextLineDataset, cycle_length=2).batch(4))
read("list_files_flat_map", lambda: tf.data.Dataset.list_files(pattern, shuffle=False).flat_map(
    tf.data.TextLineDataset).batch(2))
read("names_map_batch", lambda: tf.data.TextLineDataset(four).map(tf.strings.upper).batch(2))
read("text_shuffled", lambda: tf.data.TextLineDataset(four).shuffle(12, seed=5).batch(4))
read("list_files_shuffled", lambda: tf.data.Dataset.list_files(pattern, seed=3).flat_map(
    tf.data.TextLineDataset).batch(2))
read("concatenated", lambda: tf.data.TextLineDataset(four[:2]).concatenate(tf.data.TextLineDataset(four[2:])).batch(2))
read("csv", lambda: tf.data.experimental.CsvDataset(four, [tf.string]).map(lambda line: line).batch(2))
kept = tf.data.TextLineDataset(four).batch(4)
read("kept", lambda: kept)
out["kept_whole"] = [[v.decode() for v in batch.numpy().tolist()] for batch in kept]  # the user's dataset: all


@tf.function
def rows_read(distributed):
    rows = tf.constant(0)
    for batch in distributed:
        rows += tf.shape(strategy.experimental_local_results(batch)[0])[0]
    return rows


out["rows_in_function"] = int(rows_read(strategy.experimental_distribute_dataset(
    tf.data.TextLineDataset(four[:3]).batch(2))).numpy())
records = record_files("r", 2, 5)
read("records_auto", lambda: tf.data.TFRecordDataset(records).batch(2))
read("records_file", lambda: tf.data.TFRecordDataset(records).batch(2), "FILE")
read("no_files_auto", lambda: tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).batch(2))
three = text_files("u", 3, 2)  # worker 0 reads 2 files, worker 1 one: more batches on worker 0
read("three_files", lambda: tf.data.TextLineDataset(three).batch(2))
# errors last: after one worker's error, real TF's other worker may no longer read in step
read("no_files_file", lambda: tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).batch(2), "FILE")
one = text_files("s", 1, 6)
read("one_file_auto", lambda: tf.data.TextLineDataset(one).batch(2))
read("one_file_file", lambda: tf.data.TextLineDataset(one).batch(2), "FILE")
with open(os.path.join(sys.argv[2], f"{task}.json"), "w") as f:
    json.dump(out, f)
