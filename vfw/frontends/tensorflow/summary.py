"""tf.summary: summary writers and summary ops (``_summary_ops``); ``tf.summary.experimental``."""

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

experimental = types.ModuleType("vfw.tensorflow.summary.experimental", "tf.summary.experimental")
experimental.get_step = get_step
experimental.set_step = set_step
del get_step, set_step, types
