"""ai.onnx.ml ops (LabelEncoder, TreeEnsemble, Binarizer, ArrayFeatureExtractor) against ONNX's reference."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, onnx_run, rand, vfw_run
from vfw.core import DTypeError, OpAttributeError, run

ML = "ai.onnx.ml"


def _compare(op_type, inputs, attrs, opset):
    ours = vfw_run(op_type, inputs, attrs)
    theirs = onnx_run(op_type, inputs, attrs, len(ours), opset=opset, domain=ML)
    for a, e in zip(ours, theirs):
        if e.dtype.kind == "U":  # the reference returns numpy unicode strings
            e = e.astype(object)
        assert_same(a, e, what=op_type)


@pytest.mark.parametrize("keys,values,x", [
    ({"keys_strings": ["a", "b", "c"]}, {"values_int64s": [1, 2, 3], "default_int64": 42},
     np.array(["a", "c", "z", "b"], dtype=object)),
    ({"keys_int64s": [5, 7, 5]}, {"values_strings": ["five", "seven", "again"], "default_string": "?"},
     np.array([[5, 6], [7, 5]], np.int64)),
    ({"keys_floats": [0.5, 2.0]}, {"values_floats": [1.0, 3.0]}, np.array([0.5, np.nan, 1.0, 2.0], np.float32)),
    ({"keys_tensor": np.array([1, 2], np.int32)}, {"values_tensor": np.array([10, 20], np.int16),
                                                   "default_tensor": np.array([-5], np.int16)},
     np.array([2, 3, 1], np.int32)),
])
def test_label_encoder(keys, values, x):
    _compare("LabelEncoder", [x], {**keys, **values}, opset=4)


def test_label_encoder_nan_key_matches_any_nan():
    # The spec: a NaN key matches every NaN input (ONNX's reference looks NaN up in a dict, which never matches).
    x = np.array([0.5, np.nan, 1.0, -np.nan], np.float32)
    out = run("LabelEncoder", x, keys_floats=[0.5, float("nan")], values_floats=[1.0, -1.0])
    assert_same(out, np.array([1.0, -1.0, -0.0, -1.0], np.float32))


def test_label_encoder_errors():
    with pytest.raises(OpAttributeError, match="exactly one of the keys"):
        run("LabelEncoder", np.array([1], np.int64), values_int64s=[1])
    with pytest.raises(DTypeError, match="does not match keys"):
        run("LabelEncoder", np.array([1.0], np.float32), keys_int64s=[1], values_int64s=[2])


def _tree_attrs(aggregate):
    # Two trees: tree 0 splits on feature 0 (LEQ) then feature 2 (member of {1, 3}); tree 1 is one GT split.
    return {
        "aggregate_function": aggregate, "n_targets": 2, "tree_roots": [0, 2],
        "nodes_featureids": [0, 2, 1], "nodes_modes": np.array([0, 6, 3], np.uint8),
        "nodes_splits": np.array([0.5, 0.0, -1.0], np.float32),
        "nodes_truenodeids": [1, 0, 2], "nodes_trueleafs": [0, 1, 1],
        "nodes_falsenodeids": [1, 1, 3], "nodes_falseleafs": [1, 1, 1],
        "nodes_missing_value_tracks_true": [1, 0, 0],
        "membership_values": np.array([1.0, 3.0, np.nan], np.float32),
        "leaf_targetids": [0, 1, 0, 1], "leaf_weights": np.array([1.5, -2.0, 0.25, 4.0], np.float32),
    }


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble(aggregate):
    x = np.array([[0.2, 0.0, 1.0], [0.9, -3.0, 3.0], [np.nan, 5.0, 2.0], [0.5, -1.0, 3.0]], np.float32)
    _compare("TreeEnsemble", [x], _tree_attrs(aggregate), opset=5)
    _compare("TreeEnsemble", [x.astype(np.float64)], _tree_attrs(aggregate), opset=5)


def test_tree_ensemble_logistic_transform():
    x = np.array([[0.2, 0.0, 1.0], [0.9, -3.0, 3.0]], np.float32)
    raw = run("TreeEnsemble", x, **_tree_attrs(1))
    assert_same(run("TreeEnsemble", x, **_tree_attrs(1), post_transform=2), (1 / (1 + np.exp(-raw.astype(
        np.float64)))).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
def test_binarizer(dtype):
    _compare("Binarizer", [rand((3, 4), dtype, seed=2)], {"threshold": 0.5}, opset=1)


@pytest.mark.parametrize("shape", [(5,), (2, 5), (2, 3, 5)])
def test_array_feature_extractor(shape):
    _compare("ArrayFeatureExtractor", [rand(shape, seed=3), np.array([4, 0, 2], np.int64)], {}, opset=1)
    _compare("ArrayFeatureExtractor", [rand(shape, np.int64, seed=4), np.array([[1]], np.int64)], {}, opset=1)
