"""tf.io: gathered from the op family modules (see ``_families``); ``tf.io.gfile`` from ``_io_gfile``."""

import types

from vfw.frontends.tensorflow import _families, _io_gfile

globals().update(_families.names("io"))

gfile = types.ModuleType("vfw.tensorflow.io.gfile", "tf.io.gfile: TF's file API over local paths.")
gfile.__dict__.update({name: getattr(_io_gfile, name) for name in _io_gfile.__all__})
