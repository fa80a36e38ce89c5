"""keras.ops.nn."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("ops.nn"))
