"""keras.dtype_policies: dtype policies (mixed precision)."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('dtype_policies'))
