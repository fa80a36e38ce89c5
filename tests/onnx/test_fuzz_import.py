"""The importer fuzzed with mutated models (``fuzz_import.py``), in a child process with capped memory."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_mutated_models_load_and_run_or_raise_vfw_errors():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "tests.onnx.fuzz_import", "--examples", "1000"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-8000:]
