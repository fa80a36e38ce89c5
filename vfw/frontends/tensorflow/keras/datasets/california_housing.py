"""keras.datasets.california_housing."""

from vfw.frontends.tensorflow.keras.src.datasets.tabular import load_california_housing as load_data  # noqa: F401
