"""keras.datasets.cifar10."""

from vfw.frontends.tensorflow.keras.src.datasets.images import load_cifar10 as load_data  # noqa: F401
