"""Nodes of older opsets, rewritten by the importer into the engine's newest forms, against ONNX's reference
evaluator running the same old-opset model (numpy where the reference lacks the old version)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.onnx.models import F, assert_matches_reference, model, tensor
from vfw.onnx_io import load

I64 = TensorProto.INT64
RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)


def node_model(op, inputs, attrs, opset, n_outputs=1, extra_inputs=()):
    names = ["x"] + [name for name, _ in extra_inputs]
    outputs = [f"y{k}" for k in range(n_outputs)]
    graph_inputs = [tensor("x", F, None)] + [tensor(name, helper.np_dtype_to_tensor_dtype(v.dtype), None)
                                             for name, v in extra_inputs]
    return model([helper.make_node(op, names + list(inputs), outputs, **attrs)], graph_inputs,
                 [tensor(o, 0, None) for o in outputs], opset=opset)


CASES = [
    ("ReduceSum", {"axes": [1], "keepdims": 0}, 11),
    ("ReduceSum", {}, 11),
    ("ReduceMean", {"axes": [0, 2]}, 13),
    ("ReduceMax", {"axes": [-1], "keepdims": 0}, 13),
    ("ReduceL2", {"axes": [1]}, 11),
    ("ReduceLogSumExp", {"axes": [2]}, 13),
    ("Unsqueeze", {"axes": [0, 4]}, 11),
    ("Clip", {"min": -0.5, "max": 0.7}, 6),
    ("Clip", {"max": 0.1}, 6),
    ("Pad", {"pads": [0, 1, 0, 0, 0, 2], "value": 1.5}, 2),
    ("Pad", {"pads": [1, 0, 0, 1, 0, 0], "mode": "reflect"}, 2),
    ("Slice", {"starts": [0, 1], "ends": [1, 100], "axes": [0, 2]}, 1),
    ("Slice", {"starts": [1], "ends": [-1]}, 9),
    ("Split", {"axis": 2, "split": [1, 3]}, 11),
    ("Dropout", {"ratio": 0.3}, 7),
    ("Transpose", {"perm": [2, 0, 1]}, 1),
    ("Flatten", {"axis": 2}, 1),
]


@pytest.mark.parametrize("op,attrs,opset", CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_old_opset_node(op, attrs, opset):
    outputs = 2 if op == "Split" else 1
    assert_matches_reference(node_model(op, [], attrs, opset, outputs), {"x": X})


def _coerced_2d(x, axis, fn):
    """Before opset 13: normalize over all dims from ``axis`` on, as one (ONNX's reference has only the newest)."""
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1).astype(np.float64)
    return fn(flat).reshape(x.shape).astype(x.dtype)


def _softmax(rows):
    e = np.exp(rows - rows.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("op,fn", [
    ("Softmax", _softmax), ("LogSoftmax", lambda rows: np.log(_softmax(rows))),
    ("Hardmax", lambda rows: (np.arange(rows.shape[1]) == rows.argmax(axis=1)[:, None]).astype(np.float64))])
@pytest.mark.parametrize("axis", [None, 0, 2])
def test_softmax_family_before_opset_13_flattens(op, fn, axis):
    attrs = {} if axis is None else {"axis": axis}
    out = load(node_model(op, [], attrs, 11)).run([X])[0]
    np.testing.assert_allclose(out, _coerced_2d(X, 1 if axis is None else axis, fn), rtol=1e-5, atol=1e-6)


def test_split_equal_parts_before_opset_18():
    assert_matches_reference(node_model("Split", [], {"axis": 2}, 13, n_outputs=2), {"x": X})
    assert_matches_reference(node_model("Split", [], {"axis": 1}, 11, n_outputs=3), {"x": X})


def test_squeeze_and_topk_attributes():
    x = RNG.standard_normal((3, 1, 4)).astype(np.float32)
    assert_matches_reference(node_model("Squeeze", [], {"axes": [1]}, 11), {"x": x})
    assert_matches_reference(node_model("TopK", [], {"k": 2, "axis": 2}, 1, n_outputs=2), {"x": x})


def test_batch_norm_and_group_norm_versions():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    params = [(n, RNG.uniform(0.5, 1.5, 4).astype(np.float32)) for n in ("s", "b", "m", "v")]
    s, b, m, v = (p[:, None] for _, p in params)
    # ONNX's reference has no opset-6 version and, at opset 9, normalizes with batch statistics (it fills in
    # momentum): the spec's inference formula in numpy is the oracle.
    for opset, attrs in ((6, {"epsilon": 1e-3, "is_test": 1}), (9, {"epsilon": 1e-3})):
        bn = node_model("BatchNormalization", [], attrs, opset, extra_inputs=params)
        np.testing.assert_allclose(load(bn).run([x] + [p for _, p in params])[0],
                                   (x - m) / np.sqrt(v + 1e-3) * s + b, rtol=1e-5, atol=1e-6)
    group = [(n, RNG.uniform(0.5, 1.5, 2).astype(np.float32)) for n in ("scale", "bias")]
    gn = node_model("GroupNormalization", [], {"num_groups": 2}, 18, extra_inputs=group)
    assert_matches_reference(gn, {"x": x, **dict(group)}, rtol=1e-4, atol=1e-5)


def test_upsample_and_resize_10_are_asymmetric():
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    scales = ("scales", np.array([1, 1, 2, 3], np.float32))
    assert_matches_reference(node_model("Upsample", [], {"mode": "nearest"}, 9, extra_inputs=[scales]),
                             {"x": x, "scales": scales[1]})
    up7 = node_model("Upsample", [], {"mode": "nearest", "scales": [1.0, 1.0, 2.0, 2.0]}, 7)
    np.testing.assert_array_equal(load(up7).run([x])[0], x.repeat(2, axis=2).repeat(2, axis=3))
    # Resize-10 linear: asymmetric source coordinates x_out / scale, clamped at the border (numpy oracle).
    resized = load(node_model("Resize", [], {"mode": "linear"}, 10, extra_inputs=[scales])).run([x, scales[1]])[0]
    cols = np.minimum(np.arange(9) / 3, 2)
    left = np.floor(cols).astype(int)
    right = np.minimum(left + 1, 2)
    rows = np.minimum(np.arange(4) / 2, 1)
    top, bottom = np.floor(rows).astype(int), np.minimum(np.floor(rows).astype(int) + 1, 1)
    img = x[0, 0]
    horizontal = lambda r: img[r][:, left] * (1 - (cols - left)) + img[r][:, right] * (cols - left)  # noqa: E731
    expected = horizontal(top) * (1 - (rows - top))[:, None] + horizontal(bottom) * (rows - top)[:, None]
    np.testing.assert_allclose(resized[0, 0], expected, rtol=1e-6)


def test_legacy_broadcast_and_prelu():
    a = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    bias = RNG.standard_normal(3).astype(np.float32)
    m = model([helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=1)],
              [tensor("a", F, [2, 3, 4, 5]), tensor("b", F, [3])], [tensor("y", F, None)], opset=6)
    np.testing.assert_allclose(load(m).run([a, bias])[0], a + bias[None, :, None, None], rtol=1e-6)
    m = model([helper.make_node("Mul", ["a", "b"], ["y"], broadcast=1)],
              [tensor("a", F, [2, 3, 4, 5]), tensor("b", F, [5])], [tensor("y", F, None)], opset=6)
    b5 = RNG.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(load(m).run([a, b5])[0], a * b5, rtol=1e-6)
    m = model([helper.make_node("PRelu", ["a", "slope"], ["y"])], [tensor("a", F, [2, 3, 4, 5])],
              [tensor("y", F, None)], [("slope", np.array([0.1, 0.2, 0.3], np.float32))], opset=6)
    expected = np.where(a > 0, a, a * np.array([0.1, 0.2, 0.3], np.float32)[None, :, None, None])
    np.testing.assert_allclose(load(m).run([a])[0], expected, rtol=1e-6)


def test_cast_with_a_type_name_and_scatter():
    m = model([helper.make_node("Cast", ["x"], ["y"], to="INT32")], [tensor("x", F, [3])],
              [tensor("y", TensorProto.INT32, [3])], opset=5)
    np.testing.assert_array_equal(load(m).run([np.array([1.7, -2.2, 3.0], np.float32)])[0], [1, -2, 3])
    data, idx = np.zeros((3, 3), np.float32), np.array([[1, 0, 2]], np.int64)
    upd = np.array([[1.0, 1.1, 1.2]], np.float32)
    m = model([helper.make_node("Scatter", ["d", "i", "u"], ["y"], axis=0)],
              [tensor("d", F, [3, 3]), tensor("i", I64, [1, 3]), tensor("u", F, [1, 3])], [tensor("y", F, None)],
              opset=9)
    expected = data.copy()
    expected[idx[0], [0, 1, 2]] = upd[0]
    np.testing.assert_array_equal(load(m).run([data, idx, upd])[0], expected)


def test_dft_17_axis_attribute():
    signal = RNG.standard_normal((2, 8, 1)).astype(np.float32)
    m = model([helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=1)], [tensor("x", F, [2, 8, 1])],
              [tensor("y", F, None)], opset=17)
    assert_matches_reference(m, {"x": signal}, rtol=1e-4, atol=1e-5)
