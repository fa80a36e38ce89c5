"""Metrics and sync-on-read variables of TF's multi-worker custom training loop, for vfw (under its launcher) and
real TF (one process per ``TF_CONFIG`` task) alike: ``argv[1]`` names the module (``vfw.tensorflow`` or
``tensorflow``); each task writes what it read to ``argv[2]/<task>.json``
(compat_tests/tensorflow/test_distribute_metrics.py compares them, and with one process on all the data).

With ``argv[3] == "single"`` the same loop runs in one process without a strategy over the whole data (the
reference the workers' cross-replica reads must give).
"""

import importlib
import json
import os
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1])
single = len(sys.argv) > 3 and sys.argv[3] == "single"
strategy = tf.distribute.get_strategy() if single else tf.distribute.MultiWorkerMirroredStrategy()
task = 0 if single else strategy.cluster_resolver.task_id
out = {"replicas": strategy.num_replicas_in_sync}

ROWS, GLOBAL_BATCH = 11, 4  # global batches of 4, 4, 3: the workers' slices differ in size
rng = np.random.default_rng(7)
features = rng.standard_normal((ROWS, 3)).astype(np.float32)
labels = rng.integers(0, 3, ROWS).astype(np.int64)
kernel = rng.standard_normal((3, 3)).astype(np.float32)


def outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the outcome compared is the exception's type and message
        return [type(e).__name__, str(e).splitlines()[0]]


with strategy.scope():
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
    mean_loss = tf.keras.metrics.Mean()
    total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    average = tf.Variable([0.0, 0.0], synchronization=tf.VariableSynchronization.ON_READ,
                          aggregation=tf.VariableAggregation.MEAN)
    first = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
    counter = tf.Variable(0, synchronization=tf.VariableSynchronization.ON_READ,
                          aggregation=tf.VariableAggregation.SUM)
weights = tf.constant(kernel)


def step(inputs):
    x, y = inputs
    logits = tf.matmul(x, weights)
    loss = tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
    accuracy.update_state(y, logits)
    mean_loss.update_state(loss)
    rows = tf.cast(tf.shape(x)[0], tf.float32)
    total.assign_add(rows)
    average.assign_add(tf.stack([rows, tf.reduce_sum(x)]))
    first.assign_add(rows)
    counter.assign_add(tf.shape(x)[0])
    return accuracy.result(), total.read_value()  # inside the replica: this replica's own values


dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(GLOBAL_BATCH)
distributed = dataset if single else strategy.experimental_distribute_dataset(dataset)


@tf.function
def train_step(iterator):
    return strategy.run(step, args=(next(iterator),))


@tf.function
def read_in_function():
    return accuracy.result(), mean_loss.result(), total.read_value()


def results():
    return {"accuracy": float(accuracy.result().numpy()), "loss": float(mean_loss.result().numpy()),
            "total": float(total.numpy()), "total_read": float(total.read_value().numpy()),
            "total_tensor": float(tf.convert_to_tensor(total).numpy()), "average": average.numpy().tolist(),
            "first": float(first.numpy()), "counter": int(counter.numpy()), "total_plus": float((total + 1.0).numpy())}


local = []
for epoch in range(2):
    iterator = iter(distributed)
    steps = 3
    for _ in range(steps):
        if epoch == 0:
            value = strategy.run(step, args=(next(iterator),))  # eager steps in the first epoch
        else:
            value = train_step(iterator)
        local.append([float(v.numpy()) for v in strategy.experimental_local_results(value[0])][:1]
                     + [float(v.numpy()) for v in strategy.experimental_local_results(value[1])][:1])
    out[f"epoch{epoch}"] = results()
    out[f"epoch{epoch}_function"] = [float(t.numpy()) for t in read_in_function()]
    accuracy.reset_state()
    mean_loss.reset_state()
    out[f"epoch{epoch}_reset"] = [float(accuracy.result().numpy()), float(mean_loss.result().numpy())]
out["local"] = local
out["assign_sum"] = outcome(lambda: float(total.assign(6.0).numpy()))
out["after_assign_sum"] = float(total.numpy())
out["assign_mean"] = outcome(lambda: average.assign([2.0, 4.0]).numpy().tolist())
out["after_assign_mean"] = average.numpy().tolist()
out["assign_add_sum"] = outcome(lambda: float(total.assign_add(1.0).numpy()))
out["assign_add_mean"] = outcome(lambda: average.assign_add([1.0, 1.0]).numpy().tolist())
out["assign_counter"] = outcome(lambda: int(counter.assign(5).numpy()))
out["after_assign_counter"] = int(counter.numpy())
out["types"] = [type(total).__name__, type(accuracy.variables[0].value).__name__ if not single else ""]
with open(os.path.join(sys.argv[2], f"{task}.json"), "w") as f:
    json.dump(out, f)
