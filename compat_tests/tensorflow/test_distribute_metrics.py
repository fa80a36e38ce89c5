"""Metrics and sync-on-read variables under a 2-worker MultiWorkerMirroredStrategy against real TF 2.21: a custom
training loop's metrics read outside ``strategy.run`` combine every worker's state (TF's multi-worker custom loop
tutorial), as real TF's two workers (each a process with its ``TF_CONFIG``) and one process on all the data give
them; Keras ``fit``/``evaluate`` logs are those of one process on the global batches
(tests/distributed/tf_metrics_script.py and tf_fit_metrics_script.py run in each framework)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("tensorflow")

from compat_tests.tensorflow.test_distribute_sharding import real_tf_workers  # noqa: E402
from tests.distributed.launch import HARD_TIMEOUT, ROOT, environment, run_ok  # noqa: E402

SCRIPTS = os.path.join(ROOT, "tests", "distributed")


def _real_tf_single(script, out):
    """Real TF in one process (no strategy) running ``script tensorflow out single``."""
    env = environment(extra={"TF_CPP_MIN_LOG_LEVEL": "3"})
    done = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), "tensorflow", str(out), "single"], env=env,
                          cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=HARD_TIMEOUT)
    assert done.returncode == 0, done.stdout


def _read(out, tasks):
    return [json.loads((out / f"{task}.json").read_text()) for task in range(tasks)]


def _assert_same(got, expected, where):
    """Equal structures; floats within float32 rounding, everything else exactly."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), where
        for key in expected:
            _assert_same(got[key], expected[key], f"{where}/{key}")
    elif isinstance(expected, list) and expected and all(isinstance(v, float) for v in np.ravel(expected)):
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6, err_msg=where)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (a, b) in enumerate(zip(got, expected)):
            _assert_same(a, b, f"{where}[{i}]")
    elif isinstance(expected, float):
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6, err_msg=where)
    else:
        assert got == expected, where


def _dirs(tmp_path, *names):
    made = [tmp_path / name for name in names]
    for d in made:
        d.mkdir()
    return made


def test_custom_loop_metrics_and_sync_on_read_variables_as_tf_workers(tmp_path):
    ours, theirs, single = _dirs(tmp_path, "vfw", "tf", "single")
    run_ok(2, "tf_metrics_script.py", "vfw.tensorflow", ours)
    real_tf_workers(os.path.join(SCRIPTS, "tf_metrics_script.py"), theirs)
    _real_tf_single("tf_metrics_script.py", single)
    whole = _read(single, 1)[0]
    for task, (got, expected) in enumerate(zip(_read(ours, 2), _read(theirs, 2))):
        _assert_same(got, expected, f"worker {task}")
        # what every worker reads outside strategy.run is what one process computes on all the data
        for epoch in ("epoch0", "epoch1"):
            for key in ("accuracy", "loss", "total", "total_read", "total_tensor", "counter", "total_plus"):
                _assert_same(got[epoch][key], whole[epoch][key], f"worker {task} {epoch} {key}")
            _assert_same(got[f"{epoch}_function"], whole[f"{epoch}_function"], f"worker {task} {epoch} function")
            _assert_same(got[f"{epoch}_reset"], [0.0, 0.0], f"worker {task} {epoch} reset")


def test_fit_and_evaluate_logs_over_two_workers_are_one_process_logs(tmp_path):
    ours, single = _dirs(tmp_path, "vfw", "single")
    run_ok(2, "tf_fit_metrics_script.py", "vfw.tensorflow", ours)
    _real_tf_single("tf_fit_metrics_script.py", single)
    whole = _read(single, 1)[0]
    for task, got in enumerate(_read(ours, 2)):
        _assert_same(got["history"], whole["history"], f"worker {task} history")
        _assert_same(got["evaluate"], whole["evaluate"], f"worker {task} evaluate")
        _assert_same(got["evaluate_dict"], whole["evaluate_dict"], f"worker {task} evaluate_dict")
        for a, b in zip(got["weights"], whole["weights"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_batch_logs_and_train_on_batch_with_two_replicas_as_tf_mirrored_strategy(tmp_path):
    """Real TF runs MirroredStrategy's two replicas on 2 logical CPUs of one process, vfw one per process: the
    logs callbacks get after each batch are the replicas' mean, the epochs' logs the metrics over all the data, and
    ``train_on_batch`` gives every replica the whole batch."""
    ours, theirs = _dirs(tmp_path, "vfw", "tf")
    run_ok(2, "tf_fit_logs_script.py", "vfw.tensorflow", ours)
    _real_tf_single("tf_fit_logs_script.py", theirs)
    expected = _read(theirs, 1)[0]
    for task, got in enumerate(_read(ours, 2)):
        _assert_same({k: v for k, v in got.items() if k != "weights"},
                     {k: v for k, v in expected.items() if k != "weights"}, f"replica {task}")
        for a, b in zip(got["weights"], expected["weights"]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _sync_on_read_in_one_process(tf):
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        plain = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)
        total = tf.Variable(2.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
        mean = tf.Variable(2.0, synchronization=tf.VariableSynchronization.ON_READ,
                           aggregation=tf.VariableAggregation.MEAN)
    outcomes = [type(plain).__name__, str(plain.aggregation)]
    for fn in (lambda: plain.numpy(), lambda: (plain + 1).numpy(), lambda: total.assign_add(1.0).numpy(),
               lambda: total.assign_sub(1.0).numpy(), lambda: total.assign(5.0).numpy(),
               lambda: mean.assign_add(1.0).numpy(), lambda: strategy.run(lambda: plain.assign_add(1.0)).numpy(),
               lambda: strategy.run(lambda: total.assign_add(2.0)).numpy(), lambda: total.numpy()):
        try:
            outcomes.append(float(fn()))
        except ValueError as e:
            outcomes.append(str(e))
    return outcomes


def test_sync_on_read_variables_of_one_replica_as_tf():
    """One process: the reads and updates TF allows and refuses in cross-replica context, and an update's result
    returned from ``strategy.run`` (the replica's own copy)."""
    from compat_tests.tensorflow.harness import real, vtf

    assert _sync_on_read_in_one_process(vtf) == _sync_on_read_in_one_process(real)
