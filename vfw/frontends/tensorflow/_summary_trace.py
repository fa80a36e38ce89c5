"""``tf.summary`` graph tracing and raw writes: ``trace_on``/``trace_export``/``trace_off``, ``graph``,
``experimental.summary_scope`` and ``experimental.write_raw_pb``.

What is written: ``trace_export`` writes TF's record (tag, ``graph_run_metadata_graph`` plugin, or
``graph_run_metadata`` when the profiler traced too) holding an EMPTY ``RunMetadata``: vfw's traced functions are
engine graphs, not TF GraphDefs, so no function graph is in it (TensorBoard shows the run without a graph).  With
``profiler=True`` the profiler (``tf.profiler.experimental``) writes its run directory under ``profiler_outdir``.
``graph`` writes a ``graph_def`` event from a ``GraphDef`` message (or an object with ``as_graph_def()``), as given.
``write_raw_pb`` merges the serialized ``Summary`` messages into one event at the step.
"""

import contextlib
import logging
import re
import time

import numpy as np

from vfw.frontends.tensorflow import _dtypes, _name_scope, _summary_ops, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, mismatch
from vfw.io.tensorboard import protos

_logger = logging.getLogger("tensorflow")
_trace = {"on": False, "profiler": False}


def _profiler():
    from vfw.frontends.tensorflow.profiler import experimental

    return experimental


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start recording what ``trace_export`` writes (and start the profiler when ``profiler`` and
    ``profiler_outdir`` are given)."""
    if _trace["on"]:
        _logger.warning("Trace already enabled")
        return
    if profiler and profiler_outdir is None:
        _logger.warning("No `profiler_outdir` passed to trace_on(). Profiler won't be enabled.")
    _trace["profiler"] = bool(profiler and profiler_outdir is not None)
    if _trace["profiler"]:
        _profiler().start(profiler_outdir)
    _trace["on"] = True


def trace_off():
    """Stop recording (and stop the profiler without saving), discarding what was recorded."""
    _trace["on"] = False
    if _trace["profiler"]:
        _trace["profiler"] = False
        _profiler().stop(save=False)
    else:
        _logger.warning("Error while stopping profiler: Cannot export profiling results. No profiler is running.")


def trace_export(name, step=None, profiler_outdir=None):
    """Write the traced run under ``name`` (prefixed by the name scope) at ``step`` to the default writer, save the
    profiler's run directory, and stop tracing.

    Raises
    ------
    ValueError
        When tracing is off, or no step is given or set.
    """
    if not _trace["on"]:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    if profiler_outdir is not None:
        _logger.warning("Ignoring `profiler_outdir` passed to trace_export(). Please pass it to trace_on() instead.")
    plugin = "graph_run_metadata" if _trace["profiler"] else "graph_run_metadata_graph"
    metadata = protos.plugin_metadata(plugin, content=b"1")
    tag = _name_scope.current() + name

    def write(writer, array, step_number):
        value = protos.Summary.Value(tag=tag, metadata=metadata, tensor=protos.tensor_proto(array))
        writer._write_summary(protos.Summary(value=[value]), step_number)

    _summary_ops.record(convert_to_tensor(b""), step, write)  # b"": an empty RunMetadata; no step: tracing goes on
    if _trace["profiler"]:
        _trace["profiler"] = False
        _profiler().stop()
    _trace["on"] = False


def _graph_def_bytes(graph_data):
    if hasattr(graph_data, "as_graph_def"):
        graph_data = graph_data.as_graph_def()
    if type(graph_data).__name__ == "GraphDef" and hasattr(graph_data, "SerializeToString"):
        return graph_data.SerializeToString()
    raise ValueError(f"Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. Received "
                     f"graph_data={graph_data} of type {type(graph_data).__name__}.")


def graph(graph_data):
    """Write ``graph_data`` (a ``GraphDef``) as a ``graph_def`` event to the default writer.

    Returns
    -------
    Tensor
        True, or False when nothing records.

    Raises
    ------
    ValueError
        When ``graph_data`` is not a graph.
    """
    if not _summary_ops._recording():
        return convert_to_tensor(False)
    serialized = _graph_def_bytes(graph_data)
    _summary_ops._writers[-1]._write_event(protos.Event(wall_time=time.time(), graph_def=serialized))
    return convert_to_tensor(True)


_NOT_IN_SCOPE_NAMES = re.compile(r"[^A-Za-z0-9_.\-/>]")


@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """Context manager yielding ``(tag, scope)``: the summary tag ``name`` (``default_name`` when empty) prefixed
    by the name scope, and the name scope entered for it (``name`` without the characters op names refuse)."""
    name = name or default_name
    tag = _name_scope.current() + name
    with _name_scope.name_scope(_NOT_IN_SCOPE_NAMES.sub("", name) or default_name) as scope:
        yield tag, scope


def write_raw_pb(tensor, step=None, name=None):
    """Write the serialized ``tf.compat.v1.Summary`` messages of ``tensor`` (strings), merged, as one event at
    ``step``.

    Raises
    ------
    InvalidArgumentError
        For a tensor that is not strings.
    DataLossError
        For a string that is not a serialized ``Summary``.
    """
    def value():
        protos_tensor = convert_to_tensor(tensor)
        if protos_tensor.dtype != _dtypes.string:
            raise mismatch("WriteRawProtoSummary", _dtypes.string, protos_tensor.dtype, 2)
        return protos_tensor

    def write(writer, array, step_number):
        summary = protos.Summary()
        for i, serialized in enumerate(np.asarray(array, object).reshape(-1).tolist()):
            try:
                summary.MergeFromString(serialized)
            except Exception:  # protobuf's DecodeError
                raise errors.DataLossError(None, None, "Bad tf.compat.v1.Summary binary proto tensor string at "
                                           f"index {i} [Op:WriteRawProtoSummary] name: ") from None
        writer._write_summary(summary, step_number)

    return _summary_ops.record(value, step, write)
