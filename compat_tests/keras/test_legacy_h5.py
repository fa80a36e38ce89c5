"""Keras' legacy HDF5 model files (``model.save("m.h5")``, ``load_model("m.h5")``, ``load_weights("w.h5")``)
against real Keras 3.15.1: files written by one library load in the other with the same predictions, compile
state and optimizer variables; the files' layouts, the logged warnings and the errors are the same."""

import json
import logging

import numpy as np
import pytest

from compat_tests.keras.saving_harness import (
    REAL,
    VFW,
    X2,
    X3,
    assert_same_weights,
    data,
    functional,
    h5_layout,
    outputs,
    reset,
    same_outcome,
    subclassed,
)

X_IMAGE = data(4, 6, 6, 2, seed=3)
X_SEQUENCE = data(4, 5, 3, seed=4)
_CUSTOM = {}


def _plain_layer_class(lib):
    """An unregistered custom layer with a weight and a config argument (loaded through ``custom_objects``)."""
    if lib.name not in _CUSTOM:
        keras = lib.keras

        class Shift(keras.layers.Layer):
            def __init__(self, amount=1.0, **kwargs):
                super().__init__(**kwargs)
                self.amount = amount

            def build(self, input_shape):
                self.offset = self.add_weight(shape=(input_shape[-1],), initializer="random_normal", name="offset")

            def call(self, x):
                return x + self.offset * self.amount

            def get_config(self):
                return {**super().get_config(), "amount": self.amount}

        _CUSTOM[lib.name] = Shift
    return _CUSTOM[lib.name]


def mlp(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dropout(0.3),
                             keras.layers.Dense(2, activation="softmax")])


def cnn(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((6, 6, 2)), keras.layers.Conv2D(3, 3, padding="same"),
                             keras.layers.BatchNormalization(), keras.layers.Activation("relu"),
                             keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(2)])


def lstm(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((5, 3)), keras.layers.LSTM(4), keras.layers.Dense(1)])


def custom(lib):
    keras = lib.keras
    inputs = keras.Input((3,))
    hidden = _plain_layer_class(lib)(2.0)(keras.layers.Dense(4)(inputs))
    return keras.Model(inputs, keras.layers.Dense(1)(hidden))


INPUTS = {mlp: X3, cnn: X_IMAGE, lstm: X_SEQUENCE, functional: {"a": X3, "b": X2}, custom: X3}
BUILDS = list(INPUTS)


def _custom_objects(lib, build):
    return {"Shift": _plain_layer_class(lib)} if build is custom else None


def _targets(build, inputs):
    """Regression targets shaped like the model's outputs."""
    if build is functional:
        return [data(len(X3), 1, seed=5), data(len(X3), 2, seed=6)]
    width = {mlp: 2, cnn: 2, lstm: 1, custom: 1}[build]
    return data(len(inputs), width, seed=7)


def _compile(lib, model, build):
    keras = lib.keras
    if build is functional:
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss=["mean_squared_error", keras.losses.Huber()],
                      metrics=[["mae"], [keras.metrics.RootMeanSquaredError()]])
    else:
        model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9), loss=keras.losses.MeanSquaredError(),
                      metrics=["mae", keras.metrics.MeanSquaredError(name="mse_metric")])


def _trained(lib, build):
    """``build(lib)`` compiled and fitted for two steps (without shuffling)."""
    model = build(lib)
    _compile(lib, model, build)
    inputs = INPUTS[build]
    model.fit(inputs, _targets(build, inputs), batch_size=3, epochs=1, shuffle=False, verbose=0)
    return model


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def _optimizer_values(model):
    return [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in model.optimizer.variables]


# -- files of real Keras load in vfw ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("compiled", [False, True], ids=["uncompiled", "compiled"])
def test_real_keras_file_loads_in_vfw(tmp_path, build, compiled):
    path = str(tmp_path / "real.h5")
    reset(REAL)
    saved = _trained(REAL, build) if compiled else build(REAL)
    saved.save(path)
    reset(VFW)
    loaded = VFW.keras.models.load_model(path, custom_objects=_custom_objects(VFW, build))
    assert type(loaded).__name__ == type(saved).__name__
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in saved.layers]
    assert_same_weights(saved, loaded)
    _close(outputs(loaded, INPUTS[build]), outputs(saved, INPUTS[build]))
    assert loaded.compiled == compiled
    if not compiled:
        return
    # The optimizer and its state (Keras 3.15 itself restores only iteration and learning_rate: see
    # test_vfw_file_loads_in_real_keras), then the same evaluation and the same next training step.
    assert type(loaded.optimizer).__name__ == type(saved.optimizer).__name__
    assert loaded.optimizer.get_config() == saved.optimizer.get_config()
    _close(_optimizer_values(loaded), _optimizer_values(saved))
    inputs, targets = INPUTS[build], _targets(build, INPUTS[build])
    want = saved.evaluate(inputs, targets, verbose=0, return_dict=True)
    got = loaded.evaluate(inputs, targets, verbose=0, return_dict=True)
    # (metric names may differ: the loaded model's metrics are deserialized objects, "mae" becomes
    # "mean_absolute_error"; test_real_keras_compiled_file_metrics compares them with Keras' loaded model)
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-5)
    if build is mlp:
        return  # its Dropout draws different masks in the two libraries: no step-by-step comparison
    for model in (saved, loaded):
        model.fit(inputs, targets, batch_size=3, epochs=1, shuffle=False, verbose=0)
    assert_close_weights(saved, loaded)


def assert_close_weights(real_model, vfw_model):
    _close(vfw_model.get_weights(), real_model.get_weights())


def test_real_keras_compiled_file_metrics(tmp_path):
    """The loaded model's losses and metrics: the names and values real Keras' own loaded model reports."""
    path = str(tmp_path / "real.h5")
    reset(REAL)
    _trained(REAL, mlp).save(path)
    targets = _targets(mlp, X3)
    real_loaded = REAL.keras.models.load_model(path)
    want = real_loaded.evaluate(X3, targets, verbose=0, return_dict=True)
    reset(VFW)
    got = VFW.keras.models.load_model(path).evaluate(X3, targets, verbose=0, return_dict=True)
    assert sorted(got) == sorted(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5)


# -- files of vfw load in real Keras ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build", BUILDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("compiled", [False, True], ids=["uncompiled", "compiled"])
def test_vfw_file_loads_in_real_keras(tmp_path, build, compiled):
    path = str(tmp_path / "vfw.h5")
    reset(VFW)
    saved = _trained(VFW, build) if compiled else build(VFW)
    VFW.keras.models.save_model(saved, path, include_optimizer=True)
    reset(REAL)
    loaded = REAL.keras.models.load_model(path, custom_objects=_custom_objects(REAL, build))
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in saved.layers]
    assert_same_weights(loaded, saved)
    _close(outputs(saved, INPUTS[build]), outputs(loaded, INPUTS[build]))
    assert loaded.compiled == compiled
    if compiled:
        assert loaded.optimizer.get_config() == saved.optimizer.get_config()
        # Keras 3.15 builds the loaded optimizer for no variable: only iteration and learning_rate load.
        _close(_optimizer_values(loaded), _optimizer_values(saved)[:2])


@pytest.mark.parametrize("build, include_optimizer", [(build, True) for build in BUILDS] + [(mlp, False)],
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_same_file_layout(tmp_path, build, include_optimizer):
    """Both libraries write the same groups, datasets, attributes and configs for the same model."""
    paths = {lib.name: str(tmp_path / f"{lib.name}.h5") for lib in (REAL, VFW)}
    reset(REAL)
    real_model = _trained(REAL, build)
    real_model.save(paths["real"], include_optimizer=include_optimizer)
    reset(VFW)
    model = _trained(VFW, build)
    model.set_weights(real_model.get_weights())
    model.optimizer.set_weights(_optimizer_values(real_model))
    model.save(paths["vfw"], include_optimizer=include_optimizer)
    assert _root_attributes(paths["vfw"]) == _root_attributes(paths["real"])
    assert h5_layout(paths["vfw"]) == h5_layout(paths["real"])


def _root_attributes(path):
    """The root attributes of a file, its JSON configs decoded."""
    import h5py

    with h5py.File(path, "r") as f:
        attrs = dict(f.attrs)
    return {key: json.loads(value) if key.endswith("_config") else value for key, value in attrs.items()}


# -- weights only ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("by_name", [None, False, True])
def test_load_weights_from_model_file(tmp_path, by_name):
    path = str(tmp_path / "real.h5")
    reset(REAL)
    saved = cnn(REAL)
    saved.save(path)
    reset(VFW)
    model = cnn(VFW)
    kwargs = {} if by_name is None else {"by_name": by_name}
    model.load_weights(path, **kwargs)
    assert_same_weights(saved, model)
    _close(outputs(model, X_IMAGE), outputs(saved, X_IMAGE))


def test_load_weights_by_name_skips_other_layers(tmp_path):
    """``by_name``: layers of other names keep their values; a count mismatch raises, or warns and skips."""
    path = str(tmp_path / "real.h5")
    reset(REAL)
    keras = REAL.keras
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="first"), keras.layers.Dense(2, name="second")]
                     ).save(path)

    def load(lib, skip_mismatch, first_bias):
        keras = lib.keras
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="first", use_bias=first_bias),
                                  keras.layers.Dense(2, name="other")])
        before = model.get_weights()
        model.load_weights(path, by_name=True, skip_mismatch=skip_mismatch)
        return [np.array_equal(w, b) for w, b in zip(model.get_weights(), before)]

    # (the saved biases are zeros, as the initial ones)
    assert same_outcome(load, False, True) == [False, True, True, True]
    same_outcome(load, False, False)
    with pytest.warns(UserWarning, match="mismatch in number of weights"):
        assert load(VFW, True, False) == [True, True, True]


@pytest.mark.parametrize("case", ["layer_count", "weight_count", "shape", "shape_skip"])
def test_load_weights_mismatch_errors(tmp_path, case):
    path = str(tmp_path / "real.h5")
    reset(REAL)
    keras = REAL.keras
    keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)]).save(path)

    def load(lib):
        keras = lib.keras
        layers = {"layer_count": [keras.layers.Dense(4)],
                  "weight_count": [keras.layers.Dense(4, use_bias=False), keras.layers.Dense(2)],
                  "shape": [keras.layers.Dense(5), keras.layers.Dense(2)],
                  "shape_skip": [keras.layers.Dense(4), keras.layers.Dense(3)]}[case]
        model = keras.Sequential([keras.Input((3,)), *layers])
        before = model.get_weights()
        model.load_weights(path, skip_mismatch=case == "shape_skip")
        return [np.array_equal(w, b) for w, b in zip(model.get_weights(), before)]

    if case == "shape_skip":
        with pytest.warns(UserWarning, match="due to mismatch in shape"):
            assert load(VFW) == [False, True, True, True]  # the saved bias is zeros, as the initial one
    same_outcome(load)


# -- warnings and errors ---------------------------------------------------------------------------------------------
def _logged_warnings(caplog, fn, *args, **kwargs):
    """The messages ``fn(*args, **kwargs)`` logs as absl warnings (how Keras logs them)."""
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="absl"):
        fn(*args, **kwargs)
    return [record.getMessage() for record in caplog.records if record.name == "absl"]


@pytest.mark.parametrize("kwargs", [{}, {"save_format": "h5"}], ids=["plain", "save_format"])
def test_save_warning_text(tmp_path, caplog, kwargs):
    messages = {}
    for lib in (REAL, VFW):
        reset(lib)
        model = mlp(lib)
        path = str(tmp_path / f"{lib.name}.hdf5")
        messages[lib.name] = _logged_warnings(caplog, model.save, path, **kwargs)
    assert messages["vfw"] == messages["real"]
    assert any("considered legacy" in message for message in messages["vfw"])


@pytest.mark.parametrize("compile_", [False, True])
def test_load_warning_text(tmp_path, caplog, compile_):
    """Loading an uncompiled model's file (compile=True warns that it was not compiled) and a compiled one."""
    messages = {}
    for lib in (REAL, VFW):
        reset(lib)
        model = _trained(lib, mlp) if compile_ else mlp(lib)
        path = str(tmp_path / f"{lib.name}.h5")
        model.save(path)
        messages[lib.name] = _logged_warnings(caplog, lib.keras.models.load_model, path)
    assert messages["vfw"] == messages["real"]
    assert messages["vfw"]


def test_subclassed_model(tmp_path):
    """A subclassed model saves (its config is its constructor's); loading it fails as in Keras."""
    path = str(tmp_path / "sub.h5")

    def save_and_load(lib, custom_objects):
        subclassed(lib).save(path)
        return lib.keras.models.load_model(path, custom_objects=custom_objects)

    same_outcome(save_and_load, None)


def test_missing_custom_object(tmp_path):
    def save_and_load(lib, with_custom_objects):
        path = str(tmp_path / f"{lib.name}.h5")
        custom(lib).save(path)
        return lib.keras.models.load_model(path, custom_objects=_custom_objects(lib, custom) if with_custom_objects
                                           else None).get_config()["layers"][2]["config"]["amount"]

    same_outcome(save_and_load, False)
    assert same_outcome(save_and_load, True) == 2.0


@pytest.mark.parametrize("call", [
    lambda lib, d: lib.keras.models.load_model(f"{d}/empty.h5"),
    lambda lib, d: lib.keras.models.load_model(f"{d}/weights_only.h5"),
    lambda lib, d: mlp(lib).load_weights(f"{d}/weights_only.h5", objects_to_skip=[]),
    lambda lib, d: mlp(lib).save_weights(f"{d}/w.h5"),
    lambda lib, d: mlp(lib).save(f"{d}/m.h5", save_format="tf"),
], ids=["no_config", "weights_file_as_model", "objects_to_skip", "save_weights_h5", "save_format_tf"])
def test_errors(tmp_path, call):
    import h5py

    with h5py.File(tmp_path / "empty.h5", "w"):
        pass
    reset(REAL)
    model = mlp(REAL)
    with h5py.File(tmp_path / "weights_only.h5", "w") as f:
        from keras.src.legacy.saving import legacy_h5_format

        legacy_h5_format.save_weights_to_hdf5_group(f, model)
    same_outcome(lambda lib: call(lib, str(tmp_path)))


def test_weights_only_legacy_file(tmp_path):
    """A weights file (``layer_names`` at the root, as Keras 2's ``save_weights("w.h5")`` wrote)."""
    import h5py
    from keras.src.legacy.saving import legacy_h5_format

    reset(REAL)
    saved = lstm(REAL)
    with h5py.File(tmp_path / "w.h5", "w") as f:
        legacy_h5_format.save_weights_to_hdf5_group(f, saved)
    reset(VFW)
    model = lstm(VFW)
    model.load_weights(str(tmp_path / "w.h5"))
    assert_same_weights(saved, model)


# -- files of Keras 2 (tf.keras 2.x): their older config format -----------------------------------------------------
def _keras2_dense(name, units, **extra):
    return {"name": name, "trainable": True, "dtype": "float32", "units": units, "activation": "relu",
            "use_bias": True, "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
            "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": None,
            "bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None,
            "bias_constraint": None, **extra}


_KERAS2_BATCH_NORM = {
    "name": "bn", "trainable": True, "dtype": "float32", "axis": [1], "momentum": 0.99, "epsilon": 0.001,
    "center": True, "scale": True, "beta_initializer": {"class_name": "Zeros", "config": {}},
    "gamma_initializer": {"class_name": "Ones", "config": {}},
    "moving_mean_initializer": {"class_name": "Zeros", "config": {}},
    "moving_variance_initializer": {"class_name": "Ones", "config": {}}, "beta_regularizer": None,
    "gamma_regularizer": None, "beta_constraint": None, "gamma_constraint": None}
_KERAS2_INPUT = {"batch_input_shape": [None, 3], "dtype": "float32", "sparse": False, "ragged": False,
                 "name": "input_1"}
_KERAS2_CONFIGS = {
    # batch_input_shape, list axes, initializers without "module", nodes as [layer, node, tensor, kwargs]
    "functional": {"class_name": "Functional", "config": {"name": "model", "layers": [
        {"class_name": "InputLayer", "config": _KERAS2_INPUT, "name": "input_1", "inbound_nodes": []},
        {"class_name": "Dense", "config": _keras2_dense("dense", 4), "name": "dense",
         "inbound_nodes": [[["input_1", 0, 0, {}]]]},
        {"class_name": "BatchNormalization", "config": _KERAS2_BATCH_NORM, "name": "bn",
         "inbound_nodes": [[["dense", 0, 0, {}]]]},
        {"class_name": "Dense", "config": _keras2_dense("dense_1", 2), "name": "dense_1",
         "inbound_nodes": [[["bn", 0, 0, {}]]]}],
        "input_layers": [["input_1", 0, 0]], "output_layers": [["dense_1", 0, 0]]}},
    "sequential": {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
        {"class_name": "InputLayer", "config": {**_KERAS2_INPUT, "name": "dense_input"}},
        {"class_name": "Dense", "config": _keras2_dense("dense", 4, batch_input_shape=[None, 3])},
        {"class_name": "BatchNormalization", "config": _KERAS2_BATCH_NORM},
        {"class_name": "Dense", "config": _keras2_dense("dense_1", 2)}]}},
}
_KERAS2_WEIGHTS = [("dense", {"kernel": (3, 4), "bias": (4,)}),
                   ("bn", {"gamma": (4,), "beta": (4,), "moving_mean": (4,), "moving_variance": (4,)}),
                   ("dense_1", {"kernel": (4, 2), "bias": (2,)})]


@pytest.mark.parametrize("kind", sorted(_KERAS2_CONFIGS))
def test_keras2_file(tmp_path, kind):
    """A file as Keras 2 wrote it loads in vfw as in Keras 3.15 (same predictions, same weights)."""
    import h5py

    path = str(tmp_path / "keras2.h5")
    rng = np.random.default_rng(0)
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"], f.attrs["backend"] = "2.13.1", "tensorflow"
        f.attrs["model_config"] = json.dumps(_KERAS2_CONFIGS[kind]).encode()
        group = f.create_group("model_weights")
        group.attrs["layer_names"] = [name.encode() for name, _ in _KERAS2_WEIGHTS]
        for layer_name, weights in _KERAS2_WEIGHTS:
            layer_group = group.create_group(layer_name)
            names = [f"{layer_name}/{weight}:0" for weight in weights]
            layer_group.attrs["weight_names"] = [name.encode() for name in names]
            for name, shape in zip(names, weights.values()):
                layer_group.create_dataset(name, data=rng.uniform(0.5, 1.5, shape).astype(np.float32))
    reset(REAL)
    want = REAL.keras.models.load_model(path)
    reset(VFW)
    got = VFW.keras.models.load_model(path)
    assert_same_weights(want, got)
    _close(outputs(got, X3), outputs(want, X3))
