"""Run the same Keras model-building code on real Keras 3.15.1 and on vfw's keras, and compare.

A case is a function ``fn(lib)`` written once against ``lib.keras`` / ``lib.tf`` (``lib`` is ``REAL``
or ``VFW``).  ``same(fn)`` runs it on both (each after ``clear_session``, so auto-generated names
line up) and compares what it returns: tensors and arrays (dtype, shape, values), Python values,
containers, or the type and message of the exception both raise.
"""

import os
import types

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_keras = pytest.importorskip("keras")
import tensorflow as real_tf  # noqa: E402
import vfw.tensorflow as vfw_tf  # noqa: E402
from vfw.tensorflow import keras as vfw_keras  # noqa: E402

REAL = types.SimpleNamespace(keras=real_keras, tf=real_tf, name="real")
VFW = types.SimpleNamespace(keras=vfw_keras, tf=vfw_tf, name="vfw")

RTOL = 1e-5
ATOL = 1e-6


def data(*shape, seed=0, dtype="float32"):
    """Standard normal test data."""
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def run(fn, lib):
    """``fn(lib)`` after a fresh session; an exception is returned as ``("raised", type name, message)``."""
    lib.keras.backend.clear_session(free_memory=False)  # no gc.collect: it costs real TF's heap a second
    try:
        return fn(lib)
    except Exception as e:  # compared with the other library's
        return ("raised", type(e).__name__, str(e))


def comparable(x):
    """A nested plain form of a result of either library."""
    if hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        value = np.asarray(x.numpy())
        return ("array", str(value.dtype), value.shape, value)
    if isinstance(x, np.ndarray):
        return ("array", str(x.dtype), x.shape, x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [comparable(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {k: comparable(v) for k, v in x.items()})
    if isinstance(x, np.generic):
        return x.item()
    if hasattr(x, "as_list") and hasattr(x, "rank"):  # TensorShape
        return ("shape", None if x.rank is None else tuple(x.as_list()))
    return x


def assert_same(real, ours, rtol=RTOL, atol=ATOL, path="result"):
    """Assert two ``comparable`` forms agree (values within tolerances)."""
    if isinstance(real, tuple) and real and real[0] == "array":
        assert isinstance(ours, tuple) and ours[0] == "array", f"{path}: {real} vs {ours}"
        assert real[1] == ours[1], f"{path}: dtype {real[1]} vs {ours[1]}"
        assert real[2] == ours[2], f"{path}: shape {real[2]} vs {ours[2]}"
        if real[3].dtype.kind in "fc":
            np.testing.assert_allclose(ours[3], real[3], rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(ours[3], real[3], err_msg=path)
        return
    if isinstance(real, tuple) and len(real) == 2 and real[0] in ("list", "tuple"):
        assert isinstance(ours, tuple) and ours[0] == real[0], f"{path}: {real[0]} vs {ours}"
        assert len(real[1]) == len(ours[1]), f"{path}: {len(real[1])} items vs {len(ours[1])}"
        for i, (a, b) in enumerate(zip(real[1], ours[1])):
            assert_same(a, b, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(real, tuple) and len(real) == 2 and real[0] == "dict":
        assert isinstance(ours, tuple) and ours[0] == "dict", f"{path}: dict vs {ours}"
        assert list(real[1]) == list(ours[1]), f"{path}: keys {list(real[1])} vs {list(ours[1])}"
        for key in real[1]:
            assert_same(real[1][key], ours[1][key], rtol, atol, f"{path}[{key!r}]")
        return
    assert real == ours, f"{path}: {real!r} vs {ours!r}"


def same(fn, rtol=RTOL, atol=ATOL):
    """Run ``fn`` on both libraries and assert the same results; returns vfw's raw result."""
    real = run(fn, REAL)
    ours = run(fn, VFW)
    assert_same(comparable(real), comparable(ours), rtol, atol)
    return ours


def copy_weights(source, target):
    """Give ``target`` (a vfw layer/model) the weights of ``source`` (the real one)."""
    target.set_weights([np.asarray(w) for w in source.get_weights()])


def summary_text(model, **kwargs):
    """The text ``model.summary(**kwargs)`` prints."""
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return "".join(lines)
