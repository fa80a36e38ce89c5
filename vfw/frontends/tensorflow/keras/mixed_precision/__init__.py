"""keras.mixed_precision: dtype policies under their mixed-precision names and LossScaleOptimizer."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("mixed_precision"))
