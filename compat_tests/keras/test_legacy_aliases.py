"""tf.keras' short loss/metric aliases and legacy Reduction against TF 2.21's tf.keras."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("tensorflow")
from vfw.tensorflow import keras  # noqa: E402

ALIASES = ["MSE", "MAE", "MAPE", "MSLE", "KLD", "mse", "mae", "mape", "msle", "kld", "logcosh",
           "kullback_leibler_divergence"]
Y_TRUE = np.random.default_rng(0).uniform(0.1, 1.0, (4, 3)).astype(np.float32)
Y_PRED = np.random.default_rng(1).uniform(0.1, 1.0, (4, 3)).astype(np.float32)


@pytest.mark.parametrize("namespace", ["losses", "metrics"])
@pytest.mark.parametrize("name", ALIASES)
def test_alias_values(namespace, name):
    want = getattr(getattr(real.keras, namespace), name)(Y_TRUE, Y_PRED)
    got = getattr(getattr(keras, namespace), name)(Y_TRUE, Y_PRED)
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-6, atol=1e-7)
    assert getattr(getattr(real.keras, namespace), name).__name__ == getattr(getattr(keras, namespace), name).__name__


def test_reduction():
    want, got = real.keras.losses.Reduction, keras.losses.Reduction
    assert got.all() == want.all()
    assert (got.AUTO, got.NONE, got.SUM, got.SUM_OVER_BATCH_SIZE) == (want.AUTO, want.NONE, want.SUM,
                                                                       want.SUM_OVER_BATCH_SIZE)
    got.validate("sum")
    with pytest.raises(ValueError, match="Invalid Reduction Key: x"):
        got.validate("x")
    loss = keras.losses.MeanSquaredError(reduction=got.SUM)
    np.testing.assert_allclose(np.asarray(loss(Y_TRUE, Y_PRED)),
                               real.keras.losses.MeanSquaredError(reduction=want.SUM)(Y_TRUE, Y_PRED).numpy(),
                               rtol=1e-6)
