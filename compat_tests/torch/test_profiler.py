"""torch.profiler vs real torch 2.13: the table's layout, op names and counts, schedules and callbacks, traces."""

import json

import pytest

from compat_tests.torch.harness import LIBS

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))


def _profiled(lib, **options):
    model, x = _model(lib), lib.randn(5, 4)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **options) as prof:
        with lib.profiler.record_function("model_inference"):
            model(x)
    return prof


def _counts(prof, names):
    counts = {e.key: e.count for e in prof.key_averages()}
    return {name: counts.get(name) for name in names}


def test_counts_of_the_ops_both_run():
    names = ["model_inference", "aten::addmm", "aten::relu"]
    assert _counts(_profiled(vt), names) == _counts(_profiled(real), names) == {
        "model_inference": 1, "aten::addmm": 2, "aten::relu": 1}


def _header(table):
    lines = table.splitlines()
    return lines[0], lines[1].split("  "), lines[2]


@pytest.mark.parametrize("options, group_by_input_shape", [({}, False), ({"profile_memory": True}, False),
                                                           ({"record_shapes": True}, False),
                                                           ({"record_shapes": True}, True)])
def test_table_layout(options, group_by_input_shape):
    tables = [_profiled(lib, **options).key_averages(group_by_input_shape=group_by_input_shape).table(
        sort_by="cpu_time_total", row_limit=10) for lib in LIBS]
    want, got = ([c.strip() for c in _header(t)[1] if c.strip()] for t in tables)
    assert got == want
    for table in tables:
        lines = table.splitlines()
        assert lines[0] == lines[2] and set(lines[0]) == {"-", " "}
        assert lines[-1].startswith("Self CPU time total: ") and lines[-2] == lines[0]
        widths = [len(c) for c in lines[0].split("  ") if c]
        assert all(w == 12 for w in widths[1:len(widths) - (1 if group_by_input_shape else 0)])
        assert table.endswith("\n")
    # the top row by total time is the record_function range, as in torch
    assert [t.splitlines()[3].split()[0] for t in tables] == ["model_inference", "model_inference"]


def test_input_shapes_of_relu_and_addmm():
    shapes = []
    for lib in LIBS:
        events = _profiled(lib, record_shapes=True).key_averages(group_by_input_shape=True)
        shapes.append(sorted((e.key, str(e.input_shapes)) for e in events if e.key == "aten::relu"))
    assert shapes[0] == shapes[1] == [("aten::relu", "[[5, 3]]")]


def test_row_limit_and_sort():
    for lib in LIBS:
        table = _profiled(lib).key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
        assert len(table.splitlines()) == 2 + 3 + 2
        events = sorted(_profiled(lib).key_averages(), key=lambda e: e.count, reverse=True)
        assert events[0].count >= events[-1].count


@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2, repeat=2, skip_first=1),
                                  dict(wait=0, warmup=1, active=1, repeat=0),
                                  dict(wait=2, warmup=0, active=3, repeat=1, skip_first=0)])
def test_schedule_actions_and_callbacks(args, recwarn):
    results = []
    for lib in LIBS:
        sched = lib.profiler.schedule(**args)
        actions = [sched(i).name for i in range(14)]
        ready, counts = [], []

        def on_ready(prof, ready=ready, counts=counts):
            ready.append(prof.step_num)
            counts.append({e.key: e.count for e in prof.key_averages()}.get("aten::relu"))

        x = lib.randn(3)
        with lib.profiler.profile(schedule=sched, on_trace_ready=on_ready) as prof:
            for _ in range(12):
                lib.relu(x.requires_grad_(True))
                prof.step()
        results.append((actions, ready, counts))
    assert results[1] == results[0]


def test_start_step_stop_without_schedule():
    results = []
    for lib in LIBS:
        ready = []
        prof = lib.profiler.profile(on_trace_ready=lambda p, ready=ready: ready.append(p.step_num))
        prof.start()
        x = lib.ones(2, requires_grad=True)
        for _ in range(3):
            lib.relu(x)
            prof.step()
        prof.stop()
        results.append((ready, {e.key: e.count for e in prof.key_averages()}.get("aten::relu")))
    assert results[1] == results[0]


def test_record_function_decorator_and_nesting():
    for lib in LIBS:
        @lib.profiler.record_function("outer")
        def work(x, lib=lib):
            with lib.autograd.profiler.record_function("inner"):
                return lib.relu(x)

        with lib.profiler.profile() as prof:
            work(lib.ones(2, requires_grad=True))
            work(lib.ones(2, requires_grad=True))
        counts = {e.key: e.count for e in prof.key_averages()}
        assert counts["outer"] == counts["inner"] == counts["aten::relu"] == 2
        by_name = {e.key: e for e in prof.key_averages()}
        assert by_name["outer"].cpu_time_total >= by_name["inner"].cpu_time_total


def test_chrome_trace(tmp_path):
    prof = _profiled(vt, record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    names = [e["name"] for e in events if e.get("ph") == "X"]
    assert names.count("aten::addmm") == 2 and "model_inference" in names
    for e in events:
        assert {"ph", "name", "ts", "dur", "pid", "tid"} <= set(e)


def test_tensorboard_trace_handler(tmp_path):
    x = vt.ones(2, requires_grad=True)
    with vt.profiler.profile(on_trace_ready=vt.profiler.tensorboard_trace_handler(str(tmp_path), "w0")):
        vt.relu(x)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.startswith("w0.") and files[0].name.endswith(".pt.trace.json")
    assert any(e["name"] == "aten::relu" for e in json.loads(files[0].read_text())["traceEvents"])


def test_nothing_installed_when_not_profiling():
    from vfw.frontends.torch import _dispatch
    plain = _dispatch.execute
    with vt.profiler.profile():
        assert _dispatch.execute is not plain
    assert _dispatch.execute is plain


def test_legacy_autograd_profiler_and_emit_nvtx():
    for lib in LIBS:
        with lib.autograd.profiler.profile() as prof:
            lib.relu(lib.ones(2, requires_grad=True))
        assert {e.key: e.count for e in prof.key_averages()}.get("aten::relu") == 1
    with vt.autograd.profiler.emit_nvtx():  # real torch needs CUDA for it; vfw's is a no-op
        assert vt.relu(vt.ones(2)).tolist() == [1.0, 1.0]
