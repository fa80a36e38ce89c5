"""tf.experimental: ``tf.experimental.numpy`` (TF's NumPy API over tf.Tensor), ``Optional``, ``dlpack`` and
``ExtensionType``."""

from vfw.frontends.tensorflow._extension_type import ExtensionType, ExtensionTypeSpec  # noqa: F401
from vfw.frontends.tensorflow._optional import Optional  # noqa: F401
from vfw.frontends.tensorflow.experimental import dlpack, numpy  # noqa: F401
