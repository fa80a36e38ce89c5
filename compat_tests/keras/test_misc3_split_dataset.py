"""keras.utils.split_dataset against Keras 3.15.1: the same samples on each side, dtypes, batching and errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402


def _listed(dataset):
    return [real_tf.nest.map_structure(lambda t: (np.asarray(t).tolist(), np.asarray(t).dtype.name), e)
            for e in dataset]


def _split(lib, make, **kwargs):
    try:
        left, right = lib.keras.utils.split_dataset(make(lib), **kwargs)
    except (ValueError, TypeError) as e:
        return type(e).__name__, str(e)
    return (_listed(left), _listed(right), str(left.element_spec).replace("tf.", ""),
            getattr(left, "_tf_name", type(left).__name__))


_X = np.arange(10)
_CASES = [
    (lambda tf: _X, {"left_size": 0.8}), (lambda tf: _X, {"left_size": 0.75}), (lambda tf: _X, {"left_size": 0.25}),
    (lambda tf: _X, {"right_size": 0.25}), (lambda tf: _X, {"left_size": 3}), (lambda tf: _X, {"right_size": 3}),
    (lambda tf: _X, {"left_size": 3, "right_size": 2}), (lambda tf: _X, {"left_size": 0.3, "right_size": 0.3}),
    (lambda tf: _X, {"left_size": 0.8, "shuffle": True, "seed": 1}),
    (lambda tf: np.arange(10.0, dtype=np.float32).reshape(5, 2), {"left_size": 0.6, "shuffle": True, "seed": 5}),
    (lambda tf: (np.arange(10.0, dtype=np.float32).reshape(5, 2), np.arange(5)), {"left_size": 2}),
    (lambda tf: [_X, _X * 10], {"left_size": 0.6, "shuffle": True, "seed": 2}),
    (lambda tf: tf.data.Dataset.range(6), {"left_size": 0.5, "shuffle": True, "seed": 3}),
    (lambda tf: tf.data.Dataset.range(7).batch(3), {"left_size": 0.5}),
    (lambda tf: tf.data.Dataset.from_tensor_slices({"a": np.arange(4.0), "b": np.arange(4)}), {"left_size": 0.5}),
    (lambda tf: _X, {}), (lambda tf: _X, {"left_size": 11}), (lambda tf: _X, {"left_size": 1.5}),
    (lambda tf: _X, {"left_size": -1}), (lambda tf: _X, {"left_size": 8, "right_size": 8}),
    (lambda tf: _X, {"left_size": 0.05}), (lambda tf: _X, {"left_size": "a"}),
    (lambda tf: [1, 2, 3, 4], {"left_size": 0.5}), (lambda tf: {"a": _X}, {"left_size": 0.5}),
]


@pytest.mark.parametrize("index", range(len(_CASES)))
def test_split_dataset_matches_keras(index):
    make, kwargs = _CASES[index]
    want = _split(real_tf, make, **kwargs)
    got = _split(vtf, make, **kwargs)
    assert got == want


def test_split_dataset_unseeded_shuffle_keeps_samples():
    left, right = vtf.keras.utils.split_dataset(np.arange(20), left_size=0.5, shuffle=True)
    values = sorted(int(v) for v in [*left, *right])
    assert values == list(range(20))
