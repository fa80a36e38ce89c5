"""``python -m vfw run``: unmodified scripts behave as under ``python`` and train as under the real frameworks.

Oracles: plain ``python script.py`` (argv, __main__, exit status, tracebacks) and real torch / TensorFlow-Keras
running the same training scripts (losses step by step).
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"


def _python(args, cwd, timeout=240):
    """Run ``python args`` with vfw importable (as an installed vfw is); returns the CompletedProcess."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTHONSAFEPATH", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _vfw_run(args, cwd, **kwargs):
    return _python(["-m", "vfw", "run", *args], cwd, **kwargs)


def _same_as_python(plain, served):
    assert (served.returncode, served.stdout, served.stderr) == (plain.returncode, plain.stdout, plain.stderr)


@pytest.fixture
def script_dir(tmp_path):
    """A folder holding behaviour.py and the package pkg/ with the same module, outside the repository."""
    shutil.copy(SCRIPTS / "behaviour.py", tmp_path / "behaviour.py")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    shutil.copy(SCRIPTS / "behaviour.py", tmp_path / "pkg" / "behaviour.py")
    (tmp_path / "pkg" / "__main__.py").write_text("import sys\nprint('package main', __name__, sys.argv[1:])\n")
    (tmp_path / "work").mkdir()
    return tmp_path


@pytest.mark.parametrize("case", [
    ["--lr", "0.1", "-x"],  # options after the script are its own
    ["raise"],  # traceback, chained exception, exit status 1
    ["exit", "3"],
    ["exit-message"],
])
def test_script_sees_what_python_gives_it(script_dir, case):
    cwd = script_dir / "work"  # the script's folder, not the working directory, goes first on sys.path
    plain = _python(["../behaviour.py", *case], cwd)
    served = _vfw_run(["--as", "torch", "../behaviour.py", *case], cwd)
    _same_as_python(plain, served)
    report = json.loads(served.stdout.splitlines()[0])
    assert report["argv"] == ["../behaviour.py", *case]
    assert report["file"] == os.path.join(cwd, "../behaviour.py")
    assert report["path0"] == str(script_dir)
    assert report["main_is_module"] and report["name"] == "__main__" and report["unpickled"] == "Record"


def test_traceback_starts_at_the_script(script_dir):
    served = _vfw_run(["--as", "tensorflow", "behaviour.py", "raise"], script_dir)
    assert served.returncode == 1
    assert "vfw" not in served.stderr and "runpy" not in served.stderr
    assert served.stderr.rstrip().endswith("ValueError: a chained failure")
    assert "KeyError: 'key'" in served.stderr


@pytest.mark.skipif(os.name != "posix", reason="exit by signal is POSIX behaviour")
def test_keyboard_interrupt_ends_the_process_as_python_does(script_dir):
    plain = _python(["behaviour.py", "interrupt"], script_dir)
    served = _vfw_run(["--as", "torch", "behaviour.py", "interrupt"], script_dir)
    assert plain.returncode == -signal.SIGINT
    _same_as_python(plain, served)


@pytest.mark.parametrize("module, args", [("pkg.behaviour", ["a", "--b"]), ("pkg", ["c"])])
def test_dash_m_runs_a_module_as_python_does(script_dir, module, args):
    plain = _python(["-m", module, *args], script_dir)
    served = _vfw_run(["--as", "torch", "-m", module, *args], script_dir)
    _same_as_python(plain, served)
    if module == "pkg.behaviour":
        report = json.loads(served.stdout)
        assert report["argv"] == [str(script_dir / "pkg" / "behaviour.py"), *args]
        assert (report["package"], report["spec"]) == ("pkg", "pkg.behaviour")


@pytest.mark.parametrize("plain_args, runner_args", [
    (["missing.py"], ["missing.py"]),
    (["-m", "missing_module"], ["-m", "missing_module"]),
])
def test_missing_target_fails_as_python_does(tmp_path, plain_args, runner_args):
    _same_as_python(_python(plain_args, tmp_path), _vfw_run(["--as", "torch", *runner_args], tmp_path))


@pytest.mark.parametrize("args, message", [
    (["--as", "jax", "x.py"], "--as 'jax'"),
    (["--as", "torch"], "run needs a script"),
    (["--bogus", "x.py"], "unknown option '--bogus'"),
])
def test_bad_command_line_is_a_usage_error(tmp_path, args, message):
    result = _vfw_run(args, tmp_path)
    assert result.returncode == 2 and message in result.stderr and "usage:" in result.stderr


def test_missing_api_error_names_it(tmp_path):
    (tmp_path / "uses_missing.py").write_text("import torch\nimport torch.not_a_module\n")
    served = _vfw_run(["--as", "torch", "uses_missing.py"], tmp_path)
    assert served.returncode == 1
    assert served.stderr.rstrip().endswith(
        "ModuleNotFoundError: vfw.torch does not provide torch.not_a_module yet")


def _losses(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_torch_training_script_matches_real_torch(tmp_path):
    pytest.importorskip("torch")
    real = _losses(_python([str(SCRIPTS / "torch_train.py"), "2"], tmp_path))
    served = _losses(_vfw_run(["--as", "torch", str(SCRIPTS / "torch_train.py"), "2"], tmp_path))
    assert real["torch_package"] == "torch" and served["torch_package"].startswith("vfw.")
    assert served["tensor_module"] == real["tensor_module"] == "torch"  # vfw's Tensor reports torch's name
    assert len(served["losses"]) == len(real["losses"]) == 8
    np.testing.assert_allclose(served["losses"], real["losses"], rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def real_keras_run(tmp_path_factory):
    """The Keras script's output under real TensorFlow/Keras (run once: importing TensorFlow is slow)."""
    pytest.importorskip("tensorflow")
    return _losses(_python([str(SCRIPTS / "keras_train.py"), "3"], tmp_path_factory.mktemp("keras"), timeout=400))


@pytest.mark.parametrize("served_as", ["tensorflow", "keras"])
def test_keras_training_script_matches_real_keras(tmp_path, real_keras_run, served_as):
    real = real_keras_run
    served = _losses(_vfw_run(["--as", served_as, str(SCRIPTS / "keras_train.py"), "3"], tmp_path))
    # vfw's EagerTensor reports TF's name; the tensorflow module is vfw's
    assert served["tensor_module"] == real["tensor_module"] == "tensorflow.python.framework.ops"
    assert "/vfw/" in served["tensorflow_file"] and "/vfw/" not in real["tensorflow_file"]
    assert served["keras_is_tf_keras"]
    assert len(served["losses"]) == len(real["losses"]) == 3
    np.testing.assert_allclose(served["losses"], real["losses"], rtol=1e-4, atol=1e-5)
