"""GraphDef -> ONNX conversion: older opsets, graph outputs and names, dynamic-axis formulas."""

import numpy as np
import onnx
import pytest

from tests.onnx.export_helpers import export_engine, op_types, run_model
from vfw.core import execute
from vfw.core.ir import make_opdef, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo
from vfw.onnx_io import ExportError, UnsupportedOpError
from vfw.onnx_io._export import graph_to_model
from vfw.onnx_io._export_dynamic import _fit

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


# -- older opsets ------------------------------------------------------------------------------------------
def test_reduce_axes_become_an_attribute_before_opset_18():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    model = export_engine(lambda a: execute("ReduceMean", a, np.array([0, 2]), keepdims=0), [x], opset=17)
    node, = model.graph.node
    assert _attrs(node)["axes"] == [0, 2] and len(node.input) == 1
    np.testing.assert_allclose(run_model(model, [x])[0], x.mean((0, 2)), rtol=1e-6)


@pytest.mark.parametrize("size", [6, 7])
def test_split_into_num_outputs_before_opset_18(size):
    x = RNG.standard_normal((2, size)).astype(np.float32)
    model = export_engine(lambda a: execute("Split", a, axis=1, num_outputs=3), [x], opset=17)
    got = run_model(model, [x])
    chunk = -(-size // 3)
    for k, part in enumerate(got):
        np.testing.assert_array_equal(part, x[:, k * chunk:(k + 1) * chunk])


def test_shape_start_and_end_before_opset_15():
    x = np.zeros((2, 3, 4, 5), np.float32)
    model = export_engine(lambda a: execute("Shape", a, start=1, end=-1), [x], opset=13)
    assert op_types(model) == ["Shape", "Slice"]
    np.testing.assert_array_equal(run_model(model, [x])[0], [3, 4])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_is_decomposed_before_opset_20(approximate):
    x = np.linspace(-5, 5, 41, dtype=np.float32)
    model = export_engine(lambda a: execute("Gelu", a, approximate=approximate), [x], opset=17)
    assert "Gelu" not in op_types(model)
    with torch.no_grad():
        want = torch.nn.functional.gelu(torch.from_numpy(x), approximate=approximate).numpy()
    np.testing.assert_allclose(run_model(model, [x])[0], want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("opset, decomposed", [(18, True), (23, False)])
def test_rms_normalization(opset, decomposed):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    scale = RNG.standard_normal(4).astype(np.float32)
    model = export_engine(lambda a, s: execute("RMSNormalization", a, s, epsilon=1e-3), [x, scale], opset=opset)
    assert ("RMSNormalization" not in op_types(model)) == decomposed
    with torch.no_grad():
        want = torch.nn.functional.rms_norm(torch.from_numpy(x), (4,), torch.from_numpy(scale), eps=1e-3).numpy()
    np.testing.assert_allclose(run_model(model, [x, scale])[0], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [17, 18, 21])
def test_group_normalization_takes_per_channel_scales_at_every_opset(opset):
    x = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    scale, bias = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    model = export_engine(lambda a, s, b: execute("GroupNormalization", a, s, b, num_groups=2), [x, scale, bias],
                          opset=opset)
    assert ("GroupNormalization" in op_types(model)) == (opset >= 21)
    with torch.no_grad():
        want = torch.nn.functional.group_norm(torch.from_numpy(x), 2, torch.from_numpy(scale),
                                              torch.from_numpy(bias)).numpy()
    np.testing.assert_allclose(run_model(model, [x, scale, bias])[0], want, rtol=1e-5, atol=1e-5)


def test_grid_sample_mode_names_before_opset_20():
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    grid = RNG.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
    model = export_engine(lambda a, g: execute("GridSample", a, g, mode="linear"), [x, grid], opset=16)
    assert _attrs(model.graph.node[0])["mode"] == b"bilinear"
    with torch.no_grad():
        want = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), align_corners=False)
    np.testing.assert_allclose(run_model(model, [x, grid])[0], want.numpy(), rtol=1e-5, atol=1e-6)


_RESIZE_CASES = {  # torch's interpolate as the engine's Resize over the spatial axes
    "scales": (lambda a: execute("Resize", a, None, np.array([2.0, 1.5], np.float32), axes=(2, 3), mode="linear"),
               dict(scale_factor=(2.0, 1.5), mode="bilinear", align_corners=False)),
    "sizes": (lambda a: execute("Resize", a, None, None, np.array([5, 7]), axes=(-2, -1), mode="linear",
                                coordinate_transformation_mode="align_corners"),
              dict(size=(5, 7), mode="bilinear", align_corners=True)),
    "one axis": (lambda a: execute("Resize", a, None, None, np.array([9]), axes=(3,), mode="nearest",
                                   coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
                 dict(size=(4, 9), mode="nearest")),
}


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("case", sorted(_RESIZE_CASES))
def test_resize_axes_become_every_axis_before_opset_18(case, opset):
    fn, torch_args = _RESIZE_CASES[case]
    rng = np.random.default_rng(1)  # its own draws: the shared RNG's feed the later tests
    x = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
    model = export_engine(fn, [x], opset=opset, dynamic={0: {0: "batch"}})
    assert "axes" not in _attrs(next(n for n in model.graph.node if n.op_type == "Resize"))
    other = rng.standard_normal((3, 3, 4, 6)).astype(np.float32)  # another batch: sizes read the input's shape
    with torch.no_grad():
        want = torch.nn.functional.interpolate(torch.from_numpy(other), **torch_args).numpy()
    np.testing.assert_allclose(run_model(model, [other])[0], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [9, 10, 11, 13, 17])
def test_pad_axes_become_every_axis_before_opset_18(opset):
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5)).astype(np.float32)
    pads = np.array([1, 0, 2, 3])  # begins then ends of axes -1 and 1
    model = export_engine(lambda a: execute("Pad", a, pads, np.array(0.5, np.float32), np.array([-1, 1])), [x],
                          opset=opset)
    assert [len(n.input) for n in model.graph.node if n.op_type == "Pad"] == [3 if opset >= 11 else 1]
    want = np.pad(x, [(0, 0), (0, 3), (0, 0), (1, 2)], constant_values=0.5)
    np.testing.assert_array_equal(run_model(model, [x])[0], want)


@pytest.mark.parametrize("opset", [9, 10, 11, 12])
def test_axes_and_split_inputs_become_attributes_before_opset_13(opset):
    x = np.random.default_rng(3).standard_normal((2, 1, 6)).astype(np.float32)

    def fn(a):
        squeezed = execute("Squeeze", a, np.array([1]))
        first, second = execute("Split", squeezed, np.array([2, 4]), axis=1)
        return (execute("Unsqueeze", first, np.array([0, -1])), execute("ReduceSum", second, np.array([1]), keepdims=0),
                second)

    model = export_engine(fn, [x], opset=opset)
    assert all(len(n.input) == 1 for n in model.graph.node)
    unsqueezed, summed, second = run_model(model, [x])
    np.testing.assert_array_equal(unsqueezed, x[None, :, 0, :2, None])
    np.testing.assert_array_equal(second, x[:, 0, 2:])
    np.testing.assert_allclose(summed, x[:, 0, 2:].sum(1), rtol=1e-6)


@pytest.mark.parametrize("op_type, reference", [
    ("Softmax", lambda t, axis: torch.softmax(t, axis)),
    ("LogSoftmax", lambda t, axis: torch.log_softmax(t, axis)),
])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, None])
@pytest.mark.parametrize("opset", [9, 11])
def test_softmax_family_on_any_axis_before_opset_13(op_type, reference, axis, opset):
    # Before opset 13 the ops flattened the input to 2-D at axis (default 1): only the last axis means the same.
    x = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32)
    attrs = {} if axis is None else {"axis": axis}
    model = export_engine(lambda a: execute(op_type, a, **attrs), [x], opset=opset)
    want = reference(torch.from_numpy(x), -1 if axis is None else axis).numpy()
    np.testing.assert_allclose(run_model(model, [x])[0], want, rtol=1e-5, atol=1e-6)


def test_or_equal_comparisons_before_opset_12_keep_nan_false():
    a = np.array([1.0, np.nan, 2.0, 3.0, np.nan], np.float32)
    b = np.array([1.0, 1.0, 3.0, np.nan, np.nan], np.float32)
    model = export_engine(lambda x, y: (execute("GreaterOrEqual", x, y), execute("LessOrEqual", x, y)), [a, b],
                          opset=11)
    assert "GreaterOrEqual" not in op_types(model) and "LessOrEqual" not in op_types(model)
    got_ge, got_le = run_model(model, [a, b])
    np.testing.assert_array_equal(got_ge, a >= b)
    np.testing.assert_array_equal(got_le, a <= b)


@pytest.mark.parametrize("opset", [11, 15])
def test_scatter_nd_adding_rows_before_opset_16(opset):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((4, 3)).astype(np.float32)
    index = np.array([[2], [0], [2], [3], [2]])  # repeated rows add up
    updates = rng.standard_normal((5, 3)).astype(np.float32)
    model = export_engine(lambda d, i, u: execute("ScatterND", d, i, u, reduction="add"), [data, index, updates],
                          opset=opset)
    assert "ScatterND" not in op_types(model)
    want = data.copy()
    np.add.at(want, index[:, 0], updates)
    np.testing.assert_allclose(run_model(model, [data, index, updates])[0], want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn, shape, opset, match", [
    (lambda a: execute("AveragePool", a, kernel_shape=[2], dilations=[2]), (1, 1, 4), 18, "dilations needs opset 19"),
    (lambda a: execute("CumProd", a, np.array(0)), (4,), 25, "CumProd .*needs opset 26"),
    (lambda a: execute("Reshape", a, np.array([0, 4]), allowzero=1), (0, 4), 13, "holding 0 needs opset 14"),
])
def test_what_an_older_opset_cannot_express_is_refused(fn, shape, opset, match):
    with pytest.raises(UnsupportedOpError, match=match):
        export_engine(fn, [np.zeros(shape, np.float32)], opset=opset)


@pytest.mark.parametrize("opset", [9, 13, 18])
def test_wrap_pad_before_opset_19_is_slices_and_concatenations(opset):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    pads = np.array([0, 1, 3, 0, 2, 1])  # begins then ends, per axis
    model = export_engine(lambda a: execute("Pad", a, pads, mode="wrap"), [x], opset=opset)
    assert "Pad" not in op_types(model)
    want = np.pad(x, [(0, 0), (1, 2), (3, 1)], mode="wrap")
    np.testing.assert_array_equal(run_model(model, [x])[0], want)
    with pytest.raises(UnsupportedOpError, match="wrap' and pads computed at run time needs opset 19"):
        export_engine(lambda a, p: execute("Pad", a, p, mode="wrap"), [x, pads], opset=opset)


# -- graphs, names ----------------------------------------------------------------------------------------
def _graph(ops, inputs, outputs, infos, initializers=()):
    graph = GraphDef(name="g")
    graph.op.extend(ops)
    graph.input.extend(inputs)
    graph.output.extend(outputs)
    graph.initializer.extend(tensor_to_proto(a, n) for n, a in initializers)
    graph.value_info.extend(ValueInfo(name=n, data_type=1, dims=d) for n, d in infos)
    return graph


def test_outputs_that_are_inputs_constants_or_repeated_get_identities():
    graph = _graph([make_opdef("Relu", ["x"], ["y"])], ["x"], ["x", "y", "y", "c"],
                   [("x", [2]), ("y", [2]), ("c", [1])], [("c", np.ones(1, np.float32))])
    model = graph_to_model(graph)
    assert [o.name for o in model.graph.output][:2] == ["x_out", "y"] and len({o.name for o in model.graph.output}) == 4
    x = np.array([-1.0, 2.0], np.float32)
    got = run_model(model, [x])
    for g, w in zip(got, [x, [0, 2], [0, 2], [1]]):
        np.testing.assert_array_equal(g, w)


def test_value_infos_unknown_dims_and_unread_constants():
    graph = _graph([make_opdef("Relu", ["x"], ["h"]), make_opdef("Neg", ["h"], ["y"])], ["x"], ["y"],
                   [("x", [-1, 3]), ("h", [-1, 3]), ("y", [-1, 3])], [("unused", np.ones(2, np.float32))])
    model = graph_to_model(graph, dim_names={"x": {0: "n"}})
    assert [vi.name for vi in model.graph.value_info] == ["h"]
    assert [d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim] == ["n", 3]
    assert not model.graph.initializer and model.producer_name == "vfw"


def test_an_invalid_graph_is_reported_as_an_export_error():
    graph = _graph([make_opdef("Add", ["x", "x"], ["y"])], ["x"], ["y"], [("x", [2]), ("y", [3])])
    with pytest.raises(ExportError, match="not valid ONNX"):
        graph_to_model(graph)


# -- dynamic axes --------------------------------------------------------------------------------------------
def _samples(formula, base, steps=(1, 2)):
    rows = [dict(base)] + [dict(base, **{s: v + d}) for s, v in base.items() for d in steps]
    return [(r, formula(r)) for r in rows]


@pytest.mark.parametrize("formula, expected", [
    (lambda s: s["B"], ("prod", 1, 0, ["B"])),
    (lambda s: 4 * s["B"] * s["L"] - 3, ("prod", 4, -3, ["B", "L"])),
    (lambda s: 2 * s["B"] + 3 * s["L"] + 1, ("sum", {"B": 2, "L": 3}, 1)),
    (lambda s: s["L"] - 1, ("prod", 1, -1, ["L"])),
    (lambda s: (s["L"] + 2) // 3, None),
    (lambda s: s["B"] * s["B"], None),
])
def test_size_formulas(formula, expected):
    assert _fit(_samples(formula, {"B": 2, "L": 5}), ["B", "L"]) == expected


def test_size_dependent_constants_follow_the_inputs():
    import vfw.torch as vt

    def fn(x):  # a reshape to (B * L, -1), a filled tensor and a ramp sized by L, a mean's 1 / L
        flat = x.reshape(x.shape[0] * x.shape[1], -1)
        ramp = vt.arange(x.shape[1], dtype=vt.float32)
        return flat * 2, vt.full((x.shape[1], 2), 3.0) + ramp[:, None], x.sum(1) * (1.0 / x.shape[1])

    model = export_engine(fn, [np.ones((2, 5, 3), np.float32)], dynamic={0: {0: "B", 1: "L"}}, tensor_class=vt.Tensor)
    rng = np.random.default_rng(6)  # its own draws: the shared RNG's depend on the tests run before
    for shape in ((1, 2, 3), (4, 7, 3)):
        x = rng.standard_normal(shape).astype(np.float32)
        flat, filled, mean = run_model(model, [x])
        np.testing.assert_array_equal(flat, 2 * x.reshape(-1, 3))
        np.testing.assert_array_equal(filled, 3 + np.arange(shape[1], dtype=np.float32)[:, None].repeat(2, 1))
        # the same float32 formula (a mean of values near 0 cancels: x.mean(1) would differ in relative terms)
        np.testing.assert_allclose(mean, x.sum(1) * np.float32(1.0 / shape[1]), rtol=1e-6)
