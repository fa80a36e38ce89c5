"""keras.datasets: mnist, fashion_mnist, cifar10, cifar100, imdb, reuters, boston_housing, california_housing."""

from vfw.frontends.tensorflow.keras.datasets import (  # noqa: F401
    boston_housing,
    california_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)
