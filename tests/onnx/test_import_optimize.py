"""Inference rewrites at import (``_import_optimize``): results against ONNX's reference evaluator, and the
rewritten graph's ops (so that a rewrite that silently stops applying is noticed).  The convolution models take one
image, which the channels-last layout rewrite leaves as it is (``test_import_layout.py`` tests that one)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.onnx.models import assert_matches_reference, model, tensor
from vfw.onnx_io import load

RNG = np.random.default_rng(0)


def _f32(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


def _op_types(m, opt_level=1):
    return [op.type for op in load(m, opt_level=opt_level).graph.op]


def _conv_bn(channels=6, group=1, conv_bias=True, reread=False, training=False):
    """Conv(3x3, pads 1) -> BatchNormalization on a (1, 4, 5, 5) input; the statistics are random."""
    conv_inputs = ["x", "w"] + (["b"] if conv_bias else [])
    nodes = [helper.make_node("Conv", conv_inputs, ["c"], pads=[1, 1, 1, 1], group=group),
             helper.make_node("BatchNormalization", ["c", "s", "t", "m", "v"], ["y"], epsilon=1e-3,
                              **({"training_mode": 1} if training else {}))]
    outputs = [tensor("y")]
    if reread:
        nodes.append(helper.make_node("Relu", ["c"], ["r"]))
        outputs.append(tensor("r"))
    inits = [("w", _f32(channels, 4 // group, 3, 3)), ("s", _f32(channels, low=0.5, high=2.0)),
             ("t", _f32(channels)), ("m", _f32(channels)), ("v", _f32(channels, low=0.1, high=2.0))]
    if conv_bias:
        inits.append(("b", _f32(channels)))
    return model(nodes, [tensor("x", shape=[1, 4, 5, 5])], outputs, inits)


@pytest.mark.parametrize("group,conv_bias", [(1, True), (1, False), (2, True)])
def test_batch_norm_folded_into_convolution(group, conv_bias):
    m = _conv_bn(group=group, conv_bias=conv_bias)
    assert_matches_reference(m, {"x": _f32(1, 4, 5, 5)}, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["Conv"]
    assert "BatchNormalization" in _op_types(m, opt_level=0)


def test_batch_norm_stays_when_the_convolution_is_read_elsewhere():
    m = _conv_bn(reread=True)
    assert_matches_reference(m, {"x": _f32(1, 4, 5, 5)}, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["Conv", "Mul", "Add", "Relu"]  # not folded: a per-channel affine map of the Conv
    assert "BatchNormalization" in _op_types(m, opt_level=0)


@pytest.mark.parametrize("x_shape", [(2, 3, 5, 4), (2, 3, 6), (2, 3)])
def test_batch_norm_after_a_concat_is_a_per_channel_affine_map(x_shape):
    channels = 2 * x_shape[1]
    nodes = [helper.make_node("Concat", ["x", "x2"], ["c"], axis=1), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("BatchNormalization", ["r", "s", "t", "m", "v"], ["y"], epsilon=1e-2)]
    inits = [("s", _f32(channels, low=0.5, high=2)), ("t", _f32(channels)), ("m", _f32(channels)),
             ("v", _f32(channels, low=0.1, high=2))]
    m = model(nodes, [tensor("x", shape=list(x_shape)), tensor("x2", shape=list(x_shape))], [tensor("y")], inits)
    assert_matches_reference(m, {"x": _f32(*x_shape), "x2": _f32(*x_shape)}, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["Concat", "Relu", "Mul", "Add"]


def test_batch_norm_of_an_input_of_unknown_rank_or_other_dtype_stays():
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "t", "m", "v"], ["y"])]
    inits = [("s", _f32(3, low=0.5)), ("t", _f32(3)), ("m", _f32(3)), ("v", _f32(3, low=0.1))]
    m = model(nodes, [tensor("x")], [tensor("y")], inits)  # no shape: the per-channel constants' rank is unknown
    assert_matches_reference(m, {"x": _f32(2, 3, 4)}, rtol=1e-5, atol=1e-6)
    assert _op_types(m) == ["BatchNormalization"]
    half = model(nodes, [tensor("x", TensorProto.FLOAT16, [2, 3, 4])], [tensor("y", TensorProto.FLOAT16)], inits)
    assert_matches_reference(half, {"x": _f32(2, 3, 4).astype(np.float16)}, rtol=1e-2, atol=1e-2)
    assert _op_types(half) == ["BatchNormalization"]


def test_batch_norm_stays_when_its_statistics_are_inputs():
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]),
             helper.make_node("BatchNormalization", ["c", "s", "t", "m", "v"], ["y"])]
    m = model(nodes, [tensor("x", shape=[1, 2, 4, 4])] + [tensor(n, shape=[3]) for n in "stmv"], [tensor("y")],
              [("w", _f32(3, 2, 1, 1))])
    feeds = {"x": _f32(1, 2, 4, 4), "s": _f32(3), "t": _f32(3), "m": _f32(3), "v": _f32(3, low=0.1)}
    assert_matches_reference(m, feeds, rtol=1e-5, atol=1e-6)
    assert "BatchNormalization" in _op_types(m)


POOLS = {
    "2d": dict(shape=(2, 3, 9, 8), kernel_shape=[3, 3], strides=[2, 2]),
    "2d_pads": dict(shape=(1, 4, 7, 7), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "2d_asymmetric_pads": dict(shape=(1, 2, 6, 6), kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1]),
    "2d_dilated": dict(shape=(1, 2, 9, 9), kernel_shape=[2, 3], dilations=[2, 2]),
    "1d": dict(shape=(2, 3, 11), kernel_shape=[3], strides=[2], pads=[1, 0]),
    "3d": dict(shape=(1, 2, 5, 6, 4), kernel_shape=[2, 2, 2]),
    "valid": dict(shape=(1, 2, 7, 6), kernel_shape=[2, 2], strides=[2, 2], auto_pad="VALID"),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_max_pool_values_without_indices(name):
    attrs = dict(POOLS[name])
    shape = attrs.pop("shape")
    m = model([helper.make_node("MaxPool", ["x"], ["y"], **attrs)], [tensor("x", shape=list(shape))], [tensor("y")])
    assert_matches_reference(m, {"x": _f32(*shape)})
    assert "MaxPool" not in _op_types(m) and "ChannelsLastMaxPool" in _op_types(m)


def test_max_pool_of_integers_and_negative_infinity():
    x = _f32(1, 2, 6, 6)
    x[0, 0, :3, :3] = -np.inf  # a window of -inf only (padding must not win over it)
    m = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[3, 3])],
              [tensor("x", shape=[1, 2, 6, 6])], [tensor("y")])
    assert_matches_reference(m, {"x": x})
    m8 = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])],
               [tensor("x", TensorProto.UINT8, [1, 1, 4, 4])], [tensor("y", TensorProto.UINT8)])
    assert_matches_reference(m8, {"x": RNG.integers(0, 255, (1, 1, 4, 4), dtype=np.uint8)})


@pytest.mark.parametrize("name", ["2d", "2d_pads", "2d_asymmetric_pads", "1d", "3d"])
def test_relu_read_only_by_a_max_pool_moves_after_it(name):
    attrs = dict(POOLS[name])
    shape = attrs.pop("shape")
    m = model([helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("MaxPool", ["r"], ["y"], **attrs)],
              [tensor("x", shape=list(shape))], [tensor("y")])
    x = _f32(*shape)
    x[..., :2] = -np.abs(x[..., :2])  # whole windows of negatives and -inf: the Relu of their maximum is 0 too
    x[..., 0] = -np.inf
    assert_matches_reference(m, {"x": x})
    types = _op_types(m)
    assert types.index("Relu") > types.index("ChannelsLastMaxPool")


@pytest.mark.parametrize("reread, attrs", [
    (True, dict(kernel_shape=[2, 2])),  # the Relu's values are read elsewhere too
    (False, dict(kernel_shape=[2, 3], dilations=[2, 2])),  # dilated windows
])
def test_relu_stays_before_the_max_pool(reread, attrs):
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("MaxPool", ["r"], ["y"], **attrs)]
    outputs = [tensor("y")] + ([tensor("r")] if reread else [])
    m = model(nodes, [tensor("x", shape=[1, 2, 9, 9])], outputs)
    assert_matches_reference(m, {"x": _f32(1, 2, 9, 9)})
    types = _op_types(m)
    assert types.index("Relu") < types.index("ChannelsLastMaxPool")


@pytest.mark.parametrize("attrs", [dict(ceil_mode=1), dict(auto_pad="SAME_UPPER")])
def test_max_pools_the_rewrite_leaves(attrs):
    m = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], **attrs)],
              [tensor("x", shape=[1, 2, 8, 8])], [tensor("y")])
    assert_matches_reference(m, {"x": _f32(1, 2, 8, 8)})
    assert "MaxPool" in _op_types(m)


def test_max_pool_with_indices_read_stays():
    """Compared with onnxruntime: ONNX's reference evaluator computes some MaxPool indices wrongly."""
    ort = pytest.importorskip("onnxruntime")
    m = model([helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2])],
              [tensor("x", shape=[1, 2, 4, 4])], [tensor("y"), tensor("i", TensorProto.INT64)])
    x = _f32(1, 2, 4, 4)
    expected = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    for got, want in zip(load(m)(x), expected):
        np.testing.assert_array_equal(got, want)
    assert "MaxPool" in _op_types(m)


def test_constant_fill_weights_computed_at_import():
    """Weights built by ConstantOfShape (as onnx's light models do), larger than the engine folds."""
    nodes = [helper.make_node("ConstantOfShape", ["w_shape"], ["w"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.01])),
             helper.make_node("MatMul", ["x", "w"], ["y"])]
    m = model(nodes, [tensor("x", shape=[2, 600])], [tensor("y")], [("w_shape", np.asarray([600, 600], np.int64))])
    assert_matches_reference(m, {"x": _f32(2, 600)}, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["MatMul"]


def test_constant_fill_that_is_an_output_stays_fresh_each_run():
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["y"])]
    m = model(nodes, [tensor("x", shape=[1])], [tensor("y")], [("shape", np.asarray([2, 3], np.int64))])
    imported = load(m)
    first = imported(np.zeros(1, np.float32))
    first[...] = 7
    np.testing.assert_array_equal(imported(np.zeros(1, np.float32)), np.zeros((2, 3), np.float32))


def test_transposed_constant_stored_transposed():
    nodes = [helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]), helper.make_node("MatMul", ["x", "wt"], ["y"])]
    m = model(nodes, [tensor("x", shape=[3, 4, 6])], [tensor("y")], [("w", _f32(5, 6))])
    assert_matches_reference(m, {"x": _f32(3, 4, 6)}, rtol=1e-5, atol=1e-6)
    assert _op_types(m) == ["MatMul"]


def _gemm_attrs(m):
    return [dict((a.name, a.ints.values[0] if a.ints.values else a.i) for a in op.arg)
            for op in load(m).graph.op if op.type == "Gemm"]


@pytest.mark.parametrize("with_bias", [True, False])
def test_gemm_constant_weights_stored_transposed(with_bias):
    inputs = ["x", "w"] + (["b"] if with_bias else [])
    nodes = [helper.make_node("Gemm", inputs, ["y"], transB=1, alpha=0.5), helper.make_node("Relu", ["y"], ["r"])]
    inits = [("w", _f32(5, 6))] + ([("b", _f32(5))] if with_bias else [])
    m = model(nodes, [tensor("x", shape=[3, 6])], [tensor("r")], inits)
    assert_matches_reference(m, {"x": _f32(3, 6)}, rtol=1e-5, atol=1e-6)
    assert [a.get("transB", 0) for a in _gemm_attrs(m)] == [0]
    transposed = [t for t in load(m).graph.initializer if list(t.dims) == [6, 5]]
    assert len(transposed) == 1


def test_gemm_weights_read_elsewhere_or_fed_keep_their_layout():
    shared = [helper.make_node("Gemm", ["x", "w"], ["y"], transB=1), helper.make_node("Gemm", ["x", "w"], ["z"],
                                                                                       transB=1)]
    m = model(shared, [tensor("x", shape=[3, 6])], [tensor("y"), tensor("z")], [("w", _f32(5, 6))])
    assert_matches_reference(m, {"x": _f32(3, 6)}, rtol=1e-5, atol=1e-6)
    assert [a.get("transB", 0) for a in _gemm_attrs(m)] == [1, 1]
    fed = model([helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)],
                [tensor("x", shape=[3, 6]), tensor("w", shape=[5, 6])], [tensor("y")])
    assert_matches_reference(fed, {"x": _f32(3, 6), "w": _f32(5, 6)}, rtol=1e-5, atol=1e-6)
    assert [a.get("transB", 0) for a in _gemm_attrs(fed)] == [1]


def test_transpose_of_an_input_stays():
    nodes = [helper.make_node("Transpose", ["w"], ["wt"]), helper.make_node("MatMul", ["x", "wt"], ["y"])]
    m = model(nodes, [tensor("x", shape=[2, 3]), tensor("w", shape=[4, 3])], [tensor("y")])
    assert_matches_reference(m, {"x": _f32(2, 3), "w": _f32(4, 3)}, rtol=1e-5, atol=1e-6)
    assert "Transpose" in _op_types(m)


def test_absurd_constant_fill_is_left_to_fail_when_run():
    nodes = [helper.make_node("ConstantOfShape", ["shape"], ["w"]), helper.make_node("Add", ["x", "w"], ["y"])]
    m = model(nodes, [tensor("x", shape=[1])], [tensor("y")], [("shape", np.asarray([1 << 40, 1 << 20], np.int64))])
    imported = load(m)
    assert "ConstantOfShape" in [op.type for op in imported.graph.op]
    with pytest.raises((MemoryError, ValueError)):
        imported(np.zeros(1, np.float32))


def _channel_affine_model(first, scale_shape, shift_shape, x_shape=(1, 4, 5, 5)):
    """``first`` (a Conv or a BatchNormalization of x) -> Mul by a constant -> Add a constant -> Relu."""
    channels = 6 if first == "Conv" else x_shape[1]
    if first == "Conv":
        node = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
        inits = [("w", _f32(channels, x_shape[1], 3, 3))]
    else:
        node = helper.make_node("BatchNormalization", ["x", "s", "t", "m", "v"], ["c"])
        inits = [("s", _f32(channels, low=0.5, high=2)), ("t", _f32(channels)), ("m", _f32(channels)),
                 ("v", _f32(channels, low=0.1, high=2))]
    nodes = [node, helper.make_node("Mul", ["c", "scale"], ["p"]), helper.make_node("Add", ["shift", "p"], ["q"]),
             helper.make_node("Relu", ["q"], ["y"])]
    inits += [("scale", _f32(*scale_shape, low=0.5, high=2.0)), ("shift", _f32(*shift_shape))]
    return model(nodes, [tensor("x", shape=list(x_shape))], [tensor("y")], inits)


@pytest.mark.parametrize("first,scale_shape,shift_shape,x_shape", [
    ("Conv", (6, 1, 1), (1, 6, 1, 1), (1, 4, 5, 5)),
    ("Conv", (), (6, 1, 1), (1, 4, 5, 5)),
    ("BatchNormalization", (4, 1, 1), (4, 1, 1), (2, 4, 5, 5)),
    ("BatchNormalization", (4, 1), (1,), (3, 4, 7)),
])
def test_per_channel_scale_and_shift_folded(first, scale_shape, shift_shape, x_shape):
    m = _channel_affine_model(first, scale_shape, shift_shape, x_shape)
    assert_matches_reference(m, {"x": _f32(*x_shape)}, rtol=1e-5, atol=1e-5)
    # a BatchNormalization that absorbed them is then one per-channel affine map
    assert _op_types(m) == ([first] if first == "Conv" else ["Mul", "Add"]) + ["Relu"]


@pytest.mark.parametrize("first,scale_shape,shift_shape,x_shape", [
    ("Conv", (1, 1, 1, 5), (6, 1, 1), (1, 4, 5, 5)),  # the scale varies along the width: not foldable
    ("BatchNormalization", (4,), (4,), (2, 4, 4, 4)),  # (4,) broadcasts along the last axis, not the channels
])
def test_scale_along_other_axes_stays(first, scale_shape, shift_shape, x_shape):
    m = _channel_affine_model(first, scale_shape, shift_shape, x_shape)
    assert_matches_reference(m, {"x": _f32(*x_shape)}, rtol=1e-5, atol=1e-5)
    assert "Mul" in _op_types(m)


def test_shift_of_a_value_read_twice_stays():
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Add", ["c", "shift"], ["y"]),
             helper.make_node("Neg", ["c"], ["z"])]
    m = model(nodes, [tensor("x", shape=[1, 2, 4, 4])], [tensor("y"), tensor("z")],
              [("w", _f32(3, 2, 1, 1)), ("shift", _f32(3, 1, 1))])
    assert_matches_reference(m, {"x": _f32(1, 2, 4, 4)}, rtol=1e-5, atol=1e-6)
    assert _op_types(m) == ["Conv", "Add", "Neg"]


def _scaled_relu_conv_model(scale, group=1, reread=None, mul_first=False):
    """Concat -> BatchNormalization (per-channel ``scale`` for its factor) -> Relu -> Conv(3x3, pads 1, ``group``)
    on two (1, 2, 5, 5) inputs; ``reread`` names a value the graph also outputs."""
    channels = len(scale)
    mul = ["s", "c"] if mul_first else ["c", "s"]
    nodes = [helper.make_node("Concat", ["x", "x2"], ["c"], axis=1), helper.make_node("Mul", mul, ["p"]),
             helper.make_node("Add", ["p", "t"], ["q"]), helper.make_node("Relu", ["q"], ["r"]),
             helper.make_node("Conv", ["r", "w", "b"], ["y"], pads=[1, 1, 1, 1], group=group)]
    inits = [("s", np.asarray(scale, np.float32).reshape(channels, 1, 1)), ("t", _f32(channels, 1, 1)),
             ("w", _f32(6, channels // group, 3, 3)), ("b", _f32(6))]
    outputs = [tensor("y")] + ([tensor(reread)] if reread else [])
    return model(nodes, [tensor("x", shape=[1, 2, 5, 5]), tensor("x2", shape=[1, 2, 5, 5])], outputs, inits)


@pytest.mark.parametrize("group,mul_first", [(1, False), (2, True)])
def test_positive_scale_before_relu_moves_into_the_convolution(group, mul_first):
    m = _scaled_relu_conv_model([0.5, 2.0, 1.5, 0.25], group=group, mul_first=mul_first)
    feeds = {"x": _f32(1, 2, 5, 5), "x2": _f32(1, 2, 5, 5)}
    assert_matches_reference(m, feeds, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["Concat", "Add", "Relu", "Conv"]  # the Mul is gone: its scales are in the filters


@pytest.mark.parametrize("scale,reread", [
    ([0.5, -2.0, 1.5, 0.25], None),  # Relu(s * v) is not s * Relu(v) for a negative s
    ([0.5, 0.0, 1.5, 0.25], None),  # nor is Relu(v + t / s) defined for s = 0
    ([0.5, 2.0, 1.5, 0.25], "p"),  # the scaled value is read elsewhere
    ([0.5, 2.0, 1.5, 0.25], "r"),  # the Relu is read elsewhere
])
def test_scale_before_relu_stays(scale, reread):
    m = _scaled_relu_conv_model(scale, reread=reread)
    feeds = {"x": _f32(1, 2, 5, 5), "x2": _f32(1, 2, 5, 5)}
    assert_matches_reference(m, feeds, rtol=1e-5, atol=1e-5)
    assert _op_types(m) == ["Concat", "Mul", "Add", "Relu", "Conv"]
