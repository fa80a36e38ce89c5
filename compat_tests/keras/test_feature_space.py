"""keras.utils.FeatureSpace against real Keras 3.15.1: encoded outputs (concat and dict modes, batches, single
examples, inside ``dataset.map``), symbolic inputs and encoded features, configs, ``.keras`` files exchanged both
ways, errors."""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_keras = pytest.importorskip("keras")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vfw_tf  # noqa: E402
from vfw.tensorflow import keras as vfw_keras  # noqa: E402

BACKENDS = {"real": (real_keras, real_tf), "vfw": (vfw_keras, vfw_tf)}
RNG = np.random.default_rng(0)
N = 24
RAW = {
    "age": RNG.normal(40, 12, N).astype("float32"),
    "fare": RNG.uniform(0, 80, N).astype("float32"),
    "score": RNG.uniform(-1, 1, N).astype("float32"),
    "height": RNG.normal(170, 9, N).astype("float32"),
    "city": RNG.choice(["paris", "rome", "oslo", "lima", "kyiv"], N),
    "zip": RNG.choice(["75001", "00100", "0150", "15001", "01001", "999"], N),
    "rooms": RNG.integers(1, 6, N).astype("int64"),
    "code": RNG.integers(100, 900, N).astype("int64"),
}


def _full_specs(fs):
    return {
        "age": "float_normalized",
        "fare": fs.float_discretized(num_bins=4, name="fare"),
        "score": fs.float(name="score"),
        "height": fs.float_rescaled(scale=0.01, offset=-1.0, name="height"),
        "city": "string_categorical",
        "zip": fs.string_hashed(num_bins=7, name="zip"),
        "rooms": fs.integer_categorical(max_tokens=4, name="rooms"),
        "code": "integer_hashed",
    }


def _full_space(keras, tf, output_mode="concat", adapt_on="batched"):
    fs_cls = keras.utils.FeatureSpace
    space = fs_cls(_full_specs(fs_cls), output_mode=output_mode, hashing_dim=5,
                   crosses=[fs_cls.cross(("city", "rooms"), crossing_dim=6), ("zip", "code")], crossing_dim=3)
    data = {"dict": RAW, "batched": tf.data.Dataset.from_tensor_slices(RAW).batch(5),
            "unbatched": tf.data.Dataset.from_tensor_slices(RAW)}[adapt_on]
    space.adapt(data)
    return space


def _numpy(value):
    if isinstance(value, dict):
        return {key: _numpy(item) for key, item in value.items()}
    return np.asarray(value)


def _assert_same(expected, got):
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            _assert_same(expected[key], got[key])
        return
    assert str(got.dtype) == str(expected.dtype), (expected.dtype, got.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(_numpy(got), _numpy(expected), rtol=1e-6, atol=1e-6)


def _both(fn):
    """``fn(keras, tf)`` under real Keras and vfw, both results."""
    return [fn(*BACKENDS[name]) for name in ("real", "vfw")]


@pytest.mark.parametrize("adapt_on", ["batched", "unbatched", "dict"])
def test_concat_encoding_of_a_batch(adapt_on):
    expected, got = _both(lambda keras, tf: _full_space(keras, tf, adapt_on=adapt_on)(RAW))
    # age 1, code 5 (hashing_dim), fare 4, height 1, rooms 4 (max_tokens), score 1, city 5 + OOV, zip 7, crosses 6 + 3
    assert expected.shape == (N, 1 + 5 + 4 + 1 + 4 + 1 + 6 + 7 + 6 + 3)
    _assert_same(expected, got)


def test_dict_encoding_with_int_outputs():
    def run(keras, tf):
        fs_cls = keras.utils.FeatureSpace
        space = fs_cls({"city": fs_cls.string_categorical(output_mode="int", name="city"),
                        "rooms": fs_cls.integer_categorical(output_mode="int", num_oov_indices=2, name="rooms"),
                        "fare": fs_cls.float_discretized(num_bins=3, output_mode="int", name="fare"),
                        "code": fs_cls.integer_hashed(num_bins=4, output_mode="int", name="code"),
                        "score": "float"},
                       crosses=[fs_cls.cross(("city", "rooms"), crossing_dim=8, output_mode="int"),
                                fs_cls.cross(("fare", "code"), crossing_dim=5)],
                       output_mode="dict")
        data = {key: RAW[key] for key in ("city", "rooms", "fare", "code", "score")}
        space.adapt(tf.data.Dataset.from_tensor_slices(data).batch(8))
        return space(data), space({key: value[:3, None] for key, value in data.items()})

    (expected, expected_2d), (got, got_2d) = _both(run)
    _assert_same(expected, got)
    _assert_same(expected_2d, got_2d)


@pytest.mark.parametrize("output_mode", ["concat", "dict"])
def test_single_example_of_scalars(output_mode):
    def run(keras, tf):
        space = _full_space(keras, tf, output_mode=output_mode)
        return space({key: value[3] for key, value in RAW.items()})

    expected, got = _both(run)
    _assert_same(expected, got)


@pytest.mark.parametrize("batched", [True, False])
def test_inside_dataset_map(batched):
    def run(keras, tf):
        space = _full_space(keras, tf)
        dataset = tf.data.Dataset.from_tensor_slices((RAW, np.arange(N)))
        if batched:
            dataset = dataset.batch(7)
        mapped = dataset.map(lambda x, y: (space(x), y))
        return [(np.asarray(x), np.asarray(y)) for x, y in mapped]

    expected, got = _both(run)
    assert len(got) == len(expected)
    for (x_expected, y_expected), (x_got, y_got) in zip(expected, got):
        _assert_same(x_expected, x_got)
        np.testing.assert_array_equal(y_got, y_expected)


def test_inputs_encoded_features_and_functional_model():
    def run(keras, tf):
        space = _full_space(keras, tf)
        inputs = space.get_inputs()
        encoded = space.get_encoded_features()
        model = keras.Model(inputs, encoded)
        described = {name: (tuple(x.shape), str(x.dtype), x.name) for name, x in inputs.items()}
        batch = {key: tf.constant(value[:, None]) for key, value in RAW.items()}
        return described, (tuple(encoded.shape), str(encoded.dtype)), model(batch)

    (inputs, encoded, predicted), (inputs_got, encoded_got, predicted_got) = _both(run)
    assert inputs_got == inputs
    assert encoded_got == encoded
    _assert_same(predicted, predicted_got)


def test_dict_mode_encoded_features():
    def run(keras, tf):
        encoded = _full_space(keras, tf, output_mode="dict").get_encoded_features()
        return {name: (tuple(x.shape), str(x.dtype)) for name, x in encoded.items()}

    expected, got = _both(run)
    assert got == expected


def test_preprocessors_and_crossers():
    def run(keras, tf):
        space = _full_space(keras, tf)
        return ({name: (type(layer).__name__, layer.name) for name, layer in space.preprocessors.items()},
                {name: (type(layer).__name__, layer.name, layer.num_bins) for name, layer in space.crossers.items()},
                [(type(c).__name__, c.name, c.feature_names, c.crossing_dim, c.output_mode) for c in space.crosses],
                space.preprocessors["city"].get_vocabulary())

    expected, got = _both(run)
    assert got == expected


def test_custom_feature():
    def run(keras, tf):
        fs_cls = keras.utils.FeatureSpace
        text = {"text": np.array(["cat", "dog", "dog", "owl"]), "bucket": np.array([0, 2, 1, 2])}
        space = fs_cls({
            "text": fs_cls.feature(preprocessor=keras.layers.StringLookup(num_oov_indices=2),
                                   dtype="string", output_mode="one_hot"),
            "bucket": fs_cls.feature(preprocessor=keras.layers.Hashing(num_bins=3),
                                     dtype="int32", output_mode="one_hot"),
        })
        space.adapt(tf.data.Dataset.from_tensor_slices(text))
        return space(text)

    expected, got = _both(run)
    _assert_same(expected, got)


def test_no_adaptable_feature_needs_no_adapt():
    def run(keras, tf):
        fs_cls = keras.utils.FeatureSpace
        space = fs_cls({"a": "float", "b": fs_cls.float_rescaled(scale=3.0, name="b"),
                        "c": fs_cls.feature("float32", keras.layers.Normalization(mean=2.0, variance=4.0), "float")})
        return space({"a": [1.0, 2.0], "b": [0.5, 3.0], "c": [4.0, 0.0]})

    expected, got = _both(run)
    _assert_same(expected, got)


def test_config_round_trip():
    def run(keras, tf):
        space = _full_space(keras, tf)
        config = space.get_config()
        rebuilt = keras.utils.FeatureSpace.from_config(config)
        serialized = keras.saving.serialize_keras_object(space)
        return (json.loads(json.dumps(config)), json.loads(json.dumps(rebuilt.get_config())),
                {key: serialized[key] for key in ("module", "class_name", "registered_name")},
                type(rebuilt.features["score"].preprocessor).__name__)

    (config, rebuilt, header, identity), (config_got, rebuilt_got, header_got, identity_got) = _both(run)
    assert config_got == config
    assert rebuilt_got == rebuilt == config
    assert header_got == header
    assert identity_got == identity


@pytest.mark.parametrize("writer,reader", [("vfw", "vfw"), ("vfw", "real"), ("real", "vfw")])
def test_keras_file_round_trip(tmp_path, writer, reader):
    path = str(tmp_path / "space.keras")
    keras, tf = BACKENDS[writer]
    space = _full_space(keras, tf)
    expected = np.asarray(_full_space(*BACKENDS["real"])(RAW))
    if writer == "vfw":
        space.save(path)
    else:
        keras.saving.save_model(space, path)
    loaded = BACKENDS[reader][0].saving.load_model(path)
    assert type(loaded).__name__ == "FeatureSpace"
    _assert_same(expected, np.asarray(loaded(RAW)))


def test_save_model_of_dict_space(tmp_path):
    path = str(tmp_path / "space.keras")
    space = _full_space(vfw_keras, vfw_tf, output_mode="dict")
    vfw_keras.saving.save_model(space, path)
    expected = _numpy(_full_space(real_keras, real_tf, output_mode="dict")(RAW))
    _assert_same(expected, _numpy(vfw_keras.saving.load_model(path)(RAW)))


def _error(fn):
    """``(exception type name, message)`` of ``fn()``."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def _specs_error(keras, **kwargs):
    return _error(lambda: keras.utils.FeatureSpace(**kwargs))


ERROR_CASES = {
    "empty": lambda keras, tf: _specs_error(keras, features={}),
    "bad type": lambda keras, tf: _specs_error(keras, features={"a": "floats"}),
    "bad output mode": lambda keras, tf: _specs_error(keras, features={"a": "float"}, output_mode="stack"),
    "unknown crossed feature": lambda keras, tf: _specs_error(keras, features={"a": "float"}, crosses=[("a", "z")]),
    "no crossing dim": lambda keras, tf: _specs_error(keras, features={"a": "float"}, crosses=[("a", "a")],
                                                      crossing_dim=None),
    "cross output mode": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace.cross(("a", "b"), 4, "float")),
    "feature output mode": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace.feature("float32", None, "x")),
    "categorical output mode": lambda keras, tf: _error(
        lambda: keras.utils.FeatureSpace.integer_categorical(output_mode="multi_hot", name="x")),
    "call before adapt": lambda keras, tf: _error(
        lambda: keras.utils.FeatureSpace({"a": "float_normalized"})({"a": [1.0]})),
    "inputs before adapt": lambda keras, tf: _error(
        lambda: keras.utils.FeatureSpace({"a": "string_categorical"}).get_inputs()),
    "unknown key": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace({"a": "float"})({"b": [1.0]})),
    "call with a list": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace({"a": "float"})([1.0])),
    "adapt on a list": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace({"a": "float"}).adapt([1.0])),
    "concat of int features": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace(
        {"a": keras.utils.FeatureSpace.integer_hashed(3, output_mode="int", name="a"), "b": "float"})
        ({"a": [1], "b": [2.0]})),
    "one hot of floats": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace(
        {"a": keras.utils.FeatureSpace.feature("float32", keras.layers.Rescaling(2.0), "one_hot")}).get_inputs()),
    "one hot of unknown cardinality": lambda keras, tf: _error(lambda: keras.utils.FeatureSpace(
        {"a": keras.utils.FeatureSpace.feature("int32", keras.layers.Identity(), "one_hot")}).get_inputs()),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors(case):
    expected, got = _both(ERROR_CASES[case])
    assert got[0] == expected[0]
    if case not in ("call with a list", "adapt on a list"):  # these messages print the objects' reprs
        assert got[1] == expected[1]
