"""tf.math and tf.math.special: gathered from the op family modules (see ``_families``)."""

import types

from vfw.frontends.tensorflow import _families

globals().update(_families.names("math"))

special = types.ModuleType(__name__ + ".special", "tf.math.special: Bessel functions.")
special.__dict__.update(_families.names("math.special"))
