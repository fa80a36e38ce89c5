"""Warnings torch emits once per process (its TORCH_WARN_ONCE sites) against real torch 2.13.

Each library runs every case twice under ``warnings.simplefilter("always")`` in a fresh process (the "once"
state is per process), and the warnings (their messages) are compared.  Cases where torch warns on every call
are included too, so a site made "once" by mistake fails.
"""

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]

CASES = {
    "meshgrid": "torch.meshgrid(torch.ones(2), torch.ones(2))",
    "T_3d": "torch.ones(2, 2, 2).T",
    "T_1d": "torch.ones(2).T",
    "T_0d": "torch.tensor(1.).T",
    "mT_0d": "torch.tensor(1.).mT",
    "H_0d": "torch.tensor(1.).H",
    "mH_0d": "torch.tensor(1.).mH",
    "adjoint_0d": "torch.tensor(1.).adjoint()",
    "cholesky": "torch.cholesky(M)",
    "chain_matmul": "torch.chain_matmul(M, M)",
    "lu": "torch.lu(M)",
    "lu_solve": "torch.lu_solve(torch.ones(3, 1), *torch.linalg.lu_factor(M))",
    "complex_to_real": "torch.zeros(2, dtype=torch.complex64).to(torch.float32)",
    "stft_no_window": "torch.stft(torch.ones(64), 16, return_complex=True)",
    "istft_no_window": "torch.istft(torch.stft(torch.ones(64), 16, window=torch.ones(16), return_complex=True), 16)",
    "stft_real": "torch.stft(torch.ones(64), 16, window=torch.ones(16), return_complex=False)",
    "istft_length": ("torch.istft(torch.stft(torch.ones(64), 16, window=torch.ones(16), return_complex=True), 16, "
                     "window=torch.ones(16), center=False, length=200)"),
    "nuclear_norm": "torch.nuclear_norm(M)",
    "frobenius_norm": "torch.frobenius_norm(M, dim=(0, 1))",
    "frombuffer": "torch.frombuffer(b'abcd', dtype=torch.uint8)",
    # torch warns at every call here
    "softmax_implicit_dim": "torch.nn.functional.softmax(torch.ones(2, 3))",
    "size_average": "torch.nn.functional.mse_loss(torch.ones(2), torch.ones(2), size_average=True)",
    "uint8_index": "torch.ones(2, 3)[torch.tensor([1, 0], dtype=torch.uint8)]",
    "upsample": "torch.nn.functional.upsample(torch.ones(1, 1, 2, 2), scale_factor=2)",
}

_SCRIPT = """
import json, sys, warnings
if sys.argv[1] == "vfw":
    import vfw.torch as torch
else:
    import torch
M = torch.ones(3, 3) + torch.eye(3)
cases = json.loads(sys.argv[2])
counts = {}
for name, code in cases.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(code)
        eval(code)
    # numpy's RuntimeWarnings are not torch's; the torch message's "(Triggered internally at ...)" tail is dropped
    counts[name] = [str(w.message).split(" (Triggered internally")[0] for w in caught
                    if not issubclass(w.category, RuntimeWarning)]
print(json.dumps(counts))
"""


def _warnings_of(lib):
    out = subprocess.run([sys.executable, "-c", _SCRIPT, lib, json.dumps(CASES)], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both():
    return _warnings_of("torch"), _warnings_of("vfw")


@pytest.mark.parametrize("name", sorted(CASES))
def test_warned_as_often_as_torch(both, name):
    torch_warnings, vfw_warnings = both
    assert vfw_warnings[name] == torch_warnings[name]
