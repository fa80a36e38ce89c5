"""``python -m vfw coverage``: the committed snapshots match the real frameworks; the report matches vfw."""

import importlib
import json
import os
import pathlib
import subprocess
import sys

import pytest

from compat_tests import coverage_snapshot
from vfw._coverage import namespaces, report

REPO = pathlib.Path(__file__).resolve().parents[2]
FRAMEWORKS = sorted(namespaces.NAMESPACES)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_snapshot_is_the_installed_reference_version(framework):
    """The committed snapshot is what compat_tests.coverage_snapshot reads from the real framework (rerun it
    when this fails)."""
    real = pytest.importorskip(framework)
    assert real.__version__.startswith(namespaces.NAMESPACES[framework]["version"] + ".")
    assert coverage_snapshot.make_snapshot(framework) == report.load_snapshot(framework)


def test_snapshot_lists_known_public_callables():
    torch_names = report.load_snapshot("torch")["namespaces"]
    tf_names = report.load_snapshot("tensorflow")["namespaces"]
    assert {"matmul", "Tensor", "manual_seed"} <= set(torch_names["torch"])
    assert {"Linear", "Module"} <= set(torch_names["torch.nn"]) and "add_" in torch_names["torch.Tensor"]
    assert "Optional" not in torch_names["torch.nn.functional"]  # typing re-exports are no torch API
    assert not any(name.startswith("_") for names in torch_names.values() for name in names)
    assert {"constant", "GradientTape"} <= set(tf_names["tf"]) and "Dense" in tf_names["tf.keras.layers"]
    assert {"map", "batch", "from_tensor_slices"} <= set(tf_names["tf.data.Dataset"])


def _vfw_object(path):
    try:
        return importlib.import_module(path)
    except ImportError:  # a class: vfw.torch.Tensor, vfw.tensorflow.data.Dataset
        module_path, _, attribute = path.rpartition(".")
        return getattr(importlib.import_module(module_path), attribute)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_report_splits_the_snapshot_by_what_vfw_has(framework):
    result = report.coverage(framework)
    snapshot = report.load_snapshot(framework)
    assert result["version"] == snapshot["version"] and set(result["namespaces"]) == set(snapshot["namespaces"])
    for name, entry in result["namespaces"].items():
        vfw_namespace = _vfw_object(entry["vfw"])
        present = {member for member in snapshot["namespaces"][name] if callable(getattr(vfw_namespace, member, None))}
        assert entry["missing"] == [member for member in snapshot["namespaces"][name] if member not in present]
        assert (entry["provided"], entry["total"]) == (len(present), len(snapshot["namespaces"][name]))
    assert result["total"] == sum(len(names) for names in snapshot["namespaces"].values())
    assert result["provided"] == sum(entry["provided"] for entry in result["namespaces"].values())
    assert 0 < result["provided"] < result["total"]
    known = {"torch": ("torch.nn", "Linear"), "tensorflow": ("tf.keras.layers", "Dense")}[framework]
    assert known[1] not in result["namespaces"][known[0]]["missing"]


def _coverage_cli(*args):
    """``python -m vfw coverage`` in a process where torch, tensorflow and keras cannot be imported."""
    blocker = ("import sys, runpy\n"
               "for name in ('torch', 'tensorflow', 'keras'): sys.modules[name] = None\n"
               "sys.argv = ['vfw', 'coverage', *sys.argv[1:]]\n"
               "runpy.run_module('vfw', run_name='__main__', alter_sys=True)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-c", blocker, *args], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_cli_json_without_the_real_frameworks():
    printed = json.loads(_coverage_cli("--format", "json"))
    assert sorted(printed) == FRAMEWORKS
    for framework in FRAMEWORKS:
        assert printed[framework] == report.coverage(framework)


def test_cli_markdown_for_one_framework():
    printed = _coverage_cli("--framework", "torch")
    expected = report.coverage("torch")
    assert printed.startswith(f"### torch {expected['version']}\n") and "tensorflow" not in printed
    for name, entry in expected["namespaces"].items():
        assert f"| `{name}` | {entry['provided']} | {entry['total']} |" in printed
        if entry["missing"]:
            assert f"Missing from `{name}` ({len(entry['missing'])}): `{entry['missing'][0]}`" in printed
    assert f"| **all** | **{expected['provided']}** | **{expected['total']}** |" in printed


def test_cli_summary_leaves_out_missing_names():
    printed = json.loads(_coverage_cli("--framework", "tensorflow", "--format", "json", "--summary"))
    assert list(printed) == ["tensorflow"]
    assert all("missing" not in entry for entry in printed["tensorflow"]["namespaces"].values())
    assert "Missing from" not in _coverage_cli("--summary")
