"""tf.profiler: only ``tf.profiler.experimental`` (TF2's profiler API)."""

from vfw.frontends.tensorflow.profiler import experimental  # noqa: F401
