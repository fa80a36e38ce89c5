"""Assets in model files against real Keras 3.15.1: adapted IntegerLookup vocabularies saved as
``assets/<inner path>/vocabulary.txt`` load in the other library (same vocabularies and outputs), in ``.keras``
archives and unzipped directories; vocabularies given in the config write no asset; missing assets are errors."""

import json
import os
import zipfile

import numpy as np
import pytest

from compat_tests.keras.saving_harness import REAL, VFW, outputs, reset, without_shared_ids

TOKENS = np.array([[3, 7, 7, 11], [42, 42, 3, 5], [5, 9, 0, 0], [0, 7, 1, -1]])
QUERY = np.array([[3, 0, 99, 42], [7, 11, 1, 5]])


def adapted_model(lib):
    """A functional model with adapted lookups (int with a mask and two oov indices, one_hot) feeding Dense
    layers, one inside a nested Sequential, and a lookup whose vocabulary is in its config."""
    keras = lib.keras
    ids = keras.layers.IntegerLookup(mask_token=0, num_oov_indices=2)
    ids.adapt(TOKENS)
    one_hot = keras.layers.IntegerLookup(output_mode="one_hot", max_tokens=6)
    one_hot.adapt(TOKENS)
    fixed = keras.layers.IntegerLookup(vocabulary=[42, 7, 3], output_mode="multi_hot")
    inputs = keras.Input((4,), dtype="int64")
    nested = keras.Sequential([keras.Input((4, 6)), keras.layers.Dense(2)], name="nested")
    embedded = keras.layers.Embedding(12, 2)(ids(inputs))
    head = keras.layers.Dense(1)(keras.layers.Flatten()(embedded))
    return keras.Model(inputs, [ids(inputs), head, nested(one_hot(inputs)), fixed(inputs)])


def sequential_with_lookup(lib):
    """A Sequential of an adapted lookup (at ``layers/integer_lookup``) and a Dense layer."""
    keras = lib.keras
    lookup = keras.layers.IntegerLookup(output_mode="count")
    lookup.adapt(TOKENS)
    return keras.Sequential([keras.Input((4,), dtype="int64"), lookup, keras.layers.Dense(2)])


def _lookups(model):
    found = []
    for layer in model.layers:
        found += _lookups(layer) if hasattr(layer, "layers") else [layer] * (type(layer).__name__ == "IntegerLookup")
    return found


def _assert_same_models(want, got):
    assert [layer.get_vocabulary() for layer in _lookups(got)] == \
        [[int(t) for t in layer.get_vocabulary()] for layer in _lookups(want)]
    for a, b in zip(outputs(want, QUERY), outputs(got, QUERY)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _save(lib, make, path, **kwargs):
    reset(lib)
    model = make(lib)
    model.save(path, **kwargs)
    return model


@pytest.mark.parametrize("make", [adapted_model, sequential_with_lookup], ids=lambda f: f.__name__)
@pytest.mark.parametrize("saver, loader", [(REAL, VFW), (VFW, REAL), (VFW, VFW)], ids=["real-vfw", "vfw-real",
                                                                                    "vfw-vfw"])
def test_archives_both_ways(make, saver, loader, tmp_path):
    path = str(tmp_path / "model.keras")
    saved = _save(saver, make, path)
    reset(loader)
    loaded = loader.keras.models.load_model(path)
    _assert_same_models(saved, loaded)


@pytest.mark.parametrize("make", [adapted_model, sequential_with_lookup], ids=lambda f: f.__name__)
def test_same_archive_members_as_real_keras(make, tmp_path):
    """Same member names, vocabulary files and configs (``vocabulary_size`` included) as Keras writes."""
    archives = {}
    for lib in (REAL, VFW):
        path = str(tmp_path / f"{lib.name}.keras")
        _save(lib, make, path)
        archives[lib.name] = zipfile.ZipFile(path)
    real, ours = archives["real"], archives["vfw"]
    assert sorted(ours.namelist()) == sorted(real.namelist())
    assets = [name for name in real.namelist() if name.startswith("assets/")]
    assert assets and all(name.endswith("/vocabulary.txt") for name in assets)
    for name in assets:
        assert ours.read(name) == real.read(name), name
        assert ours.getinfo(name).compress_type == zipfile.ZIP_STORED
    configs = [without_shared_ids(json.loads(archive.read("config.json"))) for archive in (real, ours)]
    assert configs[1] == configs[0]


@pytest.mark.parametrize("saver, loader", [(REAL, VFW), (VFW, REAL)], ids=["real-vfw", "vfw-real"])
def test_unzipped_directories(saver, loader, tmp_path):
    path = str(tmp_path / "model_dir")
    saved = _save(saver, adapted_model, path, zipped=False)
    assert os.path.isfile(os.path.join(path, "assets", "layers", "integer_lookup", "vocabulary.txt"))
    reset(loader)
    _assert_same_models(saved, loader.keras.saving.load_model(path))


def test_vocabulary_in_config_writes_no_asset(tmp_path):
    for lib in (REAL, VFW):
        path = str(tmp_path / f"{lib.name}.keras")
        reset(lib)
        keras = lib.keras
        inputs = keras.Input((4,), dtype="int64")
        keras.Model(inputs, keras.layers.IntegerLookup(vocabulary=[3, 7])(inputs)).save(path)
        assert zipfile.ZipFile(path).namelist() == ["metadata.json", "config.json", "model.weights.h5"]
        reset(lib)
        loaded = keras.models.load_model(path)
        np.testing.assert_array_equal(np.asarray(loaded(QUERY)), [[1, 0, 0, 0], [2, 0, 0, 0]])  # oov: 0


@pytest.mark.parametrize("lib", [REAL, VFW], ids=lambda lib: lib.name)
def test_missing_vocabulary_asset_is_an_error(lib, tmp_path):
    """An archive (with an assets store) lacking an adapted lookup's vocabulary does not load silently empty."""
    path, broken = str(tmp_path / "model.keras"), str(tmp_path / "broken.keras")
    _save(VFW, adapted_model, path)
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(broken, "w") as target:
        for name in source.namelist():
            if name != "assets/layers/integer_lookup/vocabulary.txt":
                target.writestr(name, source.read(name))
    reset(lib)
    with pytest.raises(ValueError, match="could not be loaded"):
        lib.keras.models.load_model(broken)


def test_weights_only_loading_ignores_assets(tmp_path):
    """``load_weights`` from a ``.keras`` archive assigns variables and leaves vocabularies alone, as Keras."""
    path = str(tmp_path / "model.keras")
    _save(VFW, sequential_with_lookup, path)
    for lib in (REAL, VFW):
        reset(lib)
        keras = lib.keras
        lookup = keras.layers.IntegerLookup(output_mode="count")
        lookup.adapt(np.arange(5, 13))  # as many tokens as the saved vocabulary: the Dense kernels match
        model = keras.Sequential([keras.Input((4,), dtype="int64"), lookup, keras.layers.Dense(2)])
        model.load_weights(path)
        assert [int(t) for t in lookup.get_vocabulary()] == [-1, 12, 11, 10, 9, 8, 7, 6, 5]
