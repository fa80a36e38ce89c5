"""tf.summary: summary writers and summary ops (``_summary_ops``), graph tracing (``_summary_trace``);
``tf.summary.experimental``."""

import types

from vfw.frontends.tensorflow._summary_ops import (  # noqa: F401
    SummaryWriter,
    audio,
    create_file_writer,
    create_noop_writer,
    flush,
    get_step,
    histogram,
    image,
    record_if,
    scalar,
    set_step,
    should_record_summaries,
    text,
    write,
)
from vfw.frontends.tensorflow._summary_trace import (  # noqa: F401
    graph,
    summary_scope,
    trace_export,
    trace_off,
    trace_on,
    write_raw_pb,
)

experimental = types.ModuleType("vfw.tensorflow.summary.experimental", "tf.summary.experimental")
experimental.get_step = get_step
experimental.set_step = set_step
experimental.summary_scope = summary_scope
experimental.write_raw_pb = write_raw_pb
del get_step, set_step, summary_scope, write_raw_pb, types
