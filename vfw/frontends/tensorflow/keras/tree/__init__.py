"""keras.tree: utilities over nested structures."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('tree'))
