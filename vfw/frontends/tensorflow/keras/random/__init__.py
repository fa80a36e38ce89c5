"""keras.random: random ops with SeedGenerator."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names('random'))
