"""``keras.export.ExportArchive`` and ``keras.layers.TFSMLayer`` (vfw's SavedModel format) against real Keras 3.15.1."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")
import vfw.tensorflow as vtf  # noqa: E402

X = np.random.RandomState(0).randn(3, 4).astype("float32")


def _model(k):
    k.utils.set_random_seed(1)
    inputs = k.Input((4,), name="x")
    # named layers: auto-names count the layers each library made earlier in the process
    hidden = k.layers.BatchNormalization(name="norm")(k.layers.Dense(5, activation="relu", name="hidden")(inputs))
    return k.Model(inputs, k.layers.Dense(2, name="head")(hidden))


def _archive(tf, k, model, path):
    archive = k.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.__call__, input_signature=[tf.TensorSpec((None, 4), tf.float32)])
    archive.add_endpoint("call_train", lambda x: model(x, training=True),
                         input_signature=[k.InputSpec(shape=(None, 4), dtype="float32")])
    archive.add_variable_collection("kernels", [model.layers[1].kernel, model.layers[3].kernel])
    counts = [len(archive.variables), len(archive.trainable_variables), len(archive.non_trainable_variables)]
    archive.write_out(path, verbose=False)
    return counts


def _run(tf, k, path):
    model = _model(k)
    counts = _archive(tf, k, model, path)
    loaded = tf.saved_model.load(path)
    results = {"counts": counts, "signatures": sorted(loaded.signatures.keys()),
               "serve": loaded.serve(X).numpy(), "model": model(X).numpy(),
               "default": {key: v.numpy() for key, v in loaded.signatures["serving_default"](tf.constant(X)).items()},
               "collection": [v.numpy() for v in loaded.kernels], "n_variables": len(loaded.variables)}
    layer = k.layers.TFSMLayer(path, call_endpoint="serve", call_training_endpoint="call_train")
    results["layer"] = layer(X).numpy()
    results["layer_train"] = layer(X, training=True).numpy()
    results["weights"] = [(w.name, w.trainable, w.shape) for w in layer.weights]
    results["config"] = {key: v for key, v in layer.get_config().items() if key not in ("filepath", "dtype")}
    # fine-tune a model around the layer: the endpoint's variables train
    inputs = k.Input((4,))
    wrapper = k.Model(inputs, k.layers.TFSMLayer(path)(inputs))
    wrapper.compile(k.optimizers.SGD(0.1), "mse")
    results["history"] = wrapper.fit(X, np.ones((3, 2), "float32"), epochs=2, verbose=0).history["loss"]
    results["after_fit"] = wrapper(X).numpy()
    return results


def test_export_archive_and_tfsm_layer(tmp_path):
    want = _run(real_tf, keras, str(tmp_path / "tf"))
    got = _run(vtf, vtf.keras, str(tmp_path / "vfw"))
    assert got["counts"] == want["counts"] == [8, 6, 2]
    assert got["signatures"] == want["signatures"]
    assert got["n_variables"] == want["n_variables"]
    assert [tuple(w[2]) for w in got["weights"]] == [tuple(w[2]) for w in want["weights"]]
    assert [w[:2] for w in got["weights"]] == [w[:2] for w in want["weights"]]
    assert got["config"] == want["config"]
    np.testing.assert_allclose(got["serve"], got["model"], rtol=1e-6)
    for key in ("serve", "layer", "layer_train", "history", "after_fit"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert sorted(got["default"]) == sorted(want["default"])
    for key in want["default"]:
        np.testing.assert_allclose(got["default"][key], want["default"][key], rtol=1e-5, atol=1e-6)
    for g, w in zip(got["collection"], want["collection"]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the error's type and text are compared)
        return type(e), str(e).split("Received object")[0]
    return None


def test_export_archive_errors(tmp_path):
    def cases(tf, k, path):
        model = _model(k)
        archive = k.export.ExportArchive()
        archive.track(model)
        archive.add_endpoint("serve", model.__call__, [tf.TensorSpec((None, 4), tf.float32)])
        archive.write_out(path, verbose=False)
        unbuilt = k.layers.Dense(2)
        never_called = tf.function(lambda x: x)
        return [
            _error(lambda: archive.add_endpoint("serve", model.__call__, [tf.TensorSpec((None, 4), tf.float32)])),
            _error(lambda: archive.add_endpoint("other", model.__call__)),
            _error(lambda: archive.add_endpoint("other", never_called)),
            _error(lambda: archive.add_variable_collection("v", model.layers[1].kernel)),
            _error(lambda: archive.add_variable_collection("v", [1.0])),
            _error(lambda: k.export.ExportArchive().track(unbuilt)),
            _error(lambda: k.export.ExportArchive().track("not a layer")),
            _error(lambda: k.export.ExportArchive().write_out(path + "_empty")),
            _error(lambda: k.export.ExportArchive(format="onnx_nope")),
            _error(lambda: k.layers.TFSMLayer(path, call_endpoint="nope")),
            _error(lambda: k.layers.TFSMLayer.from_config({"filepath": path})),
        ]

    want = cases(real_tf, keras, str(tmp_path / "tf"))
    got = cases(vtf, vtf.keras, str(tmp_path / "vfw"))
    for w, g in zip(want, got):
        assert w is not None and g is not None and g[0] is w[0], (w, g)
    for i in (0, 1, 5, 7, 8, 10):
        assert got[i][1] == want[i][1]


def test_export_archive_traced_function_endpoint(tmp_path):
    def run(tf, k, path):
        model = _model(k)
        archive = k.export.ExportArchive()
        archive.track(model)
        fn = tf.function(lambda x: model(x, training=False) * 2.0)
        fn(tf.constant(X))
        archive.add_endpoint("doubled", fn)
        archive.write_out(path, verbose=False)
        loaded = tf.saved_model.load(path)
        return sorted(loaded.signatures.keys()), loaded.doubled(tf.constant(X)).numpy(), fn(tf.constant(X)).numpy()

    want = run(real_tf, keras, str(tmp_path / "tf"))
    got = run(vtf, vtf.keras, str(tmp_path / "vfw"))
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], got[2], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
