"""tf.summary trace_on/trace_export/trace_off, graph, experimental.summary_scope and experimental.write_raw_pb of
vfw vs real TensorFlow 2.21: both write event files that real TF's reader reads back; tags, steps, plugins and
events must agree (vfw's trace holds an empty RunMetadata: its graphs are not TF GraphDefs)."""

import glob
import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402


def _events(logdir):
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    assert len(files) == 1, files
    return list(rtf.compat.v1.train.summary_iterator(files[0]))[1:]


def _described(event):
    if event.WhichOneof("what") == "graph_def":
        return "graph_def", event.step, event.graph_def
    return "summary", event.step, [(v.tag, v.metadata.plugin_data.plugin_name, v.metadata.plugin_data.content,
                                    v.WhichOneof("value")) for v in event.summary.value]


def _run_both(tmp_path, program):
    """``program(tf)`` run with a default writer in each framework: (its results, the events written)."""
    outcomes = []
    for name, tf in (("real", rtf), ("vfw", vtf)):
        logdir = str(tmp_path / name)
        writer = tf.summary.create_file_writer(logdir)
        with writer.as_default():
            result = program(tf, str(tmp_path / f"{name}_profile"))
        writer.close()
        outcomes.append((result, [_described(e) for e in _events(logdir)]))
    return outcomes


def _graph_def():
    graph_def = rtf.compat.v1.GraphDef()
    node = graph_def.node.add()
    node.name, node.op = "a", "Const"
    return graph_def


def test_trace_export_writes_the_graph_record(tmp_path):
    def program(tf, profile_dir):
        double = tf.function(lambda x: x * 2.0)
        tf.summary.trace_on(graph=True)
        double(tf.constant(1.0))
        written = tf.summary.trace_export("trace", step=3)
        tf.summary.trace_on()
        with tf.name_scope("outer"):
            tf.summary.trace_export("scoped", step=4)
        with pytest.raises(ValueError, match="Must enable trace before export"):
            tf.summary.trace_export("again", step=5)
        tf.summary.trace_on()
        tf.summary.trace_off()
        with pytest.raises(ValueError, match="Must enable trace before export"):
            tf.summary.trace_export("off", step=6)
        return written

    (real_result, real_events), (vfw_result, vfw_events) = _run_both(tmp_path, program)
    assert real_result is None and vfw_result is None
    assert vfw_events == real_events


def test_trace_export_needs_a_step(tmp_path):
    def program(tf, profile_dir):
        tf.summary.trace_on()
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.trace_export("trace")
        tf.summary.trace_export("still_on", step=2)  # a failed export leaves tracing on
        return None

    (_, real_events), (_, vfw_events) = _run_both(tmp_path, program)
    assert vfw_events == real_events
    assert [tags[0][0] for _, _, tags in vfw_events] == ["still_on"]


def test_trace_with_profiler_writes_a_profile_run(tmp_path):
    def program(tf, profile_dir):
        tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=profile_dir)
        tf.constant(1.0) + 1.0
        tf.summary.trace_export("profiled", step=1)
        runs = glob.glob(os.path.join(profile_dir, "plugins", "profile", "*", "*.xplane.pb"))
        return len(runs)

    (real_runs, real_events), (vfw_runs, vfw_events) = _run_both(tmp_path, program)
    assert vfw_runs == real_runs == 1
    assert vfw_events == real_events


def test_graph(tmp_path):
    def program(tf, profile_dir):
        written = tf.summary.graph(_graph_def())
        errors = []
        for bad in ("x", 3):
            with pytest.raises(ValueError) as info:
                tf.summary.graph(bad)
            errors.append(str(info.value))
        return bool(written), errors

    (real_result, real_events), (vfw_result, vfw_events) = _run_both(tmp_path, program)
    assert vfw_result == real_result
    assert vfw_events == real_events
    assert vfw_events[0][0] == "graph_def"


def test_graph_without_writer_writes_nothing():
    assert bool(vtf.summary.graph(_graph_def())) is bool(rtf.summary.graph(_graph_def())) is False


def test_summary_scope():
    def run(tf):
        found = []
        with tf.name_scope("outer"):
            for name, default in (("a b", "dflt"), (None, "dflt"), ("q:1", "summary"), ("", "summary")):
                with tf.summary.experimental.summary_scope(name, default) as (tag, scope):
                    found.append((tag, scope))
        with tf.summary.experimental.summary_scope("top") as (tag, scope):
            found.append((tag, scope))
        return found

    assert run(vtf) == run(rtf)


def test_write_raw_pb(tmp_path):
    summary = rtf.compat.v1.Summary(value=[rtf.compat.v1.Summary.Value(tag="raw", simple_value=1.5)])

    def program(tf, profile_dir):
        written = tf.summary.experimental.write_raw_pb(
            tf.constant([summary.SerializeToString(), b""]), step=7)
        with pytest.raises(tf.errors.DataLossError, match="Bad tf.compat.v1.Summary binary proto"):
            tf.summary.experimental.write_raw_pb([b"junk"], step=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="WriteRawProtoSummary"):
            tf.summary.experimental.write_raw_pb([1], step=1)
        return bool(written)

    (real_result, real_events), (vfw_result, vfw_events) = _run_both(tmp_path, program)
    assert real_result is vfw_result is True
    assert vfw_events == real_events


def test_write_raw_pb_without_writer():
    assert bool(vtf.summary.experimental.write_raw_pb([b""], step=1)) is False
