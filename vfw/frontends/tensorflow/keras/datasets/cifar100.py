"""keras.datasets.cifar100."""

from vfw.frontends.tensorflow.keras.src.datasets.images import load_cifar100 as load_data  # noqa: F401
