"""``tf.summary``: summary writers and the ops that write scalars, histograms, images, text and raw tensors to
TensorBoard event files (``vfw.io.tensorboard``).

State follows TF2: a stack of default writers (``as_default``), the default step
(``tf.summary.experimental.set_step``) and the recording condition (``record_if``).  A write with no default
writer, or while the condition is false, writes nothing and returns False.  Inside a ``tf.function`` the write is
a PyFunc op of the graph: each run of the function writes that run's values with that run's step.  The
summary ops prefix their tag with the ``tf.name_scope`` in force (``write`` takes its tag as given), as TF does.
"""

import contextlib

import numpy as np

from vfw.core.graph.subgraph import tracing_subgraph
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dispatch, _dtypes, _name_scope
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.io.tensorboard import histograms, protos
from vfw.io.tensorboard.event_file import EventFileWriter

_writers = []  # the default writer stack (innermost last)
_state = {"step": None, "record_if": True}


class SummaryWriter:
    """Base class of summary writers (``tf.summary.SummaryWriter``)."""

    def as_default(self, step=None):
        """Context manager making this the default writer (and ``step`` the default step, when given); the
        writer is flushed on exit."""
        return _default_writer(self, step)

    def set_as_default(self, step=None):
        """Make this the default writer for the rest of the program (and ``step`` the default step)."""
        _writers[:] = [self]
        if step is not None:
            _state["step"] = step

    def init(self):
        """Nothing to initialize: the event file is created with the writer."""

    def flush(self):
        """Write pending events to disk."""

    def close(self):
        """Flush and stop writing."""

    def _write_summary(self, summary, step):
        raise NotImplementedError


class _FileWriter(SummaryWriter):
    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._logdir = str(logdir)
        self._options = (max_queue, flush_millis, filename_suffix)
        self._file = None
        self._open()

    def _open(self):
        max_queue, flush_millis, suffix = self._options
        self._file = EventFileWriter(self._logdir, filename_suffix=".v2" if suffix is None else suffix,
                                     max_queue=10 if max_queue is None else max_queue,
                                     flush_secs=120 if flush_millis is None else flush_millis / 1000,
                                     source_writer="tensorflow.core.util.events_writer")

    def _live_file(self):
        if self._file.closed:  # TF reopens a closed writer's resource on the next write, in a new file
            self._open()
        return self._file

    def _write_summary(self, summary, step):
        self._live_file().add_summary(summary, step)

    def _write_event(self, event):
        self._live_file().add_event(event)

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.close()


class _NoopWriter(SummaryWriter):
    def _write_summary(self, summary, step):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A writer of a new event file ``events.out.tfevents.<time>.<host>.<pid>.<n>.v2`` in ``logdir``.

    Parameters
    ----------
    logdir : str
    max_queue : int, optional
        Pending summaries that trigger a write to disk (10).
    flush_millis : int, optional
        Milliseconds between writes to disk (120000).
    filename_suffix : str, optional
        Replaces the ``.v2`` suffix.
    """
    logdir = convert_to_tensor(logdir).array.item() if not isinstance(logdir, str) else logdir
    return _FileWriter(logdir.decode() if isinstance(logdir, bytes) else logdir, max_queue, flush_millis,
                       filename_suffix)


def create_noop_writer():
    """A writer that writes nothing (summaries return False under it)."""
    return _NoopWriter()


@contextlib.contextmanager
def _default_writer(writer, step):
    previous_step = _state["step"]
    _writers.append(writer)
    if step is not None:
        _state["step"] = step
    try:
        yield writer
    finally:
        _writers.pop()
        _state["step"] = previous_step
        writer.flush()


def get_step():
    """The default step (``tf.summary.experimental.get_step``), or None."""
    return _state["step"]


def set_step(step):
    """Set the default step: an int, a tensor or a ``tf.Variable`` (read at each write)."""
    _state["step"] = step


@contextlib.contextmanager
def record_if(condition):
    """Context manager: summaries are written only while ``condition`` (a bool, a boolean tensor, or a callable
    returning one, called at each write) holds."""
    previous = _state["record_if"]
    _state["record_if"] = condition
    try:
        yield
    finally:
        _state["record_if"] = previous


def _recording():
    if not _writers or isinstance(_writers[-1], _NoopWriter):  # a no-op writer records nothing, as in TF
        return False
    condition = _state["record_if"]
    if callable(condition):
        condition = condition()
    return bool(np.asarray(getattr(condition, "array", condition)))


def should_record_summaries():
    """A boolean tensor: whether a write now would write (a default writer and a true ``record_if``)."""
    return _dispatch.wrap(np.array(_recording()))


def flush(writer=None, name=None):
    """Flush ``writer`` (default: the default writer; none: nothing)."""
    writer = writer if writer is not None else (_writers[-1] if _writers else None)
    if writer is not None:
        writer.flush()


def _step_tensor(step):
    step = get_step() if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    return convert_to_tensor(step, dtype_hint=_dtypes.int64)


def _emit(tag, value, step, make_value):
    """Write ``make_value(array)`` (a ``Summary.Value`` without its tag) at ``step`` to the default writer; False
    (a tensor) when nothing records.  ``value`` is a tensor or a callable giving one (called only when
    recording)."""
    def write(writer, array, step_number):
        summary_value = make_value(array)
        summary_value.tag = tag
        writer._write_summary(protos.Summary(value=[summary_value]), step_number)

    return record(value, step, write)


def record(value, step, write):
    """Call ``write(writer, array, step)`` with the default writer, the array of ``value`` (a tensor or a callable
    giving one, called only when recording) and the step number; inside a ``tf.function`` at every run, as a
    PyFunc op.  Returns True (a tensor), or False when nothing records."""
    if not _recording():
        return _dispatch.wrap(np.array(False))
    writer = _writers[-1]
    step = _step_tensor(step)
    tensor = value() if callable(value) else value

    def run(array, step_array):
        write(writer, array, int(step_array))
        return np.array(True)

    if _tracing and current_trace() is not None:
        def traced_run(array, step_array):
            if not tracing_subgraph():  # a control-flow body's tracing run writes nothing
                run(array, step_array)
            return np.array(True)

        return _dispatch.callback(current_trace(), traced_run, tensor, step)[0]
    return _dispatch.wrap(run(tensor.array, step.array))


def _metadata(plugin_name, description):
    return protos.plugin_metadata(plugin_name, description=description or "")


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write ``tensor`` (or the result of calling it) under ``tag`` at ``step`` with ``metadata`` (a
    ``SummaryMetadata`` or its serialized bytes).  Returns True, or False when nothing records.

    Raises
    ------
    ValueError
        When recording and no step is given or set.
    """
    if isinstance(metadata, bytes):
        metadata = protos.SummaryMetadata.FromString(metadata)
    elif metadata is not None and not isinstance(metadata, protos.SummaryMetadata):
        metadata = protos.SummaryMetadata.FromString(metadata.SerializeToString())

    def make_value(array):
        value = protos.Summary.Value(tensor=protos.tensor_proto(array))
        if metadata is not None:
            value.metadata.CopyFrom(metadata)
        return value

    return _emit(tag, (lambda: convert_to_tensor(tensor() if callable(tensor) else tensor)), step, make_value)


def scalar(name, data, step=None, description=None):
    """Write a scalar (as a float32 tensor, TensorBoard's ``scalars`` plugin)."""
    metadata = _metadata("scalars", description)

    def value():
        tensor = convert_to_tensor(data)
        if tensor.array.ndim != 0:
            raise ValueError(f"Expected scalar shape for {name}, saw shape: {list(tensor.array.shape)}.")
        return tensor

    return _emit(_name_scope.current() + name, value, step, lambda array: protos.Summary.Value(
        metadata=metadata, tensor=protos.tensor_proto(np.asarray(array, np.float32))))


def histogram(name, data, step=None, buckets=None, description=None):
    """Write the histogram of ``data`` (``buckets`` equal-width buckets, default 30, as a float64
    ``[buckets, 3]`` tensor of left edge, right edge and count)."""
    metadata = _metadata("histograms", description)
    count = 30 if buckets is None else int(np.asarray(getattr(buckets, "array", buckets)))

    def make_value(array):
        return protos.Summary.Value(metadata=metadata,
                                    tensor=protos.tensor_proto(histograms.tensorflow_buckets(array, count)))

    return _emit(_name_scope.current() + name, lambda: convert_to_tensor(data), step, make_value)


def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to ``max_outputs`` images of ``data`` (``[k, height, width, channels]``, channels 1, 3 or 4;
    floats in [0, 1] are scaled to uint8 with saturation) as PNGs: the tensor ``[width, height, png...]``."""
    from vfw.frontends.tensorflow._image_ops import convert_image_dtype
    from vfw.io import png

    metadata = _metadata("images", description)

    def value():
        images = convert_to_tensor(data)
        if images.array.ndim != 4 or images.array.shape[-1] not in (1, 3, 4):
            raise ValueError(f"Expected image data of shape [k, h, w, 1|3|4] for {name}, saw shape: "
                             f"{list(images.array.shape)}.")
        return convert_image_dtype(images, _dtypes.uint8, saturate=True)

    def make_value(array):
        encoded = [png.encode(img) for img in array[:int(max_outputs)]]
        dims = [str(array.shape[2]).encode(), str(array.shape[1]).encode()]
        return protos.Summary.Value(metadata=metadata, tensor=protos.tensor_proto(np.array(dims + encoded, object)))

    return _emit(_name_scope.current() + name, value, step, make_value)


def text(name, data, step=None, description=None):
    """Write a string tensor (TensorBoard's ``text`` plugin)."""
    metadata = _metadata("text", description)
    return _emit(_name_scope.current() + name, lambda: convert_to_tensor(data, dtype=_dtypes.string), step,
                 lambda array: protos.Summary.Value(metadata=metadata, tensor=protos.tensor_proto(
                     np.asarray(array, object))))


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """Write up to ``max_outputs`` clips of ``data`` (``[k, frames, channels]`` floats in [-1, 1]) as 16-bit WAV
    files at ``sample_rate`` Hz: the string tensor ``[k, 2]`` of (WAV bytes, empty label)."""
    from vfw.io import wav

    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}")
    metadata = protos.plugin_metadata("audio", content=b"\x10\x0b",  # AudioPluginData(encoding=WAV)
                                      description=description or "")

    def value():
        clips = convert_to_tensor(data, dtype=_dtypes.float32)
        if clips.array.ndim != 3:
            raise ValueError(f"Expected audio data of shape [k, t, c] for {name}, saw shape: "
                             f"{list(clips.array.shape)}.")
        return clips

    rate = float(np.asarray(getattr(sample_rate, "array", sample_rate)))

    def make_value(array):
        rows = [[wav.encode(clip, rate), b""] for clip in array[:int(max_outputs)]]
        table = np.array(rows, object).reshape(len(rows), 2)
        return protos.Summary.Value(metadata=metadata, tensor=protos.tensor_proto(table))

    return _emit(_name_scope.current() + name, value, step, make_value)
