"""keras.optimizers.schedules: learning-rate schedules."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("optimizers.schedules"))
