"""keras.callbacks.TensorBoard of vfw vs Keras 3.15.1: the same training logs the same tags at the same steps
in ``log_dir/train`` and ``log_dir/validation``, with the same values (read back with real TF's reader)."""

import glob
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")
pytest.importorskip("tensorboard")
keras = pytest.importorskip("keras")

import vfw.tensorflow as vtf  # noqa: E402


def _read(logdir):
    """{run: [(step, tag, plugin, value)]} of every event file under ``logdir``."""
    out = {}
    for path in sorted(glob.glob(os.path.join(logdir, "*", "events.out.tfevents.*"))):
        records = []
        for event in list(rtf.compat.v1.train.summary_iterator(path))[1:]:
            for value in event.summary.value:
                array = rtf.make_ndarray(value.tensor)
                records.append((event.step, value.tag, value.metadata.plugin_data.plugin_name, array))
        out.setdefault(os.path.basename(os.path.dirname(path)), []).extend(records)
    return out


def _train(k, logdir, weights, **callback_args):
    model = k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="relu", name="hidden"),
                          k.layers.Dense(1, name="out")], name="model")  # tags name it: not a counter's
    model.set_weights(weights)
    model.compile(optimizer=k.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 3)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False, validation_data=(x[:8], y[:8]),
              callbacks=[k.callbacks.TensorBoard(logdir, **callback_args)])
    return _read(logdir)


@pytest.mark.parametrize("callback_args", [{}, {"histogram_freq": 1, "update_freq": "batch"}])
def test_tensorboard_callback_matches_keras(tmp_path, callback_args):
    rng = np.random.default_rng(1)
    weights = [rng.normal(size=s).astype(np.float32) for s in [(3, 4), (4,), (4, 1), (1,)]]
    expected = _train(keras, str(tmp_path / "real"), weights, **callback_args)
    got = _train(vtf.keras, str(tmp_path / "vfw"), weights, **callback_args)
    assert sorted(expected) == sorted(got) == ["train", "validation"]
    for run in expected:
        assert [(s, t, p) for s, t, p, _ in expected[run]] == [(s, t, p) for s, t, p, _ in got[run]], run
        for (_, tag, _, e), (_, _, _, g) in zip(expected[run], got[run]):
            assert e.shape == g.shape and e.dtype == g.dtype, tag
            if tag != "keras":  # the model JSON: compared by tag and step only
                np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=tag)
