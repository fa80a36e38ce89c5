"""keras.losses: loss classes and functions."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('losses'))
