"""vfw.onnx_io.load and vfw.onnx_io.backend: sources, calling conventions, errors, external data."""

import io
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.onnx.models import F, assert_matches_reference, model, tensor
from vfw.core import DTypeError, OpAttributeError, ShapeError, UnknownOpError
from vfw.onnx_io import ImportedModel, OnnxModelError, backend, load


def _affine():
    """y = x @ w + b; z = relu(y)."""
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
             helper.make_node("Add", ["xw", "b"], ["y"], name="add"),
             helper.make_node("Relu", ["y"], ["z"], name="relu")]
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    b = np.array([-1, 0, 1, 2], np.float32)
    m = model(nodes, [tensor("x", F, ["batch", 3])], [tensor("y", F, ["batch", 4]), tensor("z", F, ["batch", 4])],
              [("w", w), ("b", b)])
    m.producer_name, m.doc_string = "vfw-tests", "an affine layer"
    helper.set_model_props(m, {"author": "tests"})
    return m


X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


@pytest.mark.parametrize("source", ["proto", "bytes", "path", "file"])
def test_load_sources(tmp_path, source):
    m = _affine()
    path = tmp_path / "affine.onnx"
    onnx.save(m, path)
    given = {"proto": m, "bytes": m.SerializeToString(), "path": str(path)}.get(source)
    if source == "file":
        with open(path, "rb") as f:
            imported = load(f)
    else:
        imported = load(given)
    assert isinstance(imported, ImportedModel)
    expected = X @ numpy_helper.to_array(m.graph.initializer[0]) + numpy_helper.to_array(m.graph.initializer[1])
    y, z = imported.run([X])
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    np.testing.assert_allclose(z, np.maximum(expected, 0), rtol=1e-6)


def test_model_object_describes_the_model():
    imported = load(_affine())
    assert imported.input_names == ["x"] and imported.output_names == ["y", "z"]
    assert imported.inputs[0].shape == (None, 3) and imported.inputs[0].dtype == np.float32
    assert imported.opset_imports[""] == onnx.defs.onnx_opset_version()
    assert imported.producer_name == "vfw-tests" and imported.metadata == {"author": "tests"}
    assert "x: float32 (?, 3)" in repr(imported)
    y_list = imported.run([X])[0]
    y_dict = imported.run({"x": X})[0]
    y_call, _ = imported(X)
    y_named, _ = imported(x=X)
    for other in (y_dict, y_call, y_named):
        np.testing.assert_array_equal(other, y_list)
    assert_matches_reference(_affine(), {"x": X})


def test_opt_levels_agree():
    m = _affine()
    for level in (1, 2, 3):
        for a, b in zip(load(m, opt_level=0).run([X]), load(m, opt_level=level).run([X])):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="opt_level"):
        load(m, opt_level=4)


def test_bad_feeds_name_the_input():
    imported = load(_affine())
    with pytest.raises(DTypeError, match="input 'x' must be float32, got float64"):
        imported.run([X.astype(np.float64)])
    with pytest.raises(ShapeError, match=r"input 'x' must have shape \(\?, 3\), got \(2, 4\)"):
        imported.run([np.zeros((2, 4), np.float32)])
    with pytest.raises(ValueError, match="takes 1 input"):
        imported.run([X, X])
    with pytest.raises(ValueError, match="missing input"):
        imported.run({})
    with pytest.raises(ValueError, match="unknown input"):
        imported.run({"x": X, "q": X})


def test_run_time_errors_name_the_node():
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["y"], name="the_reshape")]
    m = model(nodes, [tensor("x", F, None), tensor("shape", TensorProto.INT64, [2])], [tensor("y", F, None)])
    with pytest.raises(ShapeError, match="the_reshape"):
        load(m).run([np.zeros(6, np.float32), np.array([4, 4], np.int64)])


def test_malformed_and_unsupported_models():
    with pytest.raises(OnnxModelError, match="malformed protobuf"):
        load(b"\x08\x07\x12\xff\xff not a model")
    with pytest.raises(OnnxModelError, match="no graph"):
        load(onnx.ModelProto(ir_version=8).SerializeToString())
    old = _affine()
    old.ir_version = 2
    with pytest.raises(OnnxModelError, match="IR version 2"):
        load(old)
    with pytest.raises(TypeError, match="expected a path"):
        load(12)
    with pytest.raises(OnnxModelError, match="no ONNX model file"):
        load("/nonexistent/model.onnx")


def test_unknown_ops_and_domains_name_the_node():
    m = model([helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery")], [tensor("x", F, [2])],
              [tensor("y", F, [2])])
    with pytest.raises(UnknownOpError, match="mystery.*NoSuchOp"):
        load(m)
    m = model([helper.make_node("Relu", ["x"], ["y"], name="elsewhere", domain="com.example")], [tensor("x", F, [2])],
              [tensor("y", F, [2])])
    with pytest.raises(UnknownOpError, match="elsewhere.*com.example"):
        load(m)
    m = model([helper.make_node("Relu", ["x"], ["y"], name="custom", domain="com.example")], [tensor("x", F, [2])],
              [tensor("y", F, [2])], domains=[("com.example", 1)])
    with pytest.raises(UnknownOpError, match="custom"):
        load(m)


def test_graph_errors():
    cycle = model([helper.make_node("Relu", ["b"], ["a"], name="first"),
                   helper.make_node("Relu", ["a"], ["b"], name="second")], [tensor("x", F, [2])],
                  [tensor("a", F, [2])])
    with pytest.raises(OnnxModelError, match="cycle through node.*'first'.*'second'"):
        load(cycle)
    undefined = model([helper.make_node("Relu", ["nowhere"], ["y"], name="reader")], [tensor("x", F, [2])],
                      [tensor("y", F, [2])])
    with pytest.raises(OnnxModelError, match="reader.*reads 'nowhere'"):
        load(undefined)
    twice = model([helper.make_node("Relu", ["x"], ["y"], name="one"), helper.make_node("Neg", ["x"], ["y"],
                                                                                        name="two")],
                  [tensor("x", F, [2])], [tensor("y", F, [2])])
    with pytest.raises(OnnxModelError, match="defined by two nodes"):
        load(twice)
    bad_attr = model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis="one")], [tensor("x", F, [2])],
                     [tensor("y", F, [2])])
    with pytest.raises(OpAttributeError, match="sm"):
        load(bad_attr)


def test_unsorted_nodes_are_sorted():
    nodes = [helper.make_node("Relu", ["a"], ["y"]), helper.make_node("Neg", ["x"], ["a"])]
    m = model(nodes, [tensor("x", F, [3])], [tensor("y", F, [3])])
    out = load(m).run([np.array([1, -2, 3], np.float32)])[0]
    np.testing.assert_array_equal(out, [0, 2, 0])


def test_absurd_and_malformed_initializers():
    huge = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 30, 1 << 20])
    m = model([helper.make_node("Identity", ["w"], ["y"])], [], [tensor("y", F, None)])
    m.graph.initializer.append(huge)
    with pytest.raises(OnnxModelError, match="more than vfw accepts"):
        load(m)
    short = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], raw_data=b"\0" * 8)
    del m.graph.initializer[:]
    m.graph.initializer.append(short)
    with pytest.raises(OnnxModelError, match="needs 16 bytes of raw data, has 8"):
        load(m)
    float8 = numpy_helper.from_array(np.zeros(2, np.float32), "w")
    float8.data_type = TensorProto.FLOAT8E4M3FN
    del m.graph.initializer[:]
    m.graph.initializer.append(float8)
    with pytest.raises(DTypeError, match="float8e4m3fn is not supported"):
        load(m)


# -- external data ------------------------------------------------------------------------------------------------
def _external_model(tmp_path, location="weights.bin"):
    w = np.arange(20, dtype=np.float32).reshape(4, 5)
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"])], [tensor("x", F, [1, 4])], [tensor("y", F, [1, 5])],
              [("w", w)])
    onnx.save(m, tmp_path / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location=location, size_threshold=0)
    return w


def test_external_data_inside_the_folder(tmp_path):
    w = _external_model(tmp_path)
    x = np.ones((1, 4), np.float32)
    np.testing.assert_allclose(load(tmp_path / "model.onnx").run([x])[0], x @ w)
    proto = onnx.load(tmp_path / "model.onnx", load_external_data=False)
    np.testing.assert_allclose(load(proto, base_dir=tmp_path).run([x])[0], x @ w)
    with pytest.raises(OnnxModelError, match="pass base_dir"):
        load(proto)
    np.testing.assert_allclose(backend.prepare(proto, base_dir=str(tmp_path)).run([x])[0], x @ w)


@pytest.mark.parametrize("escape", ["../outside.bin", "/tmp/outside.bin", "sub/../../outside.bin", "link.bin"])
def test_external_data_escaping_the_folder_is_refused(tmp_path, escape):
    folder = tmp_path / "model"
    folder.mkdir()
    _external_model(folder)
    proto = onnx.load(folder / "model.onnx", load_external_data=False)
    (tmp_path / "outside.bin").write_bytes((folder / "weights.bin").read_bytes())
    if escape == "link.bin":
        os.symlink(tmp_path / "outside.bin", folder / "link.bin")
    for entry in proto.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = escape
    onnx.save(proto, folder / "model.onnx")
    with pytest.raises(OnnxModelError, match="must be a relative path|leaves the model's folder"):
        load(folder / "model.onnx")


def test_external_data_of_wrong_length(tmp_path):
    _external_model(tmp_path)
    with open(tmp_path / "weights.bin", "r+b") as f:
        f.truncate(40)
    with pytest.raises(OnnxModelError, match="needs 80 bytes"):
        load(tmp_path / "model.onnx")


def test_model_over_two_gigabytes_loads_through_external_data(tmp_path):
    # 2.4 GB of float32 weights in a sparse file: memory-mapped, only the gathered rows are read.
    count = 600_000_000
    with open(tmp_path / "big.bin", "wb") as f:
        f.truncate(count * 4)
        f.seek(4 * 123_456_789)
        f.write(np.float32(7.5).tobytes())
    weights = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[count])
    weights.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "big.bin"), ("offset", "0"), ("length", str(count * 4))):
        weights.external_data.add(key=key, value=value)
    m = model([helper.make_node("Gather", ["w", "i"], ["y"])], [tensor("i", TensorProto.INT64, [2])],
              [tensor("y", F, [2])])
    m.graph.initializer.append(weights)
    onnx.save(m, tmp_path / "big.onnx")
    assert os.path.getsize(tmp_path / "big.onnx") < 10_000
    out = load(tmp_path / "big.onnx").run([np.array([123_456_789, 5], np.int64)])[0]
    np.testing.assert_array_equal(out, np.array([7.5, 0.0], np.float32))


# -- the onnx.backend API ------------------------------------------------------------------------------------------
def test_backend_api():
    assert backend.supports_device("CPU") and not backend.supports_device("CUDA")
    with pytest.raises(ValueError, match="unsupported device"):
        backend.prepare(_affine(), "CUDA")
    rep = backend.prepare(_affine(), "CPU")
    y, z = rep.run(X)
    assert isinstance(rep.run([X]), tuple)
    np.testing.assert_array_equal(backend.run_model(_affine(), [X])[0], y)
    node = helper.make_node("Add", ["a", "b"], ["c"])
    (c,) = backend.run_node(node, [np.ones(3, np.float32), np.arange(3, dtype=np.float32)])
    np.testing.assert_array_equal(c, [1, 2, 3])
    (c,) = backend.run_node(node, {"a": np.ones(2, np.int64), "b": np.ones(2, np.int64)}, opset_version=13)
    np.testing.assert_array_equal(c, [2, 2])


def test_model_from_a_file_object_without_a_path():
    data = io.BytesIO(_affine().SerializeToString())
    np.testing.assert_allclose(load(data).run([X])[0], load(_affine()).run([X])[0])


def test_onnxruntime_static_quantization_qdq_model(tmp_path):
    # onnxruntime.quantization's default (QDQ) output: a bias's zero point is 0-d beside a scale of shape [1]
    quantization = pytest.importorskip("onnxruntime.quantization")
    import onnxruntime

    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((6, 8)).astype(np.float32), rng.standard_normal((8, 3)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]), helper.make_node("Gemm", ["r", "w2", "b2"], ["y"])]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
                              [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
                               numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b1"),
                               numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "b2")])
    source, quantized = tmp_path / "mlp.onnx", tmp_path / "mlp_qdq.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), source)
    batches = iter([{"x": rng.standard_normal((4, 6)).astype(np.float32)} for _ in range(4)])

    class Calibration(quantization.CalibrationDataReader):
        def get_next(self):
            return next(batches, None)

    quantization.quantize_static(str(source), str(quantized), Calibration())
    x = rng.standard_normal((5, 6)).astype(np.float32)
    want = onnxruntime.InferenceSession(str(quantized), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(load(str(quantized))(x), want, rtol=1e-5, atol=1e-5)
