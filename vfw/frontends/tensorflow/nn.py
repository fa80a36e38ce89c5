"""tf.nn and tf.nn.experimental: gathered from the op family modules (see ``_families``)."""

import types

from vfw.frontends.tensorflow import _families

globals().update(_families.names("nn"))

experimental = types.ModuleType(__name__ + ".experimental", "tf.nn.experimental: dropout with a given mask source.")
experimental.__dict__.update(_families.names("nn.experimental"))
