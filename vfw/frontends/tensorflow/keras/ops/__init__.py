"""keras.ops: backend-agnostic operations."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('ops'))

from vfw.frontends.tensorflow.keras.ops import image, linalg, nn, numpy  # noqa: E402,F401
