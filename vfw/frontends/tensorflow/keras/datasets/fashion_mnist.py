"""keras.datasets.fashion_mnist."""

from vfw.frontends.tensorflow.keras.src.datasets.images import load_fashion_mnist as load_data  # noqa: F401
