"""Engine ops without an ONNX operator of their name: their lowerings run in onnxruntime and match numpy / torch;
ops with no ONNX form are refused naming the op."""

import numpy as np
import pytest

from tests.onnx.export_helpers import export_engine, op_types, run_model
from vfw.core import execute
from vfw.onnx_io import UnsupportedOpError

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
SPECIAL = np.array([0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 0.5, -0.5, 3.0, -3.0, 80.0, -80.0, np.inf, -np.inf, np.nan],
                   np.float32)


def _run(fn, *arrays, opset=None):
    model = export_engine(fn, arrays, opset=opset)
    return model, run_model(model, arrays)


def _unary(op_type):
    return lambda x: execute(op_type, x)


@pytest.mark.parametrize("op_type, reference, values", [
    ("Trunc", np.trunc, SPECIAL),
    ("Expm1", np.expm1, SPECIAL),
    ("Log1p", np.log1p, np.abs(SPECIAL)),
    ("Log2", np.log2, np.abs(SPECIAL)),
    ("Log10", np.log10, np.abs(SPECIAL)),
])
def test_accurate_unary_lowerings(op_type, reference, values):
    _, (got,) = _run(_unary(op_type), values)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got, reference(values.astype(np.float64)).astype(np.float32), rtol=2e-6,
                                   atol=0, equal_nan=True)


def test_erfc_is_one_minus_erf():
    x = np.linspace(-3, 3, 25, dtype=np.float32)
    _, (got,) = _run(_unary("Erfc"), x)
    with torch.no_grad():
        np.testing.assert_allclose(got, torch.special.erfc(torch.from_numpy(x)).numpy(), atol=2e-7)


def _pairs(values):
    a, b = np.meshgrid(values, values)
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("op_type, reference", [
    ("Hypot", np.hypot), ("Atan2", np.arctan2), ("Copysign", np.copysign),
])
def test_binary_float_lowerings(op_type, reference):
    a, b = _pairs(SPECIAL)
    _, (got,) = _run(lambda x, y: execute(op_type, x, y), a, b)
    with np.errstate(all="ignore"):
        want = reference(a, b)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-37, equal_nan=True)
    if op_type == "Copysign":  # the sign of zeros too
        np.testing.assert_array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))


def test_float_floor_division_follows_python():
    a, b = _pairs(np.array([7.5, -7.5, 3.0, -3.0, 0.0, -0.0, 0.1, 1e30, np.inf], np.float64))
    _, (got,) = _run(lambda x, y: execute("FloorDiv", x, y), a, b)
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_integer_floor_division_follows_python(dtype):
    a, b = _pairs(np.array([-9, -7, -1, 0, 1, 4, 7, 9], dtype))
    keep = b != 0
    a, b = a[keep], b[keep]
    model, (got,) = _run(lambda x, y: execute("FloorDiv", x, y), a, b)
    np.testing.assert_array_equal(got, a // b)
    assert got.dtype == dtype


def test_binary_cross_entropy_clamps_logs():
    x = np.array([0.0, 1e-30, 0.3, 0.99, 1.0], np.float32)
    t = np.array([1.0, 0.0, 0.2, 1.0, 0.0], np.float32)
    _, (got,) = _run(lambda a, b: execute("BinaryCrossEntropy", a, b), x, t)
    with torch.no_grad():
        want = torch.nn.functional.binary_cross_entropy(torch.from_numpy(x), torch.from_numpy(t), reduction="none")
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)


def _bag_reference(weight, indices, offsets, mode, include_last_offset, padding_idx, per_sample_weights):
    with torch.no_grad():
        return torch.nn.functional.embedding_bag(
            torch.from_numpy(indices), torch.from_numpy(weight), torch.from_numpy(offsets), mode=mode,
            include_last_offset=bool(include_last_offset), padding_idx=None if padding_idx < 0 else padding_idx,
            per_sample_weights=None if per_sample_weights is None else torch.from_numpy(per_sample_weights)).numpy()


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last_offset", [0, 1])
@pytest.mark.parametrize("padding_idx", [-1, 2])
def test_embedding_bag_with_offsets(mode, include_last_offset, padding_idx):
    weight = RNG.standard_normal((6, 3)).astype(np.float32)
    indices = np.array([1, 2, 2, 5, 0, 3, 2, 4], np.int64)
    # An empty bag, a bag of one entry that can be the padding index; with include_last_offset the last offset
    # closes the last bag at the end of indices (torch's contract).
    offsets = np.array([0, 3, 3, 4, 8] if include_last_offset else [0, 3, 3, 4, 7], np.int64)
    def bags(w, i, o):
        return execute("EmbeddingBag", w, i, o, mode=mode, include_last_offset=include_last_offset,
                       padding_idx=padding_idx)[0]

    model, (got,) = _run(bags, weight, indices, offsets)
    want = _bag_reference(weight, indices, offsets, mode, include_last_offset, padding_idx, None)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert "ScatterND" in op_types(model)


def test_embedding_bag_per_sample_weights():
    weight = RNG.standard_normal((6, 3)).astype(np.float32)
    indices = np.array([1, 2, 5, 0], np.int64)
    offsets = np.array([0, 1], np.int64)
    scales = RNG.standard_normal(4).astype(np.float32)
    _, (got,) = _run(lambda w, i, o, s: execute("EmbeddingBag", w, i, o, s, mode="sum")[0], weight, indices, offsets,
                     scales)
    np.testing.assert_allclose(got, _bag_reference(weight, indices, offsets, "sum", 0, -1, scales), rtol=1e-6)


def test_embedding_is_a_gather():
    weight = RNG.standard_normal((5, 2)).astype(np.float32)
    idx = np.array([[0, 4], [3, 3]], np.int32)
    model, (got,) = _run(lambda w, i: execute("Embedding", w, i, padding_idx=3), weight, idx)
    np.testing.assert_array_equal(got, weight[idx])
    assert op_types(model) == ["Gather"]


def _nchw(x):
    return np.moveaxis(x, -1, 1)


def _nhwc(x):
    return np.moveaxis(x, 1, -1)


@pytest.mark.parametrize("group", [1, 2])
def test_channels_last_convolution(group):
    x = RNG.standard_normal((2, 7, 6, 4)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 4 // group, 6)).astype(np.float32)  # (*K, C/group, M)
    attrs = dict(strides=[2, 1], pads=[1, 0, 1, 1], dilations=[1, 2], group=group)
    model, (got,) = _run(lambda a, b: execute("ChannelsLastConv", a, b, **attrs), x, w)
    with torch.no_grad():
        padded = torch.nn.functional.pad(torch.from_numpy(_nchw(x)), (0, 1, 1, 1))
        want = torch.nn.functional.conv2d(padded, torch.from_numpy(np.transpose(w, (3, 2, 0, 1)).copy()),
                                          stride=(2, 1), dilation=(1, 2), groups=group).numpy()
    np.testing.assert_allclose(got, _nhwc(want), rtol=1e-5, atol=1e-5)
    assert "Conv" in op_types(model)


def test_channels_last_transposed_convolution():
    dy = RNG.standard_normal((2, 4, 2, 5)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 2, 5)).astype(np.float32)  # (*K, C, M)
    shape = np.array([2, 8, 6, 2], np.int64)  # tf's conv2d_transpose output (N, H, W, C)
    attrs = dict(strides=[2, 2], pads=[1, 0, 0, 0])
    _, (got,) = _run(lambda a, b: execute("ChannelsLastConvTranspose", a, b, shape, **attrs), dy, w)
    eager = execute("ChannelsLastConvTranspose", dy, w, shape, **attrs).array
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-5)
    # The adjoint: <conv(x), dy> == <x, conv_transpose(dy)> for the forward channels-last convolution.
    x = RNG.standard_normal(tuple(shape)).astype(np.float32)
    y = execute("ChannelsLastConv", x, w, **attrs).array
    np.testing.assert_allclose(np.vdot(y, dy), np.vdot(x, got), rtol=1e-4)


@pytest.mark.parametrize("op_type", ["ChannelsLastMaxPool", "ChannelsLastAveragePool"])
def test_channels_last_pooling(op_type):
    x = RNG.standard_normal((2, 7, 5, 3)).astype(np.float32)
    attrs = dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1])
    _, (got,) = _run(lambda a: execute(op_type, a, **attrs), x)
    with torch.no_grad():
        t = torch.from_numpy(_nchw(x).copy())
        if op_type == "ChannelsLastMaxPool":
            want = torch.nn.functional.max_pool2d(torch.nn.functional.pad(t, (0, 1, 1, 1), value=-np.inf), (3, 2),
                                                  (2, 1))
        else:  # mean over the taps inside the input
            ones = torch.nn.functional.pad(torch.ones_like(t), (0, 1, 1, 1))
            sums = torch.nn.functional.avg_pool2d(torch.nn.functional.pad(t, (0, 1, 1, 1)), (3, 2), (2, 1))
            want = sums / torch.nn.functional.avg_pool2d(ones, (3, 2), (2, 1))
    np.testing.assert_allclose(got, _nhwc(want.numpy()), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("size, output_size", [((8, 9), (2, 3)), ((7, 5), (3, 2))])
def test_adaptive_max_pool(size, output_size):
    x = RNG.standard_normal((2, 3) + size).astype(np.float32)
    model, (got,) = _run(lambda a: execute("AdaptiveMaxPool", a, output_size=list(output_size))[0], x)
    with torch.no_grad():
        want = torch.nn.functional.adaptive_max_pool2d(torch.from_numpy(x), output_size).numpy()
    np.testing.assert_array_equal(got, want)


def test_im2col_is_a_convolution_with_one_hot_filters():
    x = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    attrs = dict(kernel_shape=[2, 3], strides=[1, 2], pads=[1, 0, 0, 1], dilations=[2, 1])
    model, (got,) = _run(lambda a: execute("Im2Col", a, **attrs), x)
    with torch.no_grad():
        padded = torch.nn.functional.pad(torch.from_numpy(x), (0, 1, 1, 0))
        want = torch.nn.functional.unfold(padded, (2, 3), dilation=(2, 1), stride=(1, 2)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", [0, 1])
def test_lstm_train_exports_its_inference_form(layout):
    seq, batch, hidden, size = 4, 2, 3, 5
    shape = (seq, batch, size) if layout == 0 else (batch, seq, size)
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.standard_normal((2, 4 * hidden, size)).astype(np.float32)
    r = RNG.standard_normal((2, 4 * hidden, hidden)).astype(np.float32)
    b = RNG.standard_normal((2, 8 * hidden)).astype(np.float32)

    def fn(*a):
        return execute("LSTMTrain", *a, direction="bidirectional", layout=layout)[:3]

    model, got = _run(fn, x, w, r, b)
    eager = execute("LSTM", x, w, r, b, direction="bidirectional", layout=layout)
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e.array, rtol=1e-5, atol=1e-6)
    assert "LSTM" in op_types(model) and "LSTMTrain" not in op_types(model)


def test_gru_train_exports_its_inference_form():
    x = RNG.standard_normal((4, 2, 5)).astype(np.float32)
    w = RNG.standard_normal((1, 9, 5)).astype(np.float32)
    r = RNG.standard_normal((1, 9, 3)).astype(np.float32)
    _, got = _run(lambda *a: execute("GRUTrain", *a)[:2], x, w, r)
    eager = execute("GRU", x, w, r, linear_before_reset=1)
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e.array, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, arrays, match", [
    (lambda a: execute("Inverse", a), [np.eye(3, dtype=np.float32)], "Inverse has no ONNX operator"),
    (lambda a: execute("CumMax", a, np.array(0))[0], [np.ones(3, np.float32)], "CumMax"),
    (lambda a: execute("ReluGrad", a, a), [np.ones(3, np.float32)], "ReluGrad is a gradient op"),
    (lambda a: execute("Lgamma", a), [np.ones(3, np.float32)], "Lgamma"),
])
def test_ops_without_onnx_form_are_refused(fn, arrays, match):
    with pytest.raises(UnsupportedOpError, match=match):
        export_engine(fn, arrays)


def test_training_outputs_in_use_are_refused():
    x = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    w = RNG.standard_normal((1, 9, 4)).astype(np.float32)
    r = RNG.standard_normal((1, 9, 3)).astype(np.float32)
    with pytest.raises(UnsupportedOpError, match="GRUTrain"):
        export_engine(lambda *a: execute("GRUTrain", *a)[2], [x, w, r])


def test_dtypes_an_operator_refuses_are_cast_and_back():
    x = RNG.random((3, 4)) < 0.5
    axes = np.array([1], np.int64)
    model, (got,) = _run(lambda a: execute("ReduceMax", a, axes, keepdims=0), x, opset=18)  # bool from opset 20
    np.testing.assert_array_equal(got, x.any(1))
    assert got.dtype == np.bool_ and op_types(model) == ["Cast", "ReduceMax", "Cast"]
