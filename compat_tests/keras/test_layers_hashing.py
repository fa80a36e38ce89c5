"""Keras Hashing and HashedCrossing layers, and IntegerLookup/StringLookup hashed oov indices, against real Keras
3.15.1: bins bit-exact (FarmHash, salted SipHash, TF's sparse-cross fingerprints), encodings, dtypes, shapes,
configs, symbolic use, errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real = pytest.importorskip("keras")
from vfw.tensorflow import keras  # noqa: E402

RNG = np.random.default_rng(3)
WORDS = np.array([["cat", "dog", ""], ["bird", "cat", "a much longer token with spaces"]])
INTS = RNG.integers(-10**12, 10**12, size=(4, 3))

HASHING_CASES = [
    (dict(num_bins=5), [["a"], ["b"], ["c"]]),
    (dict(num_bins=1000), WORDS),
    (dict(num_bins=7), INTS),
    (dict(num_bins=7), INTS.astype(np.int32)),
    (dict(num_bins=9), np.array([[1.5, 2.7], [3.0, -4.2]], np.float32)),
    (dict(num_bins=5, mask_value=""), WORDS),
    (dict(num_bins=1, mask_value=""), WORDS),
    (dict(num_bins=5, mask_value=0), np.array([0, 1, 2, 0])),
    (dict(num_bins=50, salt=[133, 137]), WORDS),
    (dict(num_bins=50, salt=7), INTS),
    (dict(num_bins=50, salt=(2**40, -3), mask_value="cat"), WORDS),
    (dict(num_bins=5, salt=7, output_mode="one_hot"), ["a", "b", "c"]),
    (dict(num_bins=5, output_mode="one_hot"), [["a"], ["b"]]),
    (dict(num_bins=5, output_mode="one_hot"), WORDS),
    (dict(num_bins=6, output_mode="multi_hot"), WORDS),
    (dict(num_bins=6, output_mode="count"), WORDS),
    (dict(num_bins=6, output_mode="count"), "a"),
    (dict(num_bins=6), "a"),
    (dict(num_bins=6, output_mode="multi_hot"), ["x", "y", "x"]),
    (dict(num_bins=5, dtype="int32"), ["a"]),
    (dict(num_bins=5, output_mode="count", dtype="float64"), WORDS),
]


def _assert_same(got, want):
    assert got.dtype.name == want.dtype.name and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("kwargs,inputs", HASHING_CASES)
def test_hashing_values(kwargs, inputs):
    _assert_same(keras.layers.Hashing(**kwargs)(inputs), real.layers.Hashing(**kwargs)(inputs))


@pytest.mark.parametrize("kwargs", [dict(num_bins=3), dict(num_bins=4, salt=2, mask_value="m", output_mode="count"),
                                    dict(num_bins=4, salt=(1, 2), output_mode="one_hot", name="h")])
def test_hashing_config_roundtrip(kwargs):
    ours, theirs = keras.layers.Hashing(**kwargs), real.layers.Hashing(**kwargs)
    config = ours.get_config()
    assert config == theirs.get_config()
    rebuilt = keras.layers.Hashing.from_config(config)
    _assert_same(rebuilt(WORDS), theirs(WORDS))


@pytest.mark.parametrize("output_mode", ["int", "one_hot", "multi_hot"])
def test_hashing_symbolic(output_mode):
    def build(lib):
        inputs = lib.Input(shape=(3,), dtype="string")
        return lib.Model(inputs, lib.layers.Hashing(8, output_mode=output_mode)(inputs))
    ours, theirs = build(keras), build(real)
    assert ours.outputs[0].shape == theirs.outputs[0].shape and ours.outputs[0].dtype == theirs.outputs[0].dtype
    _assert_same(ours(WORDS), theirs(WORDS))


HASHING_ERRORS = [dict(num_bins=0), dict(num_bins=None), dict(num_bins=3, output_mode="bad"),
                  dict(num_bins=3, dtype="float32"), dict(num_bins=3, sparse=True), dict(num_bins=3, salt="x"),
                  dict(num_bins=3, salt=[1, 2, 3])]


@pytest.mark.parametrize("kwargs", HASHING_ERRORS)
def test_hashing_errors(kwargs):
    with pytest.raises(ValueError) as want:
        real.layers.Hashing(**kwargs)
    with pytest.raises(ValueError) as got:
        keras.layers.Hashing(**kwargs)
    assert str(got.value) == str(want.value)


TEXT = np.array(["A", "B", "A", "B", "A", "a much longer string"])
NUMBERS = np.array([101, 101, 101, 102, 102, -(2**40)])
CROSSING_CASES = [
    (dict(num_bins=5), (TEXT, NUMBERS)),
    (dict(num_bins=5, output_mode="one_hot"), (TEXT, NUMBERS)),
    (dict(num_bins=10**9), (NUMBERS, TEXT)),
    (dict(num_bins=1000), (TEXT.reshape(-1, 1), NUMBERS.reshape(-1, 1), TEXT.reshape(-1, 1))),
    (dict(num_bins=1000, output_mode="one_hot"), (TEXT.reshape(-1, 1), NUMBERS.reshape(-1, 1))),
    (dict(num_bins=7), ("x", 3)),
    (dict(num_bins=7, output_mode="one_hot"), ("x", 3)),
    (dict(num_bins=11), (NUMBERS.astype(np.int32), NUMBERS)),
    (dict(num_bins=11, dtype="int32"), (TEXT, TEXT)),
]


@pytest.mark.parametrize("kwargs,inputs", CROSSING_CASES)
def test_hashed_crossing_values(kwargs, inputs):
    _assert_same(keras.layers.HashedCrossing(**kwargs)(inputs), real.layers.HashedCrossing(**kwargs)(inputs))


def test_hashed_crossing_config_and_symbolic():
    for kwargs in (dict(num_bins=3), dict(num_bins=4, output_mode="one_hot", name="cross")):
        assert keras.layers.HashedCrossing(**kwargs).get_config() == real.layers.HashedCrossing(**kwargs).get_config()

    def build(lib):
        first, second = lib.Input(shape=(1,), dtype="string"), lib.Input(shape=(1,), dtype="int64")
        return lib.Model([first, second], lib.layers.HashedCrossing(16, output_mode="one_hot")([first, second]))
    ours, theirs = build(keras), build(real)
    assert ours.outputs[0].shape == theirs.outputs[0].shape
    data = [TEXT.reshape(-1, 1), NUMBERS.reshape(-1, 1)]
    _assert_same(ours(data), theirs(data))


CROSSING_ERRORS = [
    (dict(num_bins=3, output_mode="count"), None),
    (dict(num_bins=3), TEXT),
    (dict(num_bins=3), (TEXT,)),
    (dict(num_bins=3), (TEXT, NUMBERS[:3])),
    (dict(num_bins=3), (TEXT.reshape(2, 3), TEXT.reshape(2, 3))),
    (dict(num_bins=3), (TEXT, NUMBERS.astype(np.float32))),
]


@pytest.mark.parametrize("kwargs,inputs", CROSSING_ERRORS)
def test_hashed_crossing_errors(kwargs, inputs):
    def run(lib):
        lib.layers.HashedCrossing(**kwargs)(inputs)
    with pytest.raises(ValueError):
        run(real)
    with pytest.raises(ValueError):
        run(keras)


LOOKUP_CASES = [
    ("IntegerLookup", dict(vocabulary=[1, 2, 3], num_oov_indices=4, oov_method="farmhash"), INTS),
    ("IntegerLookup", dict(vocabulary=[1, 2, 3], num_oov_indices=5, oov_method="farmhash", salt=5), INTS),
    ("IntegerLookup", dict(vocabulary=[1, 2], num_oov_indices=3, oov_method="farmhash", salt=(7, 9), mask_token=0),
     np.array([0, 1, 5, 6, 2, 7])),
    ("StringLookup", dict(vocabulary=["cat", "dog"], num_oov_indices=3), WORDS),
    ("StringLookup", dict(vocabulary=["cat", "dog"], num_oov_indices=4, salt=(1, 2)), WORDS),
    ("StringLookup", dict(vocabulary=["cat", "dog"], num_oov_indices=4, salt=11, mask_token="", output_mode="count"),
     WORDS),
]


@pytest.mark.parametrize("name,kwargs,inputs", LOOKUP_CASES)
def test_lookup_hashed_oov_indices(name, kwargs, inputs):
    ours, theirs = getattr(keras.layers, name)(**kwargs), getattr(real.layers, name)(**kwargs)
    _assert_same(ours(inputs), theirs(inputs))
    assert ours.get_config()["salt"] == theirs.get_config()["salt"]


def test_lookup_salt_errors():
    for lib in (real, keras):
        with pytest.raises(ValueError, match="salt"):
            lib.layers.IntegerLookup(vocabulary=[1], oov_method="farmhash", salt="x")
        with pytest.raises(ValueError, match="salt"):
            lib.layers.IntegerLookup(vocabulary=[1], salt=3)
