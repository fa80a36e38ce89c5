"""keras.ops.rearrange and keras.ops.jvp against Keras 3.15.1 (TensorFlow backend)."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

_IMAGES = np.random.default_rng(0).normal(size=(4, 6, 8, 3)).astype(np.float32)


@pytest.mark.parametrize("pattern, lengths", [
    ("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
    ("b h w c -> b (c h w)", {}), ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 4}), ("b h w c -> c w h b", {}),
    ("b h (w1 w2) c -> w2 b h w1 c", {"w2": 2})])
def test_rearrange_matches_keras(pattern, lengths):
    want = keras.ops.rearrange(_IMAGES, pattern, **lengths)
    got = vtf.keras.ops.rearrange(_IMAGES, pattern, **lengths)
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("pattern", ["b h w -> b h w c", "b h w c d -> b h w c d", "b h w c -> h"])
def test_rearrange_errors_match_keras(pattern):
    with pytest.raises(Exception) as want:
        keras.ops.rearrange(_IMAGES, pattern)
    with pytest.raises(Exception) as got:
        vtf.keras.ops.rearrange(_IMAGES, pattern)
    assert type(got.value).__name__ == type(want.value).__name__


def test_rearrange_symbolic():
    inputs = vtf.keras.Input((6, 8, 3))
    output = vtf.keras.ops.rearrange(inputs, "b h w c -> b (h w) c")
    assert tuple(output.shape) == (None, 48, 3)


def _same(got, want):
    if want is None or isinstance(want, str):
        assert got == want
    elif isinstance(want, (tuple, list, dict)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got.values() if isinstance(got, dict) else got,
                        want.values() if isinstance(want, dict) else want):
            _same(g, w)
    else:
        assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def _jvps(lib, ops):
    x = lib.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    y = lib.constant(np.full((2, 3), 2.0, np.float32))
    v = lib.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    return [ops.jvp(lambda a: ops.sin(a) * 2, (x,), (v,)),
            ops.jvp(lambda a, b: (a * b, {"s": ops.sum(a)}), (x, y), (v, v)),
            ops.jvp(lambda a: (ops.tanh(a) * 3, "aux"), [x], [v], has_aux=True),
            ops.jvp(lambda a: lib.constant(1.0), (x,), (v,)),
            ops.linalg.jvp(lambda a: ops.matmul(a, ops.transpose(a)), (x,), (v,))]


def test_jvp_matches_keras():
    for got, want in zip(_jvps(vtf, vtf.keras.ops), _jvps(real_tf, keras.ops)):
        _same(got, want)
