"""Keras metrics and sync-on-read variables in TF's multi-worker custom training loop, 2 processes: what every
worker reads outside ``strategy.run`` is the value over all the workers' data, computed here with numpy
(tf_metrics_script.py; compat_tests/tensorflow/test_distribute_metrics.py holds it against real TF's workers)."""

import json

import numpy as np

from tests.distributed.launch import run_ok


def _whole_data_values():
    """Accuracy and mean cross-entropy of the script's fixed linear classifier over all its rows (numpy)."""
    rng = np.random.default_rng(7)  # the script's draws, in its order
    features = rng.standard_normal((11, 3)).astype(np.float32)
    labels = rng.integers(0, 3, 11).astype(np.int64)
    kernel = rng.standard_normal((3, 3)).astype(np.float32)
    logits = features.astype(np.float64) @ kernel
    log_softmax = logits - logits.max(1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(1, keepdims=True))
    loss = -log_softmax[np.arange(11), labels]
    return float((logits.argmax(1) == labels).mean()), float(loss.mean()), float(features.sum())


def test_metrics_read_outside_run_are_over_all_workers_data(tmp_path):
    run_ok(2, "tf_metrics_script.py", "vfw.tensorflow", tmp_path)
    accuracy, loss, feature_sum = _whole_data_values()
    for task in range(2):
        got = json.loads((tmp_path / f"{task}.json").read_text())
        for epoch, passes in (("epoch0", 1), ("epoch1", 2)):
            values = got[epoch]
            np.testing.assert_allclose([values["accuracy"], values["loss"]], [accuracy, loss], rtol=1e-5)
            np.testing.assert_allclose(got[f"{epoch}_function"], [accuracy, loss, 11.0 * passes], rtol=1e-5)
            assert values["total"] == values["total_read"] == values["total_tensor"] == 11.0 * passes
            assert values["counter"] == 11 * passes and values["total_plus"] == 11.0 * passes + 1
            # MEAN: the workers' mean of their own sums (rows, features)
            np.testing.assert_allclose(values["average"], [11.0 * passes / 2, feature_sum * passes / 2], rtol=1e-5)
            assert got[f"{epoch}_reset"] == [0.0, 0.0]
        # a SUM variable assigned outside run holds a share on each worker, so that it reads back whole
        assert got["assign_sum"] == got["after_assign_sum"] == 6.0
        assert got["assign_counter"] == got["after_assign_counter"] == 4  # 5 // 2 on each of the 2 workers
        assert got["assign_add_sum"][0] == "ValueError"
        assert got["types"] == ["SyncOnReadVariable", "SyncOnReadVariable"]
