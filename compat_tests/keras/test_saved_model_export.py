"""Keras ``model.export`` (TF backend SavedModel, vfw's own format) against real Keras 3.15.1 + TF 2.21."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")
import vfw.tensorflow as vtf  # noqa: E402


def _models(build):
    """The same model in real Keras and in vfw, vfw's weights copied from Keras'."""
    want = build(keras)
    got = build(vtf.keras)
    got.set_weights(want.get_weights())
    return want, got


def _dense(k):
    return k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="relu"), k.layers.Dense(2)])


def _conv(k):
    inputs = k.Input((6, 6, 2), name="image")
    x = k.layers.Conv2D(3, 3, activation="relu")(inputs)
    x = k.layers.BatchNormalization()(x)
    x = k.layers.Dropout(0.5)(x)
    x = k.layers.Flatten()(x)
    return k.Model(inputs, k.layers.Dense(2, activation="softmax")(x))


@pytest.mark.parametrize("build, shape", [(_dense, (3,)), (_conv, (6, 6, 2))])
def test_export_serve_and_signatures(tmp_path, build, shape):
    want_model, got_model = _models(build)
    want_model.export(str(tmp_path / "tf"), verbose=False)
    got_model.export(str(tmp_path / "vfw"), verbose=False)
    want = real_tf.saved_model.load(str(tmp_path / "tf"))
    got = vtf.saved_model.load(str(tmp_path / "vfw"))
    assert sorted(got.signatures.keys()) == sorted(want.signatures.keys())
    rng = np.random.default_rng(0)
    for batch in (1, 4):
        x = rng.standard_normal((batch,) + shape).astype(np.float32)
        np.testing.assert_allclose(got.serve(x).numpy(), want.serve(x).numpy(), rtol=1e-5, atol=1e-6)
        # the input is named after its KerasTensor, whose auto-name depends on how many each library made before
        (name, spec), = want.signatures["serving_default"].structured_input_signature[1].items()
        (got_name, got_spec), = got.signatures["serving_default"].structured_input_signature[1].items()
        assert got_spec.shape.as_list() == spec.shape.as_list() and got_spec.dtype.name == spec.dtype.name
        want_out = want.signatures["serving_default"](**{name: real_tf.constant(x)})
        got_out = got.signatures["serving_default"](**{got_name: vtf.constant(x)})
        assert sorted(got_out) == sorted(want_out)
        for key in want_out:
            np.testing.assert_allclose(got_out[key].numpy(), want_out[key].numpy(), rtol=1e-5, atol=1e-6)
    assert [v.shape.as_list() for v in got.variables] == [v.shape.as_list() for v in want.variables]
    assert len(got.trainable_variables) == len(want.trainable_variables)
    assert len(got.non_trainable_variables) == len(want.non_trainable_variables)


def test_export_rejects_other_formats(tmp_path):
    with pytest.raises(ValueError):
        _dense(vtf.keras).export(str(tmp_path / "m"), format="onnx_unknown")
