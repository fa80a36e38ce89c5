"""keras.optimizers with tf.IndexedSlices gradients (an Embedding's) against real Keras 3.15.1 on TF.

Every optimizer case of test_optimizers.py applies, for several steps, an IndexedSlices gradient
(with repeated ids, different ids each step) to a (6, 3) variable and a dense one to a (4,)
variable, eagerly and inside ``tf.function`` (one trace replayed with each step's ids); the
variables and every optimizer variable must equal real Keras' eager result, and where real Keras
refuses a case (an error), vfw must raise the same kind of error.
"""

import warnings

import numpy as np
import pytest

from compat_tests.keras.optimizer_harness import REAL, RTOL, VFW, assert_same_state, clear_session, make_variables
from compat_tests.keras.test_optimizers import CANCELLING, CASES

ROWS, WIDTH, LOOKUPS, STEPS = 6, 3, 5, 5


def _sparse_grads(seed=0):
    """Per step: (values (LOOKUPS, WIDTH), ids with repeats, the dense (4,) gradient)."""
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(STEPS):
        ids = rng.integers(0, ROWS - 1, LOOKUPS).astype(np.int32)  # the last row is never looked up
        ids[1] = ids[0]
        steps.append((rng.normal(size=(LOOKUPS, WIDTH)).astype(np.float32), ids,
                      rng.normal(size=(4,)).astype(np.float32)))
    return steps


def _train(lib, make, graph):
    rng = np.random.default_rng(1)
    variables = make_variables(lib, [rng.normal(size=(ROWS, WIDTH)).astype(np.float32),
                                     rng.normal(size=(4,)).astype(np.float32)])
    optimizer = make(lib)
    tf = lib.tf

    def step(values, ids, dense):
        optimizer.apply([tf.IndexedSlices(values, ids, tf.constant([ROWS, WIDTH])), dense], variables)

    if graph:
        optimizer.build(variables)
        step = tf.function(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values, ids, dense in _sparse_grads():
            step(tf.constant(values), tf.constant(ids), tf.constant(dense))
    if graph:
        assert step.experimental_get_tracing_count() == 1
    state = [(v.path, str(v.dtype), np.asarray(v.numpy())) for v in optimizer.variables]
    return [np.asarray(v.numpy()) for v in variables], state, optimizer


def _outcome(lib, make, graph=False):
    clear_session(lib)
    try:
        return _train(lib, make, graph)
    except Exception as error:  # noqa: BLE001  (the kind of error is compared)
        return error


@pytest.mark.parametrize("mode", ["eager", "tf_function"])
@pytest.mark.parametrize("case", list(CASES))
def test_sparse_updates_match_keras(case, mode):
    expected = _outcome(REAL, CASES[case])
    actual = _outcome(VFW, CASES[case], graph=mode == "tf_function")
    if isinstance(expected, Exception):
        assert isinstance(actual, Exception), f"real Keras raised {expected!r}, vfw did not"
        assert type(actual).__mro__[0].__name__ == type(expected).__name__ or isinstance(actual, type(expected)), (
            actual, expected)
        return
    if isinstance(actual, Exception):
        raise actual
    assert_same_state(expected, actual, rtol=CANCELLING.get(case, RTOL))


def test_rows_not_looked_up_stay_put_with_rmsprop():
    """RMSprop's step is row-wise: the never-looked-up row keeps its value and its velocity stays 0."""
    values, _, _ = _train(VFW, CASES["rmsprop"], graph=False)
    expected, _, _ = _train(REAL, CASES["rmsprop"], graph=False)
    np.testing.assert_array_equal(values[0][-1], expected[0][-1])
    initial = np.random.default_rng(1).normal(size=(ROWS, WIDTH)).astype(np.float32)
    np.testing.assert_array_equal(values[0][-1], initial[-1])
