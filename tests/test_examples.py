"""The examples run as a new user runs them, and print results that numpy confirms."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run(name):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / name)], capture_output=True, text=True,
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
