"""torch.utils.benchmark against real torch 2.13. Timings differ run to run, so Measurement and Compare are
compared on fixed raw times (statistics, printouts, tables); Timer is checked for what it runs and returns,
never for how long it took."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.utils.benchmark as real_benchmark  # noqa: E402
import vfw.torch as vt  # noqa: E402
import vfw.torch.utils.benchmark as our_benchmark  # noqa: E402
from torch.utils.benchmark.utils.common import Measurement as RealMeasurement  # noqa: E402
from torch.utils.benchmark.utils.common import TaskSpec as RealTaskSpec  # noqa: E402
from vfw.torch.utils.benchmark.utils.common import Measurement as OurMeasurement  # noqa: E402
from vfw.torch.utils.benchmark.utils.common import TaskSpec as OurTaskSpec  # noqa: E402

RAW_TIMES = [
    [2.3e-4], [1e-5, 1.2e-5], [1e-5, 1.1e-5, 1.3e-5], [1.0, 1.0, 1.15, 1.15], [1.0, 1.0, 1.32, 1.32],
    [1e-5, 2e-5, 1.1e-5, 1.2e-5, 1.05e-5], list(np.linspace(3e-7, 3.1e-7, 9)), [5e-9, 5.1e-9, 4.9e-9, 5e-9],
]
SPECS = [
    dict(stmt="x * 2", setup="pass"), dict(stmt="x * 2", setup="y = 1", label="ops", sub_label="small"),
    dict(stmt="a = 1\nb = 2", setup="import os\nx = 1", sub_label="s", num_threads=2, description="desc"),
    dict(stmt="f(x)", setup="pass", label="L", description="D", env="py3", num_threads=4),
]


def _both(raw, number, spec):
    return (RealMeasurement(number, raw, RealTaskSpec(**spec)), OurMeasurement(number, raw, OurTaskSpec(**spec)))


def _without_address(text):
    return text.split("\n", 1)[1]


@pytest.mark.parametrize("raw", RAW_TIMES)
@pytest.mark.parametrize("spec", SPECS)
def test_measurement_matches_torch(raw, spec):
    real, ours = _both(raw, 10, spec)
    for name in ["mean", "median", "iqr"]:
        np.testing.assert_allclose(getattr(ours, name), getattr(real, name), rtol=1e-12)
    np.testing.assert_allclose(ours.times, real.times, rtol=1e-12)
    assert ours.raw_times == real.raw_times and ours.number_per_run == real.number_per_run
    assert (ours.title, ours.env, ours.as_row_name) == (real.title, real.env, real.as_row_name)
    assert (ours.has_warnings, ours.meets_confidence(), ours.meets_confidence(0.5)) == (
        real.has_warnings, real.meets_confidence(), real.meets_confidence(0.5))
    assert ours.significant_figures == real.significant_figures
    assert _without_address(repr(ours)) == _without_address(repr(real))
    assert repr(ours).startswith("<torch.utils.benchmark.utils.common.Measurement object at 0x")
    assert (ours.stmt, ours.label, ours.num_threads) == (real.stmt, real.label, real.num_threads)


def test_merge_pools_times_of_one_task():
    spec = dict(stmt="x", setup="pass", label="L")
    real = RealMeasurement.merge([RealMeasurement(10, [1e-5, 2e-5], RealTaskSpec(**spec)),
                                  RealMeasurement(5, [3e-5], RealTaskSpec(**spec))])
    ours = OurMeasurement.merge([OurMeasurement(10, [1e-5, 2e-5], OurTaskSpec(**spec)),
                                 OurMeasurement(5, [3e-5], OurTaskSpec(**spec))])
    assert len(ours) == len(real) == 1
    np.testing.assert_allclose(sorted(ours[0].times), sorted(real[0].times))


@pytest.mark.parametrize("t", [3e-10, 3e-8, 3e-5, 2e-2, 2.0, 5000.0])
def test_unit_helpers_match_torch(t):
    assert our_benchmark.select_unit(t) == real_benchmark.select_unit(t)
    unit = real_benchmark.select_unit(t)[0]
    assert our_benchmark.unit_to_english(unit) == real_benchmark.unit_to_english(unit)
    for figures in [1, 2, 3]:
        assert our_benchmark.trim_sigfig(t * 1.2345, figures) == pytest.approx(real_benchmark.trim_sigfig(
            t * 1.2345, figures), rel=1e-12)
    assert our_benchmark.ordered_unique([3, 1, 3, 2, 1]) == real_benchmark.ordered_unique([3, 1, 3, 2, 1])


def _table_measurements(module_measurement, module_spec):
    results = []
    for sub, base in [("small", 1e-6), ("large", 3.3e-5)]:
        for description, factor in [("add", 1.0), ("mul", 2.5)]:
            results.append(module_measurement(10, [base * factor * 10, base * factor * 10 * 1.01], module_spec(
                stmt="x", setup="pass", label="ops", sub_label=sub, description=description, num_threads=1)))
    results.append(module_measurement(10, [3.3e-4], module_spec(stmt="x", setup="pass", label="ops",
                                                                 sub_label="small", description="add",
                                                                 num_threads=4)))
    results.append(module_measurement(1, [2e-3, 2.1e-3], module_spec(stmt="y", setup="pass", label="other",
                                                                      description="only", env="first")))
    results.append(module_measurement(1, [2e-3, 2.1e-3, 3e-3, 4e-3], module_spec(
        stmt="z", setup="pass", label="other", description="only", env="second env")))  # torch sorts envs: all named
    return results


@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("trim_significant_figures", "colorize"),
                                     ("colorize_rowwise",), ("highlight_warnings",),
                                     ("highlight_warnings", "trim_significant_figures")])
def test_compare_table_matches_torch(options, capsys):
    real = real_benchmark.Compare(_table_measurements(RealMeasurement, RealTaskSpec))
    ours = our_benchmark.Compare(_table_measurements(OurMeasurement, OurTaskSpec))
    for option in options:
        for compare in (real, ours):
            compare.colorize(rowwise=True) if option == "colorize_rowwise" else getattr(compare, option)()
    assert str(ours) == str(real)
    ours.print()
    real.print()
    assert capsys.readouterr().out == (str(real) + "\n") * 2


def test_compare_refuses_other_objects():
    with pytest.raises(ValueError):
        real_benchmark.Compare([1])
    with pytest.raises(ValueError):
        our_benchmark.Compare([1])


def test_timer_runs_statement_with_setup_and_globals():
    calls = []
    timer = our_benchmark.Timer("record(x)", setup="record('setup')", globals={"record": calls.append, "x": 7},
                                label="L", sub_label="S", description="D", num_threads=2)
    measurement = timer.timeit(50)
    assert isinstance(measurement, our_benchmark.Measurement)
    assert measurement.number_per_run == 50 and len(measurement.raw_times) == 1
    assert calls.count(7) >= 50 and "setup" in calls
    assert (measurement.title, measurement.description, measurement.num_threads) == ("L: S", "D", 2)
    blocked = our_benchmark.Timer("torch.ones(3) + 1").blocked_autorange(min_run_time=0.01)
    assert sum(blocked.raw_times) >= 0.01 and blocked.median > 0 and blocked.number_per_run >= 1
    seen = []
    adaptive = our_benchmark.Timer("sum(range(10))").adaptive_autorange(
        max_run_time=0.05, callback=lambda number, seconds: seen.append((number, seconds)))
    assert len(seen) == len(adaptive.raw_times) >= 1
    assert all(number == adaptive.number_per_run for number, _ in seen)


def test_timer_restores_thread_count_and_rejects_non_python():
    before = vt.get_num_threads()
    our_benchmark.Timer("pass", num_threads=1).timeit(10)
    assert vt.get_num_threads() == before
    with pytest.raises(NotImplementedError):
        our_benchmark.Timer("pass").repeat()
    with pytest.raises(NotImplementedError):
        real_benchmark.Timer("pass").repeat()
    with pytest.raises(ValueError):
        our_benchmark.Timer(lambda: 0)
