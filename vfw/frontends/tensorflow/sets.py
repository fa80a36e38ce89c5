"""tf.sets: gathered from the op family modules (see ``_families``)."""

from vfw.frontends.tensorflow import _families

globals().update(_families.names("sets"))
