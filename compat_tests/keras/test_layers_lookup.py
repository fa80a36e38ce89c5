"""keras.layers.IntegerLookup against real Keras 3.15.1: adapt's vocabulary order, index layout with mask and oov
tokens, the encoding modes, invert, output shapes/dtypes, get_config, and use in a model under fit."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402

INPUTS = [np.array([12, 0, 99, 42]), np.array([[12], [0], [99]]), np.array([[12, 0, 36], [42, 42, 7]]),
          np.array([[12, 36], [1138, 5]], np.int32)]
CONFIGS = [
    {}, {"mask_token": 0}, {"num_oov_indices": 2}, {"num_oov_indices": 3, "mask_token": 0, "oov_token": -7},
    {"output_mode": "one_hot"}, {"output_mode": "one_hot", "mask_token": 0},
    {"output_mode": "multi_hot"}, {"output_mode": "multi_hot", "mask_token": 0, "num_oov_indices": 2},
    {"output_mode": "count"}, {"output_mode": "count", "mask_token": 0},
]


def _both(**config):
    return keras.layers.IntegerLookup(**config), vkeras.layers.IntegerLookup(**config)


def _same(want, got):
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_lookup_with_a_vocabulary(config):
    real, ours = _both(vocabulary=[12, 36, 1138, 42], **config)
    assert ours.get_vocabulary() == real.get_vocabulary()
    assert ours.get_vocabulary(include_special_tokens=False) == real.get_vocabulary(include_special_tokens=False)
    assert ours.vocabulary_size() == real.vocabulary_size()
    assert ours.get_config() == real.get_config()
    for x in INPUTS:
        _same(real(x), ours(x))


@pytest.mark.parametrize("config", [{}, {"mask_token": 0}, {"max_tokens": 4}, {"max_tokens": 5, "mask_token": 0,
                                                                              "num_oov_indices": 2}], ids=str)
def test_adapt_orders_by_frequency(config):
    data = np.array([[3, 7, 7, 11], [42, 42, 3, 5], [5, 9, 0, 0], [0, 7, 1, 1]])
    real, ours = _both(**config)
    real.adapt(data)
    ours.adapt(data)
    assert ours.get_vocabulary() == real.get_vocabulary()
    _same(real(data), ours(data))
    real, ours = _both(**config)
    real.adapt(keras.ops.convert_to_tensor(data.ravel()))
    ours.adapt(vkeras.ops.convert_to_tensor(data.ravel()))
    assert ours.get_vocabulary() == real.get_vocabulary()


@pytest.mark.parametrize("config", [{}, {"mask_token": 0}, {"num_oov_indices": 2, "oov_token": -3}], ids=str)
def test_invert(config):
    real, ours = _both(vocabulary=[12, 36, 42], invert=True, **config)
    indices = np.array([[0, 1, 2], [3, 4, 5]])
    _same(real(indices), ours(indices))
    assert ours.get_vocabulary() == real.get_vocabulary()


def test_in_a_trained_model():
    rng = np.random.default_rng(0)
    tokens = rng.choice([3, 7, 11, 42, 50], (64, 1))
    labels = (tokens[:, 0] == 7).astype(np.float32)
    histories = []
    for k in (keras, vkeras):
        k.utils.set_random_seed(1)
        lookup = k.layers.IntegerLookup(output_mode="one_hot")
        lookup.adapt(tokens)
        inputs = k.Input((1,), dtype="int64")
        model = k.Model(inputs, k.layers.Dense(1, activation="sigmoid")(lookup(inputs)))
        model.compile(optimizer="sgd", loss="binary_crossentropy")
        histories.append(model.fit(tokens, labels, batch_size=16, epochs=2, verbose=0).history["loss"])
    np.testing.assert_allclose(histories[1], histories[0], rtol=1e-5)


def test_errors():
    for k in (keras, vkeras):
        with pytest.raises(ValueError):
            k.layers.IntegerLookup(vocabulary=[1, 2, 2])
        with pytest.raises(ValueError):
            k.layers.IntegerLookup(output_mode="one_hot", invert=True)
        with pytest.raises(ValueError):
            k.layers.IntegerLookup(vocabulary=[0, 1], mask_token=0)


@pytest.mark.parametrize("config", [{}, {"mask_token": 0}, {"max_tokens": 3, "mask_token": 0, "output_mode": "one_hot"},
                                    {"max_tokens": 3, "mask_token": 0}, {"num_oov_indices": 2, "oov_token": 7}],
                         ids=str)
def test_adapt_leaves_out_special_tokens(config):
    """The mask and oov tokens are not learned; ``max_tokens`` counts the mask's index in "int" mode only."""
    data = np.array([3, 3, 5, 7, 7, 7, 9, -1, -1, -1, -1, 0, 0, 0, 0, 0])
    real, ours = _both(name="lookup", **config)
    assert ours.get_config() == real.get_config()  # vocabulary_size None before a vocabulary is set
    real.adapt(data)
    ours.adapt(data)
    assert ours.get_vocabulary() == [int(t) for t in real.get_vocabulary()]
    assert ours.get_config() == real.get_config()
    _same(real(data), ours(data))


@pytest.mark.parametrize("config", [{}, {"mask_token": 0, "num_oov_indices": 2}, {"invert": True}], ids=str)
def test_set_vocabulary_with_special_tokens(config):
    real, ours = _both(name="lookup", **config)
    vocabulary = real.get_vocabulary() + [4, 5]
    real.set_vocabulary(vocabulary)
    ours.set_vocabulary(vocabulary)
    assert ours.get_vocabulary() == [int(t) for t in real.get_vocabulary()]
    assert ours.get_config() == real.get_config()


def test_symbolic_outputs():
    for output_mode in ("int", "one_hot", "multi_hot", "count"):
        real, ours = _both(vocabulary=[3, 4], output_mode=output_mode)
        want = real.compute_output_spec(keras.KerasTensor((None, 2), dtype="int64"))
        got = ours.compute_output_spec(vkeras.KerasTensor((None, 2), dtype="int64"))
        assert (got.shape, got.dtype) == (want.shape, want.dtype)


def _error(fn):
    try:
        fn()
    except Exception as e:  # compared with the other library's
        return type(e).__name__, str(e).split("\n")[0][-60:]
    return None


@pytest.mark.parametrize("case", [
    lambda k: k.layers.IntegerLookup(vocabulary=[]),
    lambda k: k.layers.IntegerLookup(max_tokens=3).set_vocabulary([1, 2, 3]),
    lambda k: k.layers.IntegerLookup(invert=True).set_vocabulary([1, -1, 3]),
    lambda k: k.layers.IntegerLookup(vocabulary=[4, 5], name="lookup").adapt(np.array([1, 2])),
    lambda k: k.layers.IntegerLookup(output_mode="one_hot", vocabulary=[1, 2]).set_vocabulary([1, 2, 3]),
], ids=["empty", "max_tokens", "oov_token", "adapt_after_vocabulary", "size_change"])
def test_vocabulary_errors(case):
    real, ours = _error(lambda: case(keras)), _error(lambda: case(vkeras))
    assert real is not None and ours is not None
    assert ours == real


def test_encoding_without_a_vocabulary_is_an_error():
    for k in (keras, vkeras):
        with pytest.raises(RuntimeError, match="you must set the layer's vocabulary before calling it"):
            k.layers.IntegerLookup(output_mode="one_hot")(np.array([1, 2]))
