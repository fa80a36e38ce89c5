"""The examples run as a new user runs them, and print results that numpy confirms."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run(name, path=None):
    result = subprocess.run([sys.executable, str(path or ROOT / "examples" / name)], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _number(label, text):
    return float(re.search(re.escape(label) + r"\s*:?\s*([-+0-9.e]+)", text).group(1))


def test_engine_demo():
    out = _run("engine_demo.py")
    assert _number("max |engine - numpy|", out) < 1e-5
    assert "Conv 1x3x8x8 (4 filters, stride 2, pad 1) -> (1, 4, 4, 4)" in out
    assert "shape=(None, 4, 4, 4)" in out
    assert "ShapeError" in out and "MatMul" in out


def test_custom_op_example():
    out = _run("custom_op.py")
    assert _number("max |error|", out) < 1e-5
    assert "OpAttributeError: Swish: attribute 'beta'=-1.0: must be positive" in out


def test_torch_training_example_prints_what_real_torch_prints(tmp_path):
    pytest.importorskip("torch")
    source = (ROOT / "examples" / "torch_training.py").read_text()
    real = re.sub(r"\bvfw\.torch\b", "torch", source)
    assert real != source and "import vfw" not in real and "from vfw" not in real
    (tmp_path / "real_torch_training.py").write_text(real)
    got, want = _run("torch_training.py"), _run(None, tmp_path / "real_torch_training.py")
    got_numbers = [float(v) for v in re.findall(r"[-+]?\d+\.\d+", got)]
    want_numbers = [float(v) for v in re.findall(r"[-+]?\d+\.\d+", want)]
    assert len(got_numbers) == len(want_numbers) == 11
    for g, w in zip(got_numbers, want_numbers):
        assert abs(g - w) <= 1e-4 * max(1.0, abs(w)), (got, want)
    assert "reloaded weights give the same outputs: True" in got
