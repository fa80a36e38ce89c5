"""keras.optimizers: optimizers."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('optimizers'))

from vfw.frontends.tensorflow.keras.optimizers import schedules  # noqa: E402,F401
