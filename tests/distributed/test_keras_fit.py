"""Keras fit (and TF's custom loop in a tf.function) under MultiWorkerMirroredStrategy with 2 and 3 processes
(per-replica batch B) trains like one process with batch N*B: the same MLP and SGD-with-momentum trained by real
torch is the oracle (Keras' SGD momentum update and mean squared error are torch's for a constant learning rate)."""

import pytest

from tests.distributed.launch import run_ok
from tests.distributed.reference import assert_trained_like_reference

BATCH, STEPS = 4, 3


@pytest.mark.parametrize("size, via", [(2, "mpirun"), (3, "launcher")])
def test_fit_under_strategy_matches_single_process_large_batch(tmp_path, size, via):
    out = tmp_path / "weights.npz"
    run_ok(size, "keras_script.py", out, BATCH, STEPS, via=via)
    assert_trained_like_reference(out, size, BATCH, STEPS)


def test_custom_loop_reading_the_dataset_in_tf_function_matches_single_process_large_batch(tmp_path):
    out = tmp_path / "weights.npz"
    run_ok(2, "keras_script.py", out, BATCH, STEPS, "loop", via="launcher")
    assert_trained_like_reference(out, 2, BATCH, STEPS)
