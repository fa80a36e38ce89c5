"""Per-output losses of a dict-output model follow the order of the ``loss`` dict (not the sorted output names), in
``metrics_names``, ``test_on_batch``'s list and the summed loss, as in real Keras 3.15.1."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import same


@pytest.mark.parametrize("loss_order, metric_order", [("bca", "bca"), ("abc", "bca"), ("cab", "abc"), ("cba", "cab")])
def test_per_output_losses_follow_the_loss_dict(loss_order, metric_order):
    def run(lib):
        keras = lib.keras
        lib.keras.utils.set_random_seed(3)
        inputs = keras.Input((3,), name="features")
        outputs = {name: keras.layers.Dense(1, name=name)(inputs) for name in "bca"}
        model = keras.Model(inputs, outputs)
        model.compile("sgd", loss={name: "mse" if name != "a" else "mae" for name in loss_order},
                      metrics={name: ["mae"] for name in metric_order},
                      loss_weights={name: 1.0 + "abc".index(name) for name in loss_order})
        x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
        targets = {name: np.full((8, 1), "abc".index(name), np.float32) for name in "abc"}
        tested = model.test_on_batch(x, targets)
        trained = model.train_on_batch(x, targets, return_dict=True)
        return [model.metrics_names, [float(v) for v in tested], sorted(trained.items())]
    same(run)
