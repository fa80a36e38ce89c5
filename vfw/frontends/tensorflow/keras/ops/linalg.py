"""keras.ops.linalg."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("ops.linalg"))
