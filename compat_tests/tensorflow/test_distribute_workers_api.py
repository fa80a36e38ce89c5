"""A 2-worker MultiWorkerMirroredStrategy's cross-replica API against real TF 2.21's two workers (each a process with
its ``TF_CONFIG``): ``all_reduce``/``all_gather`` in ``strategy.run``, ``strategy.reduce`` (with and without
``axis``), ``gather`` of slices of unequal sizes (eagerly and in a tf.function), ``experimental_local_results`` and
``experimental_distribute_values_from_function`` (tests/distributed/tf_strategy_api_script.py runs in each)."""

import os

import pytest

pytest.importorskip("tensorflow")

from compat_tests.tensorflow.test_distribute_metrics import _assert_same, _read  # noqa: E402,I001
from compat_tests.tensorflow.test_distribute_sharding import real_tf_workers  # noqa: E402
from tests.distributed.launch import ROOT, run_ok  # noqa: E402


def test_cross_replica_api_over_two_workers_as_tf(tmp_path):
    ours, theirs = tmp_path / "vfw", tmp_path / "tf"
    ours.mkdir()
    theirs.mkdir()
    run_ok(2, "tf_strategy_api_script.py", "vfw.tensorflow", ours)
    real_tf_workers(os.path.join(ROOT, "tests", "distributed", "tf_strategy_api_script.py"), theirs)
    for task, (got, expected) in enumerate(zip(_read(ours, 2), _read(theirs, 2))):
        _assert_same(got, expected, f"worker {task}")
