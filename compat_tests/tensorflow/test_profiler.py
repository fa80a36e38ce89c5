"""tf.profiler.experimental of vfw vs real TensorFlow 2.21: the session rules and errors, the run directory a
saved session writes (TensorBoard's layout), ProfilerOptions, Trace and Profile."""

import glob
import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402

FRAMEWORKS = [pytest.param(rtf, id="real"), pytest.param(vtf, id="vfw")]


def _runs(logdir):
    """The saved runs' files, relative to ``logdir``, with the run's timestamp and host replaced."""
    found = []
    for path in glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*")):
        run, name = os.path.split(path)
        found.append((len(os.path.basename(run).split("_")), name.endswith(".xplane.pb")))
    return found


def _session(tf, logdir):
    profiler = tf.profiler.experimental
    errors = []
    for call in (profiler.stop, lambda: (profiler.start(logdir), profiler.start(logdir))):
        try:
            call()
        except Exception as e:  # the classes are compared below, across the two frameworks
            errors.append((type(e).__name__, str(e)))
    with profiler.Trace("train", step_num=1, _r=1) as trace:
        traced = trace is not None
    profiler.stop()
    with profiler.Profile(os.path.join(logdir, "second"), options=profiler.ProfilerOptions(host_tracer_level=3)):
        pass
    return errors, traced, _runs(logdir), _runs(os.path.join(logdir, "second"))


def test_session_rules_and_run_directory(tmp_path):
    assert _session(vtf, str(tmp_path / "vfw")) == _session(rtf, str(tmp_path / "real"))


def test_stop_without_saving_writes_nothing(tmp_path):
    def run(tf, logdir):
        tf.profiler.experimental.start(logdir)
        tf.profiler.experimental.stop(save=False)
        return _runs(logdir)

    assert run(vtf, str(tmp_path / "vfw")) == run(rtf, str(tmp_path / "real"))


def test_profiler_options():
    def run(tf):
        options = tf.profiler.experimental.ProfilerOptions(python_tracer_level=1, delay_ms=5)
        return repr(options), tuple(options), repr(tf.profiler.experimental.ProfilerOptions())

    assert run(vtf) == run(rtf)


@pytest.mark.parametrize("tf", FRAMEWORKS)
def test_error_classes(tf):
    with pytest.raises(tf.errors.UnavailableError):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(os.devnull + "_unused")
    try:
        with pytest.raises(tf.errors.AlreadyExistsError):
            tf.profiler.experimental.start(os.devnull + "_unused")
    finally:
        tf.profiler.experimental.stop(save=False)
