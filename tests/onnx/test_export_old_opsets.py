"""GraphDef -> ONNX at opsets 9 and 10: the operators whose inputs, attributes or types changed at 10 and 11,
checked in onnxruntime against numpy and real torch."""

import numpy as np
import onnx
import pytest

from tests.onnx.export_helpers import export_engine, op_types, run_model
from vfw.core import execute
from vfw.onnx_io import UnsupportedOpError
from vfw.onnx_io._export_opset10 import _exact_scale, _old_nearest_rows

torch = pytest.importorskip("torch")


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _node(model, op_type):
    return next(n for n in model.graph.node if n.op_type == op_type)


@pytest.mark.parametrize("opset", [9, 10])
def test_clip_bounds_become_attributes(opset):
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    model = export_engine(lambda a: execute("Clip", a, np.array(-1.5, np.float32), np.array(2, np.float32)), [x],
                          opset=opset)
    assert _attrs(_node(model, "Clip")) == {"min": -1.5, "max": 2.0}
    np.testing.assert_array_equal(run_model(model, [x])[0], np.clip(x, -1.5, 2))


@pytest.mark.parametrize("opset", [9, 10])
def test_clip_of_other_dtypes_or_run_time_bounds_is_two_selections(opset):
    x = np.array([-3.0, np.nan, 0.5, 4.0], np.float32)
    low = np.array(-1, np.float32)
    model = export_engine(lambda a, lo: execute("Clip", a, lo, np.array(2, np.float32)), [x, low], opset=opset)
    assert "Clip" not in op_types(model)
    np.testing.assert_array_equal(run_model(model, [x, low])[0], np.clip(x, -1, 2))  # NaN passes
    ints = np.array([-7, 0, 3, 9], np.int64)
    model = export_engine(lambda a: execute("Clip", a, None, np.array(4, np.int64)), [ints], opset=opset)
    np.testing.assert_array_equal(run_model(model, [ints])[0], np.minimum(ints, 4))


@pytest.mark.parametrize("opset", [9, 10])
def test_equal_of_floats_is_neither_less_nor_greater_and_nan_equals_nothing(opset):
    a = np.array([1.0, np.nan, 2.0, -0.0, np.inf], np.float32)
    b = np.array([1.0, np.nan, 3.0, 0.0, np.inf], np.float32)
    model = export_engine(lambda x, y: execute("Equal", x, y), [a, b], opset=opset)
    assert "Equal" not in op_types(model)
    np.testing.assert_array_equal(run_model(model, [a, b])[0], a == b)
    i, j = np.array([1, 2, 3]), np.array([1, 0, 3])
    ints = export_engine(lambda x, y: execute("Equal", x, y), [i, j], opset=9)
    assert op_types(ints) == ["Equal"]
    np.testing.assert_array_equal(run_model(ints, [i, j])[0], i == j)


@pytest.mark.parametrize("opset", [9, 10])
@pytest.mark.parametrize("largest", [1, 0])
def test_top_k_k_attribute_and_smallest_values(opset, largest):
    x = np.random.default_rng(0).permutation(24).reshape(2, 3, 4).astype(np.float32)
    model = export_engine(lambda a: execute("TopK", a, np.array([2]), axis=-2, largest=largest), [x], opset=opset)
    node = _node(model, "TopK")
    assert _attrs(node)["axis"] == 1 and len(node.input) == (1 if opset == 9 else 2)
    values, indices = run_model(model, [x])
    with torch.no_grad():
        want = torch.topk(torch.from_numpy(x), 2, dim=1, largest=bool(largest))
    np.testing.assert_array_equal(values, want.values.numpy())
    np.testing.assert_array_equal(indices, want.indices.numpy())


def test_gemm_without_c_gets_a_zero_before_opset_11():
    a, b = (np.random.default_rng(1).standard_normal(s).astype(np.float32) for s in ((2, 3), (4, 3)))
    model = export_engine(lambda x, y: execute("Gemm", x, y, transB=1, alpha=0.5), [a, b], opset=9)
    assert len(_node(model, "Gemm").input) == 3
    np.testing.assert_allclose(run_model(model, [a, b])[0], 0.5 * a @ b.T, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("opset", [9, 10])
def test_pixel_shuffle_order_is_reshapes_and_a_transpose(opset):
    x = np.random.default_rng(2).standard_normal((2, 8, 3, 5)).astype(np.float32)
    model = export_engine(lambda a: execute("DepthToSpace", a, blocksize=2, mode="CRD"), [x], opset=opset,
                          dynamic={0: {0: "batch", 2: "height"}})
    assert "DepthToSpace" not in op_types(model)
    other = np.random.default_rng(3).standard_normal((3, 8, 4, 5)).astype(np.float32)
    with torch.no_grad():
        want = torch.nn.functional.pixel_shuffle(torch.from_numpy(other), 2).numpy()
    np.testing.assert_array_equal(run_model(model, [other])[0], want)


@pytest.mark.parametrize("opset", [9, 10])
def test_scatter_elements_is_scatter(opset):
    data = np.zeros((2, 4), np.float32)
    index = np.array([[3, 0], [1, 2]])
    updates = np.array([[1, 2], [3, 4]], np.float32)
    model = export_engine(lambda d, i, u: execute("ScatterElements", d, i, u, axis=-1), [data, index, updates],
                          opset=opset)
    assert op_types(model) == ["Scatter"] and _attrs(_node(model, "Scatter"))["axis"] == 1
    want = data.copy()
    np.put_along_axis(want, index, updates, axis=1)
    np.testing.assert_array_equal(run_model(model, [data, index, updates])[0], want)


@pytest.mark.parametrize("fmod", [0, 1])
def test_integer_mod_before_opset_10(fmod):
    a = np.array([7, -7, 7, -7, 0, 6, -6], np.int64)
    b = np.array([3, 3, -3, -3, 5, -4, 4], np.int64)
    model = export_engine(lambda x, y: execute("Mod", x, y, fmod=fmod), [a, b], opset=9)
    assert "Mod" not in op_types(model)
    np.testing.assert_array_equal(run_model(model, [a, b])[0], np.fmod(a, b) if fmod else np.mod(a, b))
    with pytest.raises(UnsupportedOpError, match="Mod of floats needs opset 10"):
        export_engine(lambda x, y: execute("Mod", x, y, fmod=1), [a * 1.0, b * 1.0], opset=9)


@pytest.mark.parametrize("opset", [9, 10])
def test_negative_axes_are_counted_from_the_rank(opset):
    x = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32)

    def fn(a):
        joined = execute("Concat", a, a, axis=-1)
        flat = execute("Flatten", joined, axis=-1)
        return execute("Unsqueeze", flat, np.array([-1])), execute("ArgMax", a, axis=-2, keepdims=0)

    model = export_engine(fn, [x], opset=opset)
    for node in model.graph.node:
        values = _attrs(node).get("axis", _attrs(node).get("axes", 0))
        assert np.all(np.asarray(values) >= 0), node
    flat, argmax = run_model(model, [x])
    np.testing.assert_array_equal(flat, np.concatenate([x, x], -1).reshape(6, 8)[..., None])
    np.testing.assert_array_equal(argmax, x.argmax(-2))


@pytest.mark.parametrize("opset, resize", [(9, "Upsample"), (10, "Resize")])
@pytest.mark.parametrize("height, width", [(6, 8), (7, 9), (5, 11), (9, 4)])
def test_nearest_resize_to_sizes_picks_torch_rows(opset, resize, height, width):
    x = np.random.default_rng(5).standard_normal((2, 3, 3, 4)).astype(np.float32)
    fn = lambda a: execute("Resize", a, None, None, np.array([height, width]), axes=(2, 3), mode="nearest",  # noqa: E731
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    if opset == 9 and width < 4:
        with pytest.raises(UnsupportedOpError, match="Resize downsampling needs opset 10"):
            export_engine(fn, [x], opset=opset)
        return
    model = export_engine(fn, [x], opset=opset, dynamic={0: {0: "batch"}})
    assert op_types(model) == [resize] and len(_node(model, resize).input) == 2
    other = np.random.default_rng(6).standard_normal((4, 3, 3, 4)).astype(np.float32)
    with torch.no_grad():
        want = torch.nn.functional.interpolate(torch.from_numpy(other), size=(height, width)).numpy()
    np.testing.assert_array_equal(run_model(model, [other])[0], want)


@pytest.mark.parametrize("opset", [9, 10])
def test_asymmetric_linear_resize_matches_the_opset_11_operator(opset):
    # The older ops' linear sampling is the asymmetric one: onnxruntime's opset-11 Resize is the oracle.
    x = np.random.default_rng(7).standard_normal((2, 3, 3, 4)).astype(np.float32)
    fn = lambda a: execute("Resize", a, None, np.array([1, 1, 2, 3], np.float32), mode="linear",  # noqa: E731
                           coordinate_transformation_mode="asymmetric")
    model = export_engine(fn, [x], opset=opset)
    assert op_types(model) == ["Upsample" if opset == 9 else "Resize"]
    np.testing.assert_allclose(run_model(model, [x])[0], run_model(export_engine(fn, [x], opset=11), [x])[0],
                               rtol=1e-6, atol=1e-6)


def test_resize_to_sizes_on_a_dynamic_axis_is_refused_before_opset_11():
    # The scale would depend on the run-time size: Resize-10 takes scales only.
    fn = lambda a: execute("Resize", a, None, None, np.array([7]), axes=(2,), mode="nearest",  # noqa: E731
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(UnsupportedOpError, match="Resize to sizes on an axis of unknown size needs opset 11"):
        export_engine(fn, [x], opset=10, dynamic={0: {2: "height"}})
    assert "Resize" in op_types(export_engine(fn, [x], opset=11, dynamic={0: {2: "height"}}))


def test_exact_scales_make_every_size_or_are_refused():
    # For every small ratio a scale is found or refused; one found reads torch's source rows exactly.
    for dim in range(1, 13):
        for size in range(1, 40):
            scale = _exact_scale(dim, size)
            if scale is not None:
                assert int(np.float32(dim) * scale) == size
                np.testing.assert_array_equal(_old_nearest_rows(dim, size, scale), np.arange(size) * dim // size)


@pytest.mark.parametrize("opset, fn, match", [
    (10, lambda a: execute("Resize", a, None, np.array([1, 1, 2, 2], np.float32), mode="linear"),
     "coordinate_transformation_mode='half_pixel' needs opset 11"),
    (10, lambda a: execute("Resize", a, None, np.array([1, 1, 2, 2], np.float32), mode="cubic",
                           coordinate_transformation_mode="asymmetric"), "mode='cubic' needs opset 11"),
    (9, lambda a: execute("Slice", a, np.array([0]), np.array([2]), np.array([1]), np.array([-1])),
     "Slice with steps other than 1 needs opset 10"),
    (9, lambda a: execute("MaxPool", a, kernel_shape=[2, 2], dilations=[2, 2]),
     "MaxPool with dilations needs opset 10"),
    (10, lambda a: execute("GatherElements", a, np.zeros((1, 1, 1, 1), np.int64), axis=1),
     "GatherElements needs opset 11"),
])
def test_what_opsets_9_and_10_cannot_express_is_refused(opset, fn, match):
    with pytest.raises(UnsupportedOpError, match=match):
        export_engine(fn, [np.zeros((1, 2, 4, 4), np.float32)], opset=opset)
