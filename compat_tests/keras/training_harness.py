"""Train the same Keras program on real Keras 3.15.1 (TF 2.21) and on vfw's keras, and compare.

A case is written once against ``lib.keras`` / ``lib.tf`` (``lib`` is ``REAL`` or ``VFW``).
``twin(build, train)`` builds the model on both (after ``keras.utils.set_random_seed`` and
``clear_session``, so names and random streams line up), copies real Keras' initial weights into
vfw's model, runs ``train(lib, model)`` on each and returns both results.  ``assert_close`` compares
nested results (History dicts, arrays, floats, lists).
"""

import os
import re
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

# float32 training: a few ulps per step, accumulated over a few epochs.
RTOL = 1e-5
ATOL = 1e-6


def data(n, *shape, seed=0, classes=None):
    """``(x, y)``: float32 uniform inputs of shape ``(n, *shape)``, and integer labels below ``classes`` (or
    float32 targets of shape ``(n,)``)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, *shape), dtype=np.float32)
    y = rng.integers(0, classes, n) if classes else rng.random(n, dtype=np.float32)
    return x, y


def fresh(lib, seed=1):
    lib.keras.backend.clear_session(free_memory=False)
    lib.keras.utils.set_random_seed(seed)


def twin(build, train, seed=1):
    """``(real result, vfw result)`` of ``train(lib, model)`` on ``build(lib)`` models with real Keras' initial
    weights."""
    fresh(REAL, seed)
    real_model = build(REAL)
    weights = real_model.get_weights()
    real = train(REAL, real_model)
    fresh(VFW, seed)
    vfw_model = build(VFW)
    vfw_model.set_weights(weights)
    mine = train(VFW, vfw_model)
    return real, mine


def history(h):
    """A History's ``history`` dict (its values as float lists)."""
    return {key: [float(v) for v in values] for key, values in h.history.items()}


def assert_close(real, mine, rtol=RTOL, atol=ATOL, path="result"):
    """Nested results equal: same keys/lengths/types of containers, close numbers and arrays."""
    if isinstance(real, dict):
        assert isinstance(mine, dict), f"{path}: {type(mine)} is not a dict"
        assert list(real) == list(mine), f"{path}: keys {list(mine)} != {list(real)}"
        for key in real:
            assert_close(real[key], mine[key], rtol, atol, f"{path}[{key!r}]")
    elif isinstance(real, (list, tuple)):
        assert isinstance(mine, (list, tuple)) and len(real) == len(mine), f"{path}: {mine!r} vs {real!r}"
        for i, (a, b) in enumerate(zip(real, mine)):
            assert_close(a, b, rtol, atol, f"{path}[{i}]")
    elif isinstance(real, str) or real is None:
        assert real == mine, f"{path}: {mine!r} != {real!r}"
    else:
        a, b = np.asarray(real), np.asarray(mine)
        assert a.shape == b.shape, f"{path}: shape {b.shape} != {a.shape}"
        assert a.dtype == b.dtype or type(real) is float, f"{path}: dtype {b.dtype} != {a.dtype}"
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, err_msg=path)


_TIMING = [
    (re.compile(r"\d+(?:\.\d+)?(?:ms|us|s)/(?:step|sample)"), "T/step"),  # time per step
    (re.compile(r"\x1b\[1m(?:\d+:)*\d+s\x1b\[0m"), "\x1b[1mTs\x1b[0m"),  # ETA / elapsed (verbose 1)
    (re.compile(r" - \d+s - "), " - Ts - "),  # elapsed (verbose 2)
]


def visible(text):
    """What a terminal shows of ``text`` (each line's last ``\\r``-redrawn content, backspaces and trailing
    blanks dropped), with the timings masked."""
    lines = []
    for line in text.split("\n"):
        line = line.replace("\b", "").split("\r")[-1].rstrip(" ")
        for pattern, mask in _TIMING:
            line = pattern.sub(mask, line)
        lines.append(line)
    return "\n".join(lines)


def masked(text):
    """``text`` with the timings masked and the redraw padding (backspaces, trailing blanks) normalized."""
    text = re.sub(r"\x08+", "\x08", text)
    text = re.sub(r" +(\n|\x08)", r"\1", text)
    for pattern, mask in _TIMING:
        text = pattern.sub(mask, text)
    return text
