"""How a 2-worker MultiWorkerMirroredStrategy distributes datasets, for vfw (under its launcher) and real TF
(one process per ``TF_CONFIG`` task) alike: ``argv[1]`` names the module (``vfw.tensorflow`` or ``tensorflow``);
each task writes what it read to ``argv[2]/<task>.json`` (compat_tests/tensorflow/test_distribute_sharding.py).
"""

import importlib
import json
import os
import sys

tf = importlib.import_module(sys.argv[1])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
task = strategy.cluster_resolver.task_id
out = {"replicas": strategy.num_replicas_in_sync}


def read(name, dataset, policy=None):
    """Every local value ``experimental_distribute_dataset(dataset)`` gives, under the shard ``policy``."""
    if policy:
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
        dataset = dataset.with_options(options)
    distributed = strategy.experimental_distribute_dataset(dataset)
    out[name] = [tf.nest.map_structure(lambda t: t.numpy().tolist(), strategy.experimental_local_results(batch))
                 for batch in distributed]


# global batches of odd sizes and short last batches: each worker's slice, the larger slice first
for batch in (3, 4, 5):
    read(f"auto{batch}", tf.data.Dataset.range(11).batch(batch))
    read(f"data{batch}", tf.data.Dataset.range(11).batch(batch), "DATA")
read("data_one_row", tf.data.Dataset.range(3).batch(2), "DATA")
read("pairs", tf.data.Dataset.from_tensor_slices(([[1.0, 2.0]] * 5, list(range(5)))).batch(5), "DATA")
# not sharded: every worker reads all the data, as per-replica batches
read("off4", tf.data.Dataset.range(12).batch(4), "OFF")
read("off5", tf.data.Dataset.range(11).batch(5), "OFF")
read("off_short_last", tf.data.Dataset.range(10).batch(4), "OFF")
for rows, batch in ((11, 3), (7, 3), (13, 5), (9, 4)):  # short last batches: TF's rebatching may add an empty one
    read(f"off_short_last_{rows}_{batch}", tf.data.Dataset.range(rows).batch(batch), "OFF")
contexts = []


def dataset_fn(context):
    contexts.append([context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync,
                     context.get_per_replica_batch_size(8)])
    return tf.data.Dataset.range(8).shard(context.num_input_pipelines, context.input_pipeline_id).batch(2)


out["from_function"] = [[t.numpy().tolist() for t in strategy.experimental_local_results(batch)]
                        for batch in strategy.distribute_datasets_from_function(dataset_fn)]
out["contexts"] = contexts
with open(os.path.join(sys.argv[2], f"{task}.json"), "w") as f:
    json.dump(out, f)
