"""The benchmark runner keeps working (it is run, not timed: benchmarks are not tests)."""

import importlib.util
import json

import pytest

from benchmarks.__main__ import ENTRIES, _run_entry_isolated, main
from benchmarks.report import COMBINED_HEADER, combined_rows
from benchmarks.targets import COMPARISONS, TARGETS, comparisons_for, target_for

_AVAILABLE = {"numpy": True, "vfw eager": True, "torch": importlib.util.find_spec("torch") is not None,
              "TF": importlib.util.find_spec("tensorflow") is not None,
              "onnxruntime": importlib.util.find_spec("onnxruntime") is not None}
_HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def test_quick_run_prints_tables_and_writes_json_and_png(tmp_path, capsys):
    json_path, png_path = tmp_path / "bench.json", tmp_path / "bench.png"
    status = main(["--quick", "--json", str(json_path), "--png", str(png_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    for title, _ in ENTRIES.values():
        assert title in out
    assert "All entries: vfw time / reference time" in out and "targets met:" in out

    data = json.loads(json_path.read_text())
    assert set(data) == {"settings", "machine", "entries", "combined"}
    assert data["settings"]["quick"] is True
    assert set(data["entries"]) == set(ENTRIES)
    for entry in data["entries"].values():
        assert "error" not in entry
        assert all(len(row) == len(entry["header"]) for row in entry["rows"])

    machine = data["machine"]
    assert machine["cores"] >= 1 and machine["cpu"]
    assert machine["blas"]["library"] and machine["versions"]["numpy"] == __import__("numpy").__version__

    combined = data["combined"]
    assert combined["header"] == COMBINED_HEADER
    rows = combined["rows"]
    for row in rows:
        assert row["entry"] in ENTRIES
        assert row["ratio"] == pytest.approx(row["vfw_seconds"] / row["reference_seconds"])
        assert (row["target"] is None) == (row["met"] is None)
    # every known entry whose reference library is installed reaches the combined table
    expected = {entry for entry, comparisons in COMPARISONS.items() if entry in ENTRIES
                and any(_AVAILABLE.get(c.reference, False) for c in comparisons)}
    assert expected <= {row["entry"] for row in rows}
    # a registered entry unknown to COMPARISONS is either read from its header or named in a note
    for entry in set(ENTRIES) - set(COMPARISONS):
        assert entry in {row["entry"] for row in rows} or any(n.startswith(entry) for n in combined["notes"])

    if _HAS_MATPLOTLIB:
        assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert not png_path.exists() and "matplotlib is not installed" in out


def test_threads_option_reruns_with_one_thread_everywhere(tmp_path):
    json_path = tmp_path / "bench.json"
    assert main(["eager_overhead", "--quick", "--threads", "1", "--json", str(json_path)]) == 0
    data = json.loads(json_path.read_text())
    assert data["settings"]["threads"] == "1"
    assert all(value == "1" for name, value in data["machine"]["thread_environment"].items()
               if name != "OMP_WAIT_POLICY")
    assert data["machine"]["blas"]["threads"] in (1, None)  # None: the BLAS cannot be asked
    if _AVAILABLE["torch"]:
        assert data["machine"]["framework_threads"]["torch"] == 1
    assert list(data["entries"]) == ["eager_overhead"]


def test_an_entry_runs_in_a_process_of_its_own(capfd):
    result = _run_entry_isolated("eager_overhead", 1, True)
    assert "error" not in result and result["title"] == ENTRIES["eager_overhead"][0]
    assert result["rows"] and all(len(row) == len(result["header"]) for row in result["rows"])
    assert result["title"] in capfd.readouterr().out  # the child's table is printed here


def test_combined_rows_apply_targets_and_read_unregistered_entries():
    results = {
        "torch_training": {"header": ["training step", "vfw.torch ms", "torch ms", "vfw/torch"],
                           "rows": [["MLP 784-512-512-10, batch 128, SGD", "6.00", "5.00", "1.20x"],
                                    ["CNN 2x(conv-relu-pool) + 2 linear", "30.0", "10.0", "3.00x"],
                                    ["LSTM seq 32", "1.0", "n/a", "n/a"]]},
        "eager_overhead": {"header": ["case", "numpy us", "engine Op us", "torch us"],
                           "rows": [["add 16x16", "1.00", "2.00", "4.00"], ["relu 16x16", "1.00", "3.00", "4.00"]]},
        "onnx_runtime": {"header": ["model", "vfw ms", "ort ms", "vfw/ort", "max abs diff"],
                         "rows": [["resnet50", 30.0, 20.0, 1.5, "1e-6"], ["MLP 784-512-512-10", 3.2, 2.0, 1.6, "0"]]},
        "distributed": {"header": ["case", "vfw ms", "baseline ms", "vfw/baseline", "note"],
                        "rows": [["all-reduce 16 MB", 10.5, 10.0, 1.05, ""], ["all_reduce 64 MB", 48.0, 40.0, 1.2, ""],
                                 ["skipped", "", "", "", "mpi4py missing"]]},
        # an entry not in COMPARISONS: its columns come from the ratio header "vfw/ort"
        "new_entry": {"header": ["model", "vfw us", "ort ms", "vfw/ort"], "rows": [["m", 1500.0, 1.0, 1.5]]},
        "unreadable": {"header": ["case", "speed"], "rows": [["x", 1.0]]},
    }
    rows, notes = combined_rows(results)
    by_key = {(r["entry"], r["case"], r["reference"]): r for r in rows}
    mlp = by_key["torch_training", "MLP 784-512-512-10, batch 128, SGD", "torch"]
    assert mlp["vfw_seconds"] == pytest.approx(6e-3) and mlp["ratio"] == pytest.approx(1.2)
    assert mlp["target"] == "<= 1.2x" and mlp["met"] is True
    cnn = by_key["torch_training", "CNN 2x(conv-relu-pool) + 2 linear", "torch"]
    assert cnn["target"] == "<= 2x" and cnn["met"] is False
    assert not any(key[1] == "LSTM seq 32" for key in by_key)  # no reference time: no ratio
    # overhead target: 1 us above numpy passes, 2 us does not; the torch comparison has no target
    assert by_key["eager_overhead", "add 16x16", "numpy"]["met"] is True
    assert by_key["eager_overhead", "relu 16x16", "numpy"]["met"] is False
    assert by_key["eager_overhead", "add 16x16", "torch"]["target"] is None
    assert by_key["eager_overhead", "add 16x16", "torch"]["ratio"] == pytest.approx(0.5)
    assert by_key["onnx_runtime", "resnet50", "onnxruntime"]["met"] is True
    assert by_key["onnx_runtime", "MLP 784-512-512-10", "onnxruntime"]["met"] is False  # 1.6 > 1.5
    distributed = {case: r for (entry, case, _), r in by_key.items() if entry == "distributed"}
    assert set(distributed) == {"all-reduce 16 MB", "all_reduce 64 MB"}  # the skipped row has no times
    assert distributed["all-reduce 16 MB"]["met"] is True
    assert distributed["all_reduce 64 MB"]["reference_seconds"] == pytest.approx(0.04)
    assert distributed["all_reduce 64 MB"]["met"] is False  # 1.2 > 1.1
    new = by_key["new_entry", "m", "onnxruntime"]
    assert new["vfw_seconds"] == pytest.approx(1.5e-3) and new["ratio"] == pytest.approx(1.5)
    assert new["target"] is None and new["met"] is None
    assert [n for n in notes if n.startswith("unreadable")] and len(notes) == 1


def test_targets_table_matches_the_issues():
    assert target_for("torch_frontend", "x + y", "torch").limit == 1.0
    assert target_for("torch_frontend", "x[:, 1:3]", "torch").limit == 1.5
    assert target_for("tf_frontend", "GradientTape step (w: Variable)", "TF").limit == 0.2
    assert target_for("tf_function", "while_loop, 10 iterations on 16x16", "TF") is None
    assert target_for("keras_fit", "CNN 28x28x1 (Conv-Pool x2 + Dense), 6400 samples", "TF").limit == 2.0
    assert target_for("graph_mode", "MLP 784-512-512-10 b128 SGD step O2", "torch").limit == 1.1
    assert all(t.kind in ("ratio", "overhead") for t in TARGETS)
    assert comparisons_for("tf_data", ["case", "vfw ms", "tf ms", "vfw/tf"]) == COMPARISONS["tf_data"]
