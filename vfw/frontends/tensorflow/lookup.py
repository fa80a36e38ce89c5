"""tf.lookup and tf.lookup.experimental: gathered from the op family modules (see ``_families``)."""

import types

from vfw.frontends.tensorflow import _families

globals().update(_families.names("lookup"))

experimental = types.ModuleType("vfw.tensorflow.lookup.experimental", "tf.lookup.experimental")
experimental.__dict__.update(_families.names("lookup.experimental"))
del types
