"""keras.saving: saving models and weights, (de)serialization."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('saving'))
