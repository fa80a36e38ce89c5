"""Model files against real Keras 3.15.1: ``.keras`` archives and ``.weights.h5`` files written by one library
load in the other (weights, predictions and the optimizer's state equal), with the same configs and HDF5 layouts;
errors, mismatches and safe mode as Keras'."""

import contextlib
import json
import os
import zipfile

import numpy as np
import pytest

from compat_tests.keras.saving_harness import (
    INPUTS,
    REAL,
    VFW,
    X2,
    X3,
    archive_weights,
    assert_same_weights,
    data,
    dense_pair,
    functional,
    h5_layout,
    outcome,
    outputs,
    reset,
    same_outcome,
    sequential,
    subclassed,
    without_shared_ids,
)

MODELS = [sequential, functional, subclassed]


# -- the same models in both libraries' files ----------------------------------------------------------------------
@pytest.mark.parametrize("make", MODELS, ids=lambda f: f.__name__)
def test_real_keras_files_load_in_vfw(make, tmp_path):
    reset(REAL)
    real_model = make(REAL)
    path = str(tmp_path / "model.keras")
    real_model.save(path)
    reset(VFW)
    ours = VFW.keras.models.load_model(path)
    assert type(ours).__name__ == type(real_model).__name__
    assert_same_weights(real_model, ours)
    for a, b in zip(outputs(real_model, INPUTS[make]), outputs(ours, INPUTS[make])):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    # The loaded model describes itself as the saved one.
    saved_config = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert without_shared_ids(json.loads(ours.to_json())) == without_shared_ids(saved_config)


@pytest.mark.parametrize("make", MODELS, ids=lambda f: f.__name__)
def test_vfw_files_load_in_real_keras(make, tmp_path):
    reset(VFW)
    ours = make(VFW)
    path = str(tmp_path / "model.keras")
    ours.save(path)
    reset(REAL)
    real_model = REAL.keras.models.load_model(path)
    assert_same_weights(real_model, ours)
    for a, b in zip(outputs(real_model, INPUTS[make]), outputs(ours, INPUTS[make])):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", MODELS, ids=lambda f: f.__name__)
def test_same_files_as_real_keras(make, tmp_path):
    """Identical models (after a session reset) give the same config.json and the same HDF5 layout."""
    paths = {}
    for lib in (REAL, VFW):
        reset(lib)
        paths[lib.name] = str(tmp_path / f"{lib.name}.keras")
        make(lib).save(paths[lib.name])
    archives = {name: zipfile.ZipFile(path) for name, path in paths.items()}
    assert archives["vfw"].namelist() == archives["real"].namelist()
    configs = {name: json.loads(archive.read("config.json")) for name, archive in archives.items()}
    assert without_shared_ids(configs["vfw"]) == without_shared_ids(configs["real"])
    assert h5_layout(archive_weights(paths["vfw"])) == h5_layout(archive_weights(paths["real"]))
    metadata = json.loads(archives["vfw"].read("metadata.json"))
    assert sorted(metadata) == ["date_saved", "keras_version"] and metadata["keras_version"] == "3.15.1"


@pytest.mark.parametrize("make", MODELS, ids=lambda f: f.__name__)
def test_weights_files_both_ways(make, tmp_path):
    reset(REAL)
    real_model = make(REAL)
    reset(VFW)
    ours = make(VFW)
    real_path, vfw_path = str(tmp_path / "real.weights.h5"), str(tmp_path / "vfw.weights.h5")
    real_model.save_weights(real_path)
    ours.load_weights(real_path)
    assert_same_weights(real_model, ours)
    ours.set_weights([w * 2 + 1 for w in ours.get_weights()])
    ours.save_weights(vfw_path)
    assert h5_layout(vfw_path) == h5_layout(real_path)
    real_model.load_weights(vfw_path)
    assert_same_weights(real_model, ours)
    for a, b in zip(outputs(real_model, INPUTS[make]), outputs(ours, INPUTS[make])):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_round_trip_within_vfw(tmp_path):
    keras = VFW.keras
    reset(VFW)
    model = functional(VFW)
    path = str(tmp_path / "m.keras")
    keras.saving.save_model(model, path)
    loaded = keras.saving.load_model(path)
    assert_same_weights(model, loaded)
    assert [layer.name for layer in loaded.layers] == [layer.name for layer in model.layers]
    for a, b in zip(outputs(model, INPUTS[functional]), outputs(loaded, INPUTS[functional])):
        np.testing.assert_array_equal(b, a)
    # Unzipped directories too.
    directory = str(tmp_path / "unzipped")
    model.save(directory, zipped=False)
    # As Keras 3.15.1, which always makes the (here empty) assets folder.
    assert sorted(os.listdir(directory)) == ["assets", "config.json", "metadata.json", "model.weights.h5"]
    assert_same_weights(model, keras.models.load_model(directory))


# -- compiled models: the optimizer's state continues training identically ---------------------------------------
Y2 = data(6, 2, seed=3)
Y1 = data(6, 1, seed=4)


def compiled_sequential(lib):
    keras = lib.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model, X3, Y2


def compiled_functional(lib):
    keras = lib.keras
    model = functional(lib)
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True), loss=["mse", "mae"],
                  loss_weights=[1.0, 0.5])
    return model, {"a": X3, "b": X2}, [Y1, Y2]


def compiled_subclassed(lib):
    keras = lib.keras
    model = subclassed(lib)
    model.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.5), loss=keras.losses.Huber())
    return model, X3, Y2


COMPILED = [compiled_sequential, compiled_functional, compiled_subclassed]


def _train(model, x, y):
    """Losses of four training steps on two batches (``train_on_batch``: one traced step function per model)."""
    first = {k: v[:3] for k, v in x.items()} if isinstance(x, dict) else x[:3]
    second = {k: v[3:] for k, v in x.items()} if isinstance(x, dict) else x[3:]
    targets = [[t[:3] for t in y], [t[3:] for t in y]] if isinstance(y, list) else [y[:3], y[3:]]
    return [model.train_on_batch(batch, target) for batch, target in zip((first, second) * 2, targets * 2)]


@pytest.mark.parametrize("make", COMPILED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("direction", ["real_to_vfw", "vfw_to_real"])
def test_optimizer_state_continues_training(make, direction, tmp_path):
    source, target = (REAL, VFW) if direction == "real_to_vfw" else (VFW, REAL)
    reset(REAL)
    reset(VFW)
    saved, x, y = make(source)
    _train(saved, x, y)
    path = str(tmp_path / "model.keras")
    saved.save(path)
    loaded = target.keras.models.load_model(path)
    assert loaded.compiled and loaded.optimizer is not None
    assert type(loaded.optimizer).__name__ == type(saved.optimizer).__name__
    assert int(loaded.optimizer.iterations.numpy()) == int(saved.optimizer.iterations.numpy()) == 4
    for a, b in zip(saved.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
    assert without_shared_ids(loaded.get_compile_config()) == without_shared_ids(saved.get_compile_config())
    losses = [_train(model, x, y) for model in (saved, loaded)]
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5, atol=1e-6)
    real_model, vfw_model = (saved, loaded) if source is REAL else (loaded, saved)
    for a, b in zip(real_model.get_weights(), vfw_model.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_load_without_compiling(tmp_path):
    reset(REAL)
    model, x, y = compiled_sequential(REAL)
    _train(model, x, y)
    path = str(tmp_path / "model.keras")
    model.save(path)
    reset(VFW)
    loaded = VFW.keras.models.load_model(path, compile=False)
    assert not loaded.compiled and loaded.optimizer is None
    assert_same_weights(model, loaded)


# -- errors, mismatches, safe mode: the same as real Keras --------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, m, d: m.save(f"{d}/model.h6"),
    lambda lib, m, d: m.save(f"{d}/model.keras", zipped=False),
    lambda lib, m, d: m.save(f"{d}/model.keras", save_format="tf"),
    lambda lib, m, d: m.save(f"{d}/model.tf", save_format="tf"),
    lambda lib, m, d: m.save(f"{d}/model.keras", unknown=1),
    lambda lib, m, d: m.save_weights(f"{d}/model.h5"),
    lambda lib, m, d: m.save_weights(f"{d}/model.weights.h6", max_shard_size=1),
    lambda lib, m, d: m.load_weights(f"{d}/model.npz"),
    lambda lib, m, d: m.load_weights(f"{d}/model.keras", objects_to_skip=[]),
    lambda lib, m, d: m.load_weights(f"{d}/model.weights.h5", by_name=True),
    lambda lib, m, d: m.load_weights(f"{d}/model.keras", unknown=1),
    lambda lib, m, d: lib.keras.models.load_model(f"{d}/missing.keras"),
    lambda lib, m, d: lib.keras.models.load_model(f"{d}/model.pb"),
    lambda lib, m, d: lib.keras.Sequential([lib.keras.layers.Dense(2)]).save_weights(f"{d}/x.weights.h5"),
    lambda lib, m, d: lib.keras.Sequential([lib.keras.layers.Dense(2)]).load_weights(f"{d}/x.weights.h5"),
], ids=lambda f: "")
def test_argument_errors(call, tmp_path):
    same_outcome(lambda lib: call(lib, sequential(lib), str(tmp_path)))


def test_mismatched_weights(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    reset(REAL)
    saved = dense_pair(REAL, 4, 2)
    saved.save_weights(path)

    def load(lib, first_units, use_bias, skip_mismatch):
        model = dense_pair(lib, first_units, 2, use_bias)
        before = model.get_weights()
        with pytest.warns(UserWarning) if skip_mismatch else contextlib.nullcontext():
            model.load_weights(path, skip_mismatch=skip_mismatch)
        return [np.array_equal(w, b) for w, b in zip(model.get_weights(), before)]

    # A count mismatch: Keras' message, naming the layer and its variables.
    same_outcome(load, 4, False, False)
    # skip_mismatch: the mismatched layer keeps its values, the other loads (its zero bias was saved as zeros).
    assert same_outcome(load, 4, False, True) == [True, False, True]
    # A shape mismatch raises (the assign error's text is TF's own: compare the report around it).
    real, ours = outcome(load, REAL, 5, True, False), outcome(load, VFW, 5, True, False)
    assert ours[:2] == real[:2] == ("raised", "ValueError")
    for message in (real[2], ours[2]):
        assert message.startswith("A total of 2 objects could not be loaded. Example error message for object "
                                  "<Dense name=dense, built=True>:")
        assert message.endswith("List of objects that could not be loaded:\n[<Dense name=dense, built=True>, "
                                "<Dense name=dense_1, built=True>]")


def test_objects_to_skip(tmp_path):
    path = str(tmp_path / "w.weights.h5")

    def fn(lib):
        source = dense_pair(lib, 4, 2)
        source.save_weights(path, objects_to_skip=[source.layers[1]])
        target = dense_pair(lib, 4, 2)
        kept = target.layers[0].get_weights()
        target.load_weights(path, objects_to_skip=[target.layers[0]])
        return ([np.array_equal(a, b) for a, b in zip(target.layers[0].get_weights(), kept)],
                sorted(h5_layout(path)))

    same_outcome(fn)


def lambda_model(lib):
    keras = lib.keras
    inputs = keras.Input((3,))
    return keras.Model(inputs, keras.layers.Lambda(lambda x: x * 3.0 + 1.0)(keras.layers.Dense(2)(inputs)))


@pytest.mark.parametrize("source", [REAL, VFW], ids=["real_file", "vfw_file"])
def test_safe_mode_refuses_lambdas(source, tmp_path):
    path = str(tmp_path / "lambda.keras")
    reset(source)
    model = lambda_model(source)
    model.save(path)
    result = same_outcome(lambda lib: lib.keras.models.load_model(path))
    assert result[:2] == ("raised", "ValueError") and "safe_mode=False" in result[2]
    for target in (REAL, VFW):
        reset(target)
        loaded = target.keras.models.load_model(path, safe_mode=False)
        np.testing.assert_allclose(np.asarray(loaded(X3)), np.asarray(model(X3)), rtol=1e-6)


def test_unsafe_deserialization_switch(tmp_path):
    path = str(tmp_path / "lambda.keras")
    reset(REAL)
    lambda_model(REAL).save(path)
    reset(VFW)
    VFW.keras.config.enable_unsafe_deserialization()
    try:
        assert VFW.keras.models.load_model(path) is not None
    finally:
        VFW.keras.backend.clear_session()  # the switch is session state
    with pytest.raises(ValueError, match="safe_mode=False"):
        VFW.keras.models.load_model(path)


def _edited_archive(path, edit):
    """Rewrite the config.json of a ``.keras`` archive with ``edit(config)``."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(members["config.json"])
    edit(config)
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


@pytest.mark.parametrize("edit", [
    # An unregistered class.
    lambda c: c["config"]["layers"][1].update(module="evil.module", class_name="Payload", registered_name="Payload"),
    # A class from a module vfw never imports (Keras refuses it: not a Keras module it may import).
    lambda c: c["config"]["layers"][1].update(module="os", class_name="system", registered_name=None),
    # A non-modeling Keras function.
    lambda c: c["config"]["layers"][1].update(module="keras.saving", class_name="function",
                                              config="load_model", registered_name="load_model"),
    # A Keras built-in with a registered name.
    lambda c: c["config"]["layers"][1].update(registered_name="evil>Dense"),
], ids=["unregistered", "os_system", "non_modeling", "registered_builtin"])
def test_configs_naming_forbidden_objects(edit, tmp_path):
    path = str(tmp_path / "model.keras")
    reset(REAL)
    sequential(REAL).save(path)
    _edited_archive(path, edit)
    result = same_outcome(lambda lib: lib.keras.models.load_model(path))
    assert result[0] == "raised"


def test_overwrite_prompt(tmp_path, monkeypatch, capsys):
    path = str(tmp_path / "model.keras")
    reset(VFW)
    model = sequential(VFW)
    model.save(path)
    stamp = os.path.getmtime(path)
    answers = iter(["maybe", "n"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    model.save(path, overwrite=False)
    assert os.path.getmtime(path) == stamp
    answers = iter(["y"])
    model.save(path, overwrite=False)
    assert "[TIP] Next time specify overwrite=True!" in capsys.readouterr().out


_LAZY = {}


def lazy_model(lib):
    """A registered model whose ``build_from_config`` does not build its layer (so a loaded copy cannot take the
    layer's weights)."""
    if lib.name not in _LAZY:
        keras = lib.keras

        @keras.saving.register_keras_serializable(package="vfw_tests")
        class LazyModel(keras.Model):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.child = keras.layers.Dense(2)

            def call(self, x):
                return self.child(x)

            def build_from_config(self, config):
                pass

        _LAZY[lib.name] = LazyModel
    return _LAZY[lib.name]


def test_layers_not_rebuilt_at_loading(tmp_path):
    path = str(tmp_path / "lazy.keras")
    for lib in (REAL, VFW):
        lazy_model(lib)
    reset(REAL)
    model = lazy_model(REAL)()
    model(X3)
    model.save(path)
    # The layer fails to load at "child", then loads (nothing) at "layers/dense", which clears the failure: Keras
    # loads such a model without an error, its layer unbuilt.
    result = same_outcome(lambda lib: (lambda m: (m.built, m.child.built, len(m.weights)))(
        lib.keras.models.load_model(path)))
    assert result == (True, False, 0)


@pytest.mark.parametrize("case", [
    lambda lib: lib.keras.layers.Dense(2).load_own_variables({"0": np.ones((3, 2)), "1": np.ones(2)}),
    lambda lib: (lambda d: (d.build((None, 3)), d.load_own_variables({"0": np.ones((3, 2))})))(
        lib.keras.layers.Dense(2)),
    lambda lib: (lambda d: (d.build((None, 3)), d.load_own_variables({"0": np.full((3, 2), 2.0), "1": np.ones(2)}),
                            d.get_weights()))(lib.keras.layers.Dense(2)),
    lambda lib: (lambda d, store: (d.build((None, 3)), d.save_own_variables(store), sorted(store),
                                   [np.asarray(v).shape for v in store.values()]))(lib.keras.layers.Dense(2), {}),
    lambda lib: (lambda d, store: (d.save_own_variables(store), store))(lib.keras.layers.Dense(2), {}),
], ids=["unbuilt", "count", "assign", "save", "save_unbuilt"])
def test_own_variables_protocol(case):
    same_outcome(case)


def test_custom_objects_argument(tmp_path):
    """An unregistered custom layer loads through ``custom_objects`` (also inside a functional model's config)."""
    path = str(tmp_path / "custom.keras")
    classes = {}
    for lib in (REAL, VFW):
        class Doubler(lib.keras.layers.Layer):
            def call(self, x):
                return x * 2.0

        classes[lib.name] = Doubler
    reset(REAL)
    inputs = REAL.keras.Input((3,))
    model = REAL.keras.Model(inputs, REAL.keras.layers.Dense(2)(classes["real"]()(inputs)))
    model.save(path)
    result = same_outcome(lambda lib: lib.keras.models.load_model(path))
    assert result[:2] == ("raised", "TypeError") and "Could not locate class 'Doubler'" in result[2]
    reset(VFW)
    ours = VFW.keras.models.load_model(path, custom_objects={"Doubler": classes["vfw"]})
    assert type(ours.layers[1]) is classes["vfw"]
    np.testing.assert_allclose(outputs(ours, X3)[0], outputs(model, X3)[0], rtol=1e-6)
