"""tf.train: gathered from the op family modules (see ``_families``): checkpoints (``_checkpoint``)."""

from vfw.frontends.tensorflow import _families

globals().update(_families.names("train"))
