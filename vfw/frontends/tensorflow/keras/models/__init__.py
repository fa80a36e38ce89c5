"""keras.models: Model, Sequential, cloning and loading."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('models'))
