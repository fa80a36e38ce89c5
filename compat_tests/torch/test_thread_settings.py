"""``torch.get_num_threads()`` at start follows ``MKL_NUM_THREADS`` / ``OMP_NUM_THREADS`` as torch's does."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ENVIRONMENTS = [
    {"OMP_NUM_THREADS": "1"},
    {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "64"},  # MKL's setting wins, at most the CPU count
    {"OMP_NUM_THREADS": "abc"},  # not a count: ignored
]


def test_start_thread_count_follows_the_environment_as_torch():
    code = "import {} as torch; print(torch.get_num_threads())"
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    runs = [(env, module, subprocess.Popen([sys.executable, "-c", code.format(module)], env=dict(base, **env),
                                           stdout=subprocess.PIPE, text=True))
            for env in ENVIRONMENTS for module in ("torch", "vfw.torch")]
    counts = {}
    for env, module, process in runs:
        out, _ = process.communicate(timeout=120)
        assert process.returncode == 0, (env, module)
        counts.setdefault(tuple(env.items()), {})[module] = int(out)
    for env, by_module in counts.items():
        assert by_module["vfw.torch"] == by_module["torch"], env
