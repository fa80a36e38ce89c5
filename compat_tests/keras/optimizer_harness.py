"""Run the same optimizer code on real Keras 3.15.1 and on vfw's keras, and compare the state it leaves.

A case is ``make(lib)`` building an optimizer from ``lib.keras`` (``lib`` is ``REAL`` or ``VFW``:
``lib.keras``, ``lib.tf``), written once for both.  ``train`` creates Keras variables of shapes
(3, 4) and (4,) from seeded values, applies the same seeded gradients for several steps
(vfw also inside ``tf.function``), and returns the variables' values and the optimizer's
variables (path, dtype, value).
"""

import os
import types
import warnings

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_keras = pytest.importorskip("keras")
import tensorflow as real_tf  # noqa: E402
import vfw.tensorflow as vfw_tf  # noqa: E402
from vfw.tensorflow import keras as vfw_keras  # noqa: E402

REAL = types.SimpleNamespace(keras=real_keras, tf=real_tf, name="real")
VFW = types.SimpleNamespace(keras=vfw_keras, tf=vfw_tf, name="vfw")

SHAPES = ((3, 4), (4,))
STEPS = 8
# Float32 round-off: most cases agree bit for bit; TF's vectorized CPU kernels for pow, exp, cos and
# its reduction order are not numpy's (1-2 ulp per op), which this covers after several steps.
RTOL = 1e-6
ATOL = 1e-7


def initial_and_grads(seed=0, steps=STEPS, dtype="float32"):
    """Seeded initial values and per-step gradients for variables of ``SHAPES``."""
    rng = np.random.default_rng(seed)
    initial = [rng.normal(size=s).astype(dtype) for s in SHAPES]
    grads = [[rng.normal(size=s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return initial, grads


def clear_session(lib):
    """Restart ``lib``'s Keras name counters (both libraries then give objects the same names)."""
    lib.keras.backend.clear_session(free_memory=False)


def make_variables(lib, initial, names=("kernel", "bias")):
    return [lib.keras.Variable(value, name=name) for value, name in zip(initial, names)]


def train(lib, make, graph=False, seed=0, steps=STEPS, variables=None, grads=None, dtype="float32", build=False):
    """Apply seeded gradients with ``make(lib)``; returns (variable values, [(path, dtype, value)], optimizer).

    ``variables(lib, initial)`` may build the variables (default: Keras variables ``kernel``,
    ``bias``); ``grads`` may replace the seeded gradients (None entries allowed).  With ``graph``
    the update runs inside ``lib.tf.function``, where the first call builds the
    optimizer unless ``build`` builds it before (as Keras' ``fit`` does).
    """
    initial, seeded = initial_and_grads(seed, steps, dtype)
    variables = (variables or make_variables)(lib, initial)
    optimizer = make(lib)
    if build:
        optimizer.build(variables)

    def step(gradients):
        optimizer.apply(gradients, variables)

    if graph:
        step = lib.tf.function(step)
    created_before = len(optimizer.variables)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for gradients in grads or seeded:
            step([None if g is None else lib.tf.constant(g) for g in gradients])
    if graph:  # TF traces a function that creates variables twice
        assert step.experimental_get_tracing_count() == (2 if len(optimizer.variables) > created_before else 1)
    state = [(v.path, str(v.dtype), np.asarray(v.numpy())) for v in optimizer.variables]
    return [np.asarray(v.numpy()) for v in variables], state, optimizer


def assert_same_state(expected, actual, rtol=RTOL, atol=ATOL):
    """Same variable values, and optimizer variables with the same paths, dtypes and values."""
    (expected_values, expected_state, _), (values, state, _) = expected, actual
    assert len(values) == len(expected_values)
    for got, want in zip(values, expected_values):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    assert [(p, d) for p, d, _ in state] == [(p, d) for p, d, _ in expected_state]
    for (path, _, got), (_, _, want) in zip(state, expected_state):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)
