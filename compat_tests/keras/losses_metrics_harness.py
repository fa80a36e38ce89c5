"""Run the same loss/metric code on real Keras 3.15.1 and on vfw's keras, and compare the results.

A case is a function ``fn(lib)`` written once against ``lib.keras`` / ``lib.tf`` (``lib`` is
``REAL`` or ``VFW``); numpy inputs are converted by the case (``lib.tf.constant``) or passed as
numpy. ``same(fn)`` runs both and compares tensors (dtype, shape, values), Python values and
containers, or the kind of exception both raise.
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
LIBS = (REAL, VFW)

# float32 round-off: TF's reductions and transcendental kernels are not numpy's (a few ulp).
RTOL = 2e-6
ATOL = 1e-6


def rng(seed=0):
    return np.random.default_rng(seed)


def probabilities(shape, seed=0, dtype="float32"):
    """Rows of probabilities (softmax of normal logits) over the last axis."""
    logits = rng(seed).normal(size=shape)
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(dtype)


def one_hot(labels, num_classes, dtype="float32"):
    return np.eye(num_classes, dtype=dtype)[labels]


def _is_tensor_like(x):
    return hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape")


def comparable(x):
    """A nested form of a result of either library that ``assert_same`` compares."""
    if _is_tensor_like(x):
        dtype = getattr(x.dtype, "name", x.dtype)
        return ("tensor", str(dtype), tuple(np.shape(x.numpy())), np.asarray(x.numpy()))
    if isinstance(x, np.ndarray):
        return ("tensor", str(x.dtype), x.shape, x)
    if isinstance(x, (list, tuple)):
        return ("seq", [comparable(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {k: comparable(v) for k, v in x.items()})
    if isinstance(x, np.generic):
        return ("value", x.item())
    return ("value", x)


def assert_same(want, got, rtol=RTOL, atol=ATOL, path="result"):
    """Compare two ``comparable`` forms (real Keras's first)."""
    assert want[0] == got[0], f"{path}: {got[0]} (vfw) != {want[0]} (keras)"
    if want[0] == "tensor":
        _, wdtype, wshape, wvalue = want
        _, gdtype, gshape, gvalue = got
        assert gdtype == wdtype, f"{path}: dtype {gdtype} (vfw) != {wdtype} (keras)"
        assert gshape == wshape, f"{path}: shape {gshape} (vfw) != {wshape} (keras)"
        if wvalue.dtype.kind == "f":
            np.testing.assert_allclose(gvalue, wvalue, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(gvalue, wvalue, err_msg=path)
    elif want[0] == "seq":
        assert len(got[1]) == len(want[1]), f"{path}: length {len(got[1])} (vfw) != {len(want[1])} (keras)"
        for i, (w, g) in enumerate(zip(want[1], got[1])):
            assert_same(w, g, rtol, atol, f"{path}[{i}]")
    elif want[0] == "dict":
        assert set(got[1]) == set(want[1]), f"{path}: keys {sorted(got[1])} (vfw) != {sorted(want[1])} (keras)"
        for k in want[1]:
            assert_same(want[1][k], got[1][k], rtol, atol, f"{path}[{k!r}]")
    else:
        w, g = want[1], got[1]
        if isinstance(w, float) and isinstance(g, float):
            assert g == pytest.approx(w, rel=rtol, abs=atol), f"{path}: {g} (vfw) != {w} (keras)"
        else:
            assert g == w, f"{path}: {g!r} (vfw) != {w!r} (keras)"


def _error_kind(e):
    """The comparable kind of an exception: tf.errors classes by name, else the built-in base type."""
    for cls in type(e).__mro__:
        if cls.__module__.startswith(("tensorflow", "vfw")) and cls.__name__.endswith("Error"):
            return cls.__name__
    for kind in (ValueError, TypeError, IndexError, KeyError, RuntimeError, NotImplementedError):
        if isinstance(e, kind):
            return kind.__name__
    return type(e).__name__


def run(fn, lib):
    """``("ok", result)`` or ``("error", kind, message)`` of ``fn(lib)``."""
    try:
        return ("ok", fn(lib))
    except Exception as e:  # noqa: BLE001  (the kind is compared)
        return ("error", _error_kind(e), str(e))


def same(fn, rtol=RTOL, atol=ATOL, message=None):
    """Run ``fn`` on real Keras and on vfw; assert the same result (or the same kind of error).

    ``message``: a substring both error messages must contain.
    """
    want, got = run(fn, REAL), run(fn, VFW)
    if want[0] == "error":
        assert got[0] == "error", f"keras raised {want[1]}: {want[2]}; vfw returned {got[1]!r}"
        assert got[1] == want[1], f"keras raised {want[1]} ({want[2]}); vfw raised {got[1]} ({got[2]})"
        if message is not None:
            assert message in want[2], f"the test's message is not keras's: {want[2]}"
            assert message in got[2], f"vfw's message {got[2]!r} lacks {message!r}"
        return None
    assert got[0] == "ok", f"vfw raised {got[1]}: {got[2]}; keras returned {want[1]!r}"
    assert_same(comparable(want[1]), comparable(got[1]), rtol, atol)
    return got[1]
