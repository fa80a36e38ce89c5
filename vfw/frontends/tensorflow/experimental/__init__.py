"""tf.experimental: ``tf.experimental.numpy`` (TF's NumPy API over tf.Tensor)."""

from vfw.frontends.tensorflow.experimental import numpy  # noqa: F401
