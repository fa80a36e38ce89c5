"""keras.quantizers: weight/activation quantizers and quantization configs."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('quantizers'))
