"""keras.ops.image."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("ops.image"))
