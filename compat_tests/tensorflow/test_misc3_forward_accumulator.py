"""tf.autodiff.ForwardAccumulator against TF 2.21."""

import numpy as np
import pytest

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402


def _assert_same(got, want):
    if want is None:
        assert got is None
        return
    if isinstance(want, (list, tuple, dict)):
        assert type(got) is type(want)
        for g, w in zip(got.values() if isinstance(got, dict) else got,
                        want.values() if isinstance(want, dict) else want):
            _assert_same(g, w)
        return
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def _program(tf, x0, w0, v_x, v_w):
    x = tf.constant(x0)
    w = tf.Variable(w0)
    with tf.autodiff.ForwardAccumulator(primals=(x, w), tangents=(tf.constant(v_x), tf.constant(v_w))) as acc:
        hidden = tf.tanh(tf.matmul(x, w))
        loss = tf.reduce_mean(hidden ** 2) + tf.reduce_sum(tf.sin(x))
        unrelated = tf.constant(3.0) * 2.0
        inside = acc.jvp(hidden)
    return (acc.jvp(loss), inside, acc.jvp({"h": hidden, "x": x, "u": unrelated}), acc.jvp(unrelated),
            acc.jvp(unrelated, unconnected_gradients=tf.UnconnectedGradients.ZERO))


def test_jvp_matches_tf():
    rng = np.random.default_rng(0)
    args = [rng.normal(size=s).astype(np.float32) for s in [(3, 4), (4, 2), (3, 4), (4, 2)]]
    _assert_same(_program(vtf, *args), _program(real_tf, *args))


def test_jvp_single_primal_and_errors():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    v = np.array([1.0, 0.0, -2.0], np.float32)
    results = []
    for tf in (real_tf, vtf):
        xt = tf.constant(x)
        with tf.autodiff.ForwardAccumulator(xt, tf.constant(v)) as acc:
            y = tf.exp(xt) * xt[0]
        results.append(acc.jvp(y))
        with pytest.raises(ValueError):
            tf.autodiff.ForwardAccumulator([xt], tf.constant(v))
    _assert_same(results[1], results[0])
