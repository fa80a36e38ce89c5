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


def _numbers_after(label, text):
    return [float(v) for v in re.findall(re.escape(label) + r"\s*:?\s*([-+0-9.e]+)", text)]


def test_tour_trains_both_frontends_alike_and_onnxruntime_agrees():
    out = _run("tour.py")
    epochs = [(float(a), float(b)) for a, b in re.findall(r"^\s*\d+\s+([0-9.]+)\s+([0-9.]+)\s*$", out, re.M)]
    assert len(epochs) == 8, out
    for torch_loss, keras_loss in epochs:
        assert abs(torch_loss - keras_loss) <= 1e-4, out
    assert epochs[-1][0] < epochs[0][0] / 4, out
    rows = dict((name.strip(), (float(acc), float(diff)))
                for name, acc, diff in re.findall(r"^(\D.*?)\s+([01]\.\d{3})\s+([0-9.e+-]+)$", out, re.M))
    assert len(rows) == 5 and "onnxruntime (torch.onnx.export)" in rows, out
    for accuracy, difference in rows.values():
        assert accuracy > 0.85 and difference < 1e-4, out


def test_digit_classifiers_learn():
    torch_out, keras_out = _run("digits_torch.py"), _run("digits_keras.py")
    torch_losses = _numbers_after("loss", torch_out)
    assert len(torch_losses) == 5 and torch_losses[-1] < torch_losses[0] / 3, torch_out
    assert _numbers_after("test accuracy", torch_out)[-1] > 0.85, torch_out
    assert "Total params: 1,370" in keras_out
    keras_losses = _numbers_after("loss", keras_out)
    assert len(keras_losses) == 6 and keras_losses[-2] < keras_losses[0] / 3, keras_out
    assert _numbers_after("test accuracy", keras_out)[0] > 0.85, keras_out


def test_tf_custom_loop_traces_once_per_signature():
    got = _run("tf_custom_loop.py")
    # TF traces a function that creates variables (the optimizer's, on the first call) twice, as real TF 2.21.
    assert "train_step traced 2 time(s) for 200 steps" in got
    accuracies = _numbers_after("test accuracy", got)
    assert len(accuracies) == 5 and accuracies[-1] > 0.8, got


def test_onnx_transfer_between_frontends():
    out = _run("onnx_transfer.py")
    pretrained, imported, tuned, as_layer, trained_on = [float(v) for v in re.findall(r"\b[01]\.\d{3}\b", out)]
    assert imported == pretrained and as_layer == tuned, out
    assert tuned > imported + 0.05 and trained_on >= tuned - 0.02, out
    assert _numbers_after("agrees with the torch module to", out)[0] < 1e-5, out


def test_unmodified_torch_script_under_the_runner():
    result = subprocess.run([sys.executable, "-m", "vfw", "run", "--as", "torch", "examples/unmodified_torch.py"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "torch module in use: vfw.frontends.torch" in out
    noisy, denoised = _numbers_after("noisy input", out) + _numbers_after("denoised", out)
    assert denoised < noisy * 0.75, out
