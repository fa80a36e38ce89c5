"""vfw.onnx_io.check (vfw against onnxruntime) and the ``python -m vfw.onnx_io`` command line."""

import io
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import vfw.onnx_io as oi
from vfw.onnx_io.__main__ import main
from vfw.onnx_io.check import compare_outputs, describe, generate_inputs, op_histogram


def _model():
    """``y = softmax(x @ w + b)`` with a symbolic batch, and ``idx`` picking rows of a table: two outputs."""
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Add", ["h", "b"], ["z"]),
             helper.make_node("Softmax", ["z"], ["y"]), helper.make_node("Gather", ["table", "idx"], ["rows"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", 1, ["n", 3]), helper.make_tensor_value_info("idx", 7, [4])],
        [helper.make_tensor_value_info("y", 1, ["n", 2]), helper.make_tensor_value_info("rows", 1, [4, 2])],
        [numpy_helper.from_array(rng.standard_normal((3, 2)).astype(np.float32), "w"),
         numpy_helper.from_array(np.zeros(2, np.float32), "b"),
         numpy_helper.from_array(rng.standard_normal((10, 2)).astype(np.float32), "table")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_compare_outputs_reports_differences():
    report = compare_outputs([np.array([1.0, 2.0, np.nan]), np.array([1, 2]), np.ones(2)],
                             [np.array([1.0, 2.5, np.nan]), np.array([1, 2]), np.ones(3)], ["a", "b", "c"])
    assert report["a"].max_abs == 0.5 and report["a"].max_rel == 0.25 and not report["a"].ok
    assert report["b"].ok and report["b"].max_abs == 0
    assert not report["c"].ok and "shape" in report["c"].problem
    assert not report.ok and "FAILED" in str(report)
    close = compare_outputs([np.array([1.0, np.inf])], [np.array([1.0 + 1e-6, np.inf])], ["x"])
    assert close.ok and close["x"].max_abs == pytest.approx(1e-6)
    nan_mismatch = compare_outputs([np.array([np.nan])], [np.array([0.0])], ["x"])
    assert not nan_mismatch.ok and nan_mismatch["x"].max_abs == np.inf
    dtype_mismatch = compare_outputs([np.ones(2, np.float32)], [np.ones(2, np.float64)], ["x"])
    assert not dtype_mismatch.ok and "dtype" in dtype_mismatch["x"].problem


def test_check_generates_inputs_and_agrees_with_onnxruntime(capsys):
    report = oi.check(_model())
    assert report.ok and [o.name for o in report] == ["y", "rows"]
    assert report["y"].shape == (2, 2)
    assert "PASSED" in capsys.readouterr().out


def test_check_with_given_inputs_by_name_and_position():
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    idx = np.array([9, 0, 3, 3])
    assert oi.check(_model(), {"x": x}, verbose=False)["y"].shape == (5, 2)
    assert oi.check(_model().SerializeToString(), [x, idx], verbose=False)["rows"].ok
    with pytest.raises(ValueError, match="unknown input name"):
        oi.check(_model(), {"z": x}, verbose=False)
    with pytest.raises(ValueError, match="takes 2 input"):
        oi.check(_model(), [x], verbose=False)


def test_generated_inputs_follow_declared_types():
    feeds = generate_inputs(_model(), seed=3, dim_size=4)
    assert feeds["x"].shape == (4, 3) and feeds["x"].dtype == np.float32
    assert feeds["idx"].dtype == np.int64 and ((0 <= feeds["idx"]) & (feeds["idx"] < 10)).all()


def test_describe_and_histogram():
    text = describe(_model())
    assert "opsets: ai.onnx 18" in text and "x: float32 ['n', 3]" in text and "initializers: 3 (28 elements)" in text
    assert op_histogram(_model()) == {"Add": 1, "Gather": 1, "MatMul": 1, "Softmax": 1}


def test_command_line(tmp_path, capsys):
    path = tmp_path / "m.onnx"
    onnx.save(_model(), path)
    assert main(["info", str(path)]) == 0
    assert "MatMul: 1" in capsys.readouterr().out
    assert main(["check", str(path), "--dim-size", "3"]) == 0
    assert "y: shape [3, 2]" in capsys.readouterr().out
    x = tmp_path / "x.npy"
    np.save(x, np.ones((2, 3), np.float32))
    assert main(["run", str(path), "--input", f"x={x}", "--runtime", "onnxruntime"]) == 0
    out = capsys.readouterr().out
    assert "y: float32 [2, 2]" in out and "rows: float32 [4, 2]" in out
    with pytest.raises(SystemExit):
        main(["run", str(path), "--input", "x"])


def test_command_line_reports_a_mismatch_with_exit_status_1(tmp_path):
    # A model vfw and onnxruntime compute differently would be a bug; a tolerance of -1 makes every output fail.
    path = tmp_path / "m.onnx"
    onnx.save(_model(), path)
    result = subprocess.run([sys.executable, "-m", "vfw.onnx_io", "check", str(path), "--atol", "-1", "--rtol", "0"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "FAILED" in result.stdout


def test_check_accepts_exported_models_from_file_objects():
    import vfw.torch as vt

    f = io.BytesIO()
    vt.onnx.export(vt.nn.Sequential(vt.nn.Linear(3, 2), vt.nn.Sigmoid()), vt.ones(2, 3), f, dynamo=False)
    f.seek(0)
    assert oi.check(f, verbose=False).ok


@pytest.mark.parametrize("command", ["info", "run", "check"])
def test_command_line_errors_are_one_line(tmp_path, capsys, command):
    missing, corrupt = tmp_path / "missing.onnx", tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"not a protobuf")
    for path, kind in ((missing, "FileNotFoundError"), (corrupt, "Error")):
        with pytest.raises(SystemExit) as exited:
            main([command, str(path)])
        err = capsys.readouterr().err
        assert exited.value.code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert err.startswith(f"python -m vfw.onnx_io {command}: ") and kind in err
