"""keras.layers.StringLookup against real Keras 3.15.1: index layout with mask and oov tokens, adapt's vocabulary
order (lists, arrays, tensors, datasets), the encoding modes (tf-idf included), invert, output shapes/dtypes,
get_config/from_config, vocabulary files, errors, a Functional model, dataset.map and .keras save/load."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
rtf = pytest.importorskip("tensorflow")
import vfw.frontends.tensorflow as vtf  # noqa: E402
from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402

VOCABULARY = ["cat", "dog", "émeu", "fish"]
INPUTS = [np.array(["cat", "", "bird", "fish"]), np.array([["dog"], [""], ["émeu"]]),
          np.array([["cat", "", "owl"], ["fish", "fish", "dog"]]), np.array(["[UNK]", "dog"])]
CONFIGS = [
    {}, {"mask_token": ""}, {"num_oov_indices": 0, "mask_token": "", "oov_token": "?"}, {"oov_token": "?"},
    {"output_mode": "one_hot"}, {"output_mode": "one_hot", "mask_token": ""},
    {"output_mode": "multi_hot"}, {"output_mode": "multi_hot", "mask_token": ""},
    {"output_mode": "count"}, {"output_mode": "count", "mask_token": ""},
    {"output_mode": "multi_hot", "max_tokens": 9, "pad_to_max_tokens": True},
    {"output_mode": "tf_idf", "idf_weights": [0.5, 0.25, 2.0, 1.5]},
    {"output_mode": "tf_idf", "idf_weights": [0.5, 0.25, 2.0, 1.5], "mask_token": ""},
]
ADAPT_DATA = ["b", "a", "c", "a", "b", "d", "b", "c", "", "[UNK]", "e", "e", "é"]


def _both(**config):
    return keras.layers.StringLookup(**config), vkeras.layers.StringLookup(**config)


def _same(want, got):
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the kind and message are compared
        return type(e).__name__, str(e)[-60:]
    return None


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_lookup_with_a_vocabulary(config):
    real, ours = _both(vocabulary=VOCABULARY, **config)
    assert ours.get_vocabulary() == real.get_vocabulary()
    assert ours.get_vocabulary(include_special_tokens=False) == real.get_vocabulary(include_special_tokens=False)
    assert ours.vocabulary_size() == real.vocabulary_size()
    assert ours.get_config() == real.get_config()
    for x in INPUTS:
        if config.get("num_oov_indices") == 0 and not set(x.ravel()) <= set(VOCABULARY + [""]):
            assert _error(lambda x=x: ours(x)) is not None and _error(lambda x=x: real(x)) is not None
            continue
        _same(real(x), ours(x))
    clone = vkeras.layers.StringLookup.from_config(ours.get_config())
    _same(real(INPUTS[1]), clone(INPUTS[1]))


@pytest.mark.parametrize("config", [{}, {"mask_token": ""}, {"oov_token": "?", "num_oov_indices": 1}], ids=str)
def test_invert(config):
    real, ours = _both(vocabulary=VOCABULARY, invert=True, **config)
    for x in (np.array([0, 1, 2, 3, 4, 5, 9]), np.array([[1, 0], [3, 2]], np.int32)):
        _same(real(x), ours(x))


@pytest.mark.parametrize("config", [{}, {"mask_token": ""}, {"max_tokens": 4}, {"max_tokens": 5, "mask_token": ""},
                                    {"output_mode": "tf_idf"}, {"output_mode": "count", "mask_token": "e"}], ids=str)
def test_adapt_orders_by_count_then_token(config):
    real, ours = _both(**config)
    data = np.array(ADAPT_DATA).reshape(-1, 1) if config.get("output_mode") == "tf_idf" else ADAPT_DATA
    real.adapt(data)
    ours.adapt(data)
    assert ours.get_vocabulary() == real.get_vocabulary()
    assert ours.vocabulary_size() == real.vocabulary_size()
    _same(real(np.array([["a", "e", "zz"], ["b", "", "é"]])), ours(np.array([["a", "e", "zz"], ["b", "", "é"]])))


def test_adapt_sources():
    rows = np.array([["x y", "b"], ["a", "b"], ["a", "c"], ["b", "z"]])
    for make in (lambda tf: rows, lambda tf: tf.constant(rows),
                 lambda tf: tf.data.Dataset.from_tensor_slices(rows).batch(3),
                 lambda tf: tf.data.Dataset.from_tensor_slices(rows.ravel())):
        real, ours = _both(output_mode="tf_idf")
        real.adapt(make(rtf))
        ours.adapt(make(vtf))
        assert ours.get_vocabulary() == real.get_vocabulary()
        _same(real(rows), ours(rows))


def test_set_vocabulary_and_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCABULARY) + "\n", encoding="utf-8")
    real, ours = _both(vocabulary=str(path))
    assert ours.get_vocabulary() == real.get_vocabulary()
    _same(real(INPUTS[0]), ours(INPUTS[0]))
    real, ours = _both(mask_token="")
    for layer in (real, ours):
        layer.set_vocabulary(["", "[UNK]", "q", "r"])
    assert ours.get_vocabulary() == real.get_vocabulary()
    _same(real(np.array(["r", "", "q", "s"])), ours(np.array(["r", "", "q", "s"])))


@pytest.mark.parametrize("case", [
    lambda k: k.layers.StringLookup(vocabulary=[]),
    lambda k: k.layers.StringLookup(vocabulary=["a", "b", "a"]),
    lambda k: k.layers.StringLookup(max_tokens=3).set_vocabulary(["a", "b", "c"]),
    lambda k: k.layers.StringLookup(max_tokens=1),
    lambda k: k.layers.StringLookup(pad_to_max_tokens=True),
    lambda k: k.layers.StringLookup(num_oov_indices=-1),
    lambda k: k.layers.StringLookup(output_mode="bogus"),
    lambda k: k.layers.StringLookup(invert=True, output_mode="count"),
    lambda k: k.layers.StringLookup(idf_weights=[1.0], vocabulary=["a"]),
    lambda k: k.layers.StringLookup(output_mode="tf_idf", vocabulary=["a"]),
    lambda k: k.layers.StringLookup(output_mode="tf_idf", vocabulary=["a", "b"], idf_weights=[1.0]),
    lambda k: k.layers.StringLookup(mask_token="", vocabulary=["a", ""]),
    lambda k: k.layers.StringLookup(invert=True, vocabulary=["a", "[UNK]"]),
    lambda k: k.layers.StringLookup(vocabulary=["a"], name="lookup").adapt(["a", "b"]),
    lambda k: k.layers.StringLookup(vocabulary="/no/such/vocabulary.txt"),
    lambda k: k.layers.StringLookup(output_mode="one_hot", vocabulary=["a"]).set_vocabulary(["a", "b"]),
    lambda k: k.layers.StringLookup(output_mode="multi_hot")(np.array(["a"])),
    lambda k: k.layers.StringLookup(vocabulary=["a"])(np.array([1, 2])),
], ids=["empty", "repeated", "max_tokens", "max_tokens_small", "pad_without_max", "negative_oov", "mode", "invert_mode",
        "idf_not_tf_idf", "tf_idf_no_idf", "idf_length", "mask_in_vocab", "oov_in_inverted_vocab", "adapt_after_vocab",
        "missing_file", "size_change", "no_vocabulary", "int_input"])
def test_errors(case):
    real, ours = _error(lambda: case(keras)), _error(lambda: case(vkeras))
    assert real is not None and ours is not None
    assert ours[0] == real[0], (ours, real)


def test_functional_model_and_dataset_map(tmp_path):
    real, ours = _both(vocabulary=VOCABULARY, mask_token="")
    strings = np.array([["cat", "owl"], ["", "fish"]], object)
    models = []
    for k, layer in ((keras, real), (vkeras, ours)):
        inputs = k.Input(shape=(2,), dtype="string")
        models.append(k.Model(inputs, layer(inputs)))
    assert tuple(models[1].output.shape) == tuple(models[0].output.shape)
    assert models[1].output.dtype == models[0].output.dtype
    # (real Keras' predict refuses numpy string arrays: call the models on string tensors)
    _same(models[0](rtf.constant(strings)), models[1](vtf.constant(strings)))
    mapped = [list(tf.data.Dataset.from_tensor_slices(strings).map(layer).as_numpy_iterator())
              for tf, layer in ((rtf, real), (vtf, ours))]
    _same(np.stack(mapped[0]), np.stack(mapped[1]))


@pytest.mark.parametrize("config", [{}, {"output_mode": "tf_idf"}, {"output_mode": "multi_hot", "mask_token": ""}],
                         ids=str)
def test_keras_file_round_trip(tmp_path, config):
    strings = np.array([["b", "a"], ["é", "zz"]], object)
    outputs = []
    for k, tf in ((keras, rtf), (vkeras, vtf)):
        layer = k.layers.StringLookup(**config)
        # Without "": real Keras drops an empty-string term when it loads the vocabulary asset.
        layer.adapt(np.array([t for t in ADAPT_DATA if t]).reshape(-1, 1))
        inputs = k.Input(shape=(2,), dtype="string")
        path = str(tmp_path / f"{k.__name__}.keras")
        k.Model(inputs, layer(inputs)).save(path)
        loaded = k.models.load_model(path)
        assert loaded.layers[-1].get_vocabulary() == layer.get_vocabulary()
        outputs.append(loaded(tf.constant(strings)))
    _same(outputs[0], outputs[1])
