"""keras.constraints."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('constraints'))
