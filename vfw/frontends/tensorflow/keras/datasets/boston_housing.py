"""keras.datasets.boston_housing."""

from vfw.frontends.tensorflow.keras.src.datasets.tabular import load_boston_housing as load_data  # noqa: F401
