"""tf.random and tf.random.experimental: gathered from the op family modules (see ``_families``)."""

import types

from vfw.frontends.tensorflow import _families

globals().update(_families.names("random"))

experimental = types.ModuleType(__name__ + ".experimental", "tf.random.experimental: stateless seed helpers, "
                                "Generator and the global generator.")
experimental.__dict__.update(_families.names("random.experimental"))
