"""A 2-worker MultiWorkerMirroredStrategy's cross-replica API on per-replica values, for vfw (under its launcher)
and real TF (one process per ``TF_CONFIG`` task) alike: ``argv[1]`` names the module (``vfw.tensorflow`` or
``tensorflow``); each task writes what it got to ``argv[2]/<task>.json``
(compat_tests/tensorflow/test_distribute_sharding.py compares them).
"""

import importlib
import json
import os
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
task = strategy.cluster_resolver.task_id
out = {"replicas": strategy.num_replicas_in_sync}


def values(x):
    return tf.nest.map_structure(lambda t: np.asarray(t).tolist(), x)


def outcome(fn):
    try:
        return values(fn())
    except Exception as e:  # noqa: BLE001 - the outcome compared is the exception's type and first line
        return [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]


# a global batch of 5 rows: worker 0 gets 3, worker 1 gets 2
rows = np.arange(10, dtype=np.float32).reshape(5, 2)
dataset = tf.data.Dataset.from_tensor_slices((rows, np.arange(5))).batch(5)
batch = next(iter(strategy.experimental_distribute_dataset(dataset)))


def step(inputs):
    x, label = inputs
    context = tf.distribute.get_replica_context()
    summed = context.all_reduce(tf.distribute.ReduceOp.SUM, tf.reduce_sum(x, axis=0))
    mean = context.all_reduce("MEAN", tf.cast(tf.shape(x)[0], tf.float32))
    gathered = context.all_gather(x, axis=0)
    nested = context.all_reduce("SUM", {"a": tf.reduce_sum(x), "b": [tf.cast(tf.reduce_sum(label), tf.float32)]})
    return {"x": x * 2.0, "labels": label, "summed": summed, "mean": mean, "gathered": gathered, "nested": nested,
            "replica": context.replica_id_in_sync_group, "in_sync": context.num_replicas_in_sync}


result = strategy.run(step, args=(batch,))
out["local"] = values(tf.nest.map_structure(lambda v: strategy.experimental_local_results(v)[0], result))
out["local_count"] = len(strategy.experimental_local_results(result["x"]))
out["reduce_sum_axis0"] = outcome(lambda: strategy.reduce("SUM", result["x"], axis=0))
out["reduce_mean_axis0"] = outcome(lambda: strategy.reduce("MEAN", result["x"], axis=0))
out["reduce_sum"] = outcome(lambda: strategy.reduce("SUM", result["summed"], axis=None))
out["reduce_mean"] = outcome(lambda: strategy.reduce(tf.distribute.ReduceOp.MEAN, result["mean"], axis=None))
out["reduce_nested"] = outcome(lambda: strategy.reduce("SUM", result["nested"], axis=None))
out["gather"] = outcome(lambda: strategy.gather(result["x"], axis=0))
out["gather_labels"] = outcome(lambda: strategy.gather(result["labels"], axis=0))
out["reduce_labels_mean_axis0"] = outcome(lambda: strategy.reduce("MEAN", result["labels"], axis=0))


def doubled(inputs):
    context = tf.distribute.get_replica_context()
    return {"x": inputs[0] * 2.0, "summed": context.all_reduce("SUM", tf.reduce_sum(inputs[0], axis=0))}


@tf.function
def reduce_in_function(inputs):
    return strategy.reduce("SUM", strategy.run(doubled, args=(inputs,))["summed"], axis=None)


@tf.function
def reduce_axis_in_function(inputs):
    return strategy.reduce("SUM", strategy.run(doubled, args=(inputs,))["x"], axis=0)


@tf.function
def gather_in_function(inputs):
    return strategy.gather(strategy.run(doubled, args=(inputs,))["x"], axis=0)


out["reduce_in_function"] = outcome(lambda: reduce_in_function(batch))
out["reduce_axis_in_function"] = outcome(lambda: reduce_axis_in_function(batch))
out["gather_in_function"] = outcome(lambda: gather_in_function(batch))
out["values_from_function"] = outcome(lambda: strategy.experimental_local_results(
    strategy.experimental_distribute_values_from_function(lambda context: tf.constant(
        [float(context.replica_id_in_sync_group), float(context.num_replicas_in_sync)])))[0])
with open(os.path.join(sys.argv[2], f"{task}.json"), "w") as f:
    json.dump(out, f)
