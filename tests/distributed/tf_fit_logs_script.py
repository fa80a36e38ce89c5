"""Keras ``fit``/``evaluate``/``train_on_batch`` logs with 2 replicas of a MirroredStrategy: vfw runs one replica per
process (under its launcher, ``argv[1] == "vfw.tensorflow"``, each rank writes ``argv[2]/<rank>.json``); real TF
(``argv[1] == "tensorflow"``) runs both replicas in one process on 2 logical CPUs and writes ``argv[2]/0.json``.
The per-batch logs callbacks get are the replicas' mean, the epoch's logs the metrics over all the data
(compat_tests/tensorflow/test_distribute_metrics.py compares them).
"""

import importlib
import json
import os
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1])
keras = tf.keras
if sys.argv[1] == "tensorflow":
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    rank = 0
else:
    strategy = tf.distribute.MirroredStrategy()
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))

rng = np.random.default_rng(5)
x = rng.standard_normal((22, 4)).astype(np.float32)
y = (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype(np.float32)
x_val = rng.standard_normal((10, 4)).astype(np.float32)
y_val = (x_val[:, :1] > 0).astype(np.float32)
kernel = rng.standard_normal((4, 1)).astype(np.float32) * 0.1

with strategy.scope():
    model = keras.Sequential([keras.Input((4,)),
                              keras.layers.Dense(1, activation="sigmoid",
                                                 kernel_initializer=keras.initializers.Constant(kernel))])
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="binary_crossentropy",
                  metrics=["accuracy", keras.metrics.TruePositives(name="tp")])


class Record(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = []

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append({k: float(v) for k, v in logs.items()})

    def on_test_batch_end(self, batch, logs=None):
        self.batches.append({f"test_{k}": float(v) for k, v in logs.items()})


record = Record()
train = tf.data.Dataset.from_tensor_slices((x, y)).batch(6)  # global batches of 6 (3 per replica), then 4
validation = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(4)
history = model.fit(train, epochs=2, validation_data=validation, verbose=0, callbacks=[record])
out = {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()}, "batches": record.batches,
       "evaluate": {k: float(v) for k, v in model.evaluate(validation, verbose=0, return_dict=True).items()},
       "train_on_batch": {k: float(v) for k, v in model.train_on_batch(x[:6], y[:6], return_dict=True).items()},
       "weights": [w.tolist() for w in model.get_weights()]}
with open(os.path.join(sys.argv[2], f"{rank}.json"), "w") as f:
    json.dump(out, f)
