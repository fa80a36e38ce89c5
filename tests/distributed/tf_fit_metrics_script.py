"""Keras ``fit``/``evaluate`` metrics under a 2-worker MultiWorkerMirroredStrategy, for vfw (under its launcher) and
real TF (one process per ``TF_CONFIG`` task) alike: ``argv[1]`` names the module (``vfw.tensorflow`` or
``tensorflow``); each task writes the history and evaluation to ``argv[2]/<task>.json``
(compat_tests/tensorflow/test_distribute_metrics.py compares them).  Real Keras 3 cannot fit under
MultiWorkerMirroredStrategy (its symbolic build reduces the first per-replica batch and fails), so the oracle is
real TF in one process (``argv[3] == "single"``: no strategy) on the same global batches: the workers' logs are
their metrics combined over all the data, the single process's.
"""

import importlib
import json
import os
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1])
keras = tf.keras
single = len(sys.argv) > 3 and sys.argv[3] == "single"
strategy = tf.distribute.get_strategy() if single else tf.distribute.MultiWorkerMirroredStrategy()
task = 0 if single else strategy.cluster_resolver.task_id

rng = np.random.default_rng(3)
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

train = tf.data.Dataset.from_tensor_slices((x, y)).batch(6)  # global batches of 6 (3 per worker), then 4
validation = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(4)
history = model.fit(train, epochs=2, validation_data=validation, verbose=0)
out = {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
       "evaluate": [float(v) for v in model.evaluate(validation, verbose=0)],
       "evaluate_dict": {k: float(v) for k, v in model.evaluate(validation, verbose=0, return_dict=True).items()},
       "weights": [w.tolist() for w in model.get_weights()]}
with open(os.path.join(sys.argv[2], f"{task}.json"), "w") as f:
    json.dump(out, f)
