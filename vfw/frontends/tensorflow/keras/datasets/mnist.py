"""keras.datasets.mnist."""

from vfw.frontends.tensorflow.keras.src.datasets.images import load_mnist as load_data  # noqa: F401
