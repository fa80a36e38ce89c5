"""tf.keras.preprocessing: the legacy image, sequence and text helpers (vfw serves them to
``keras.preprocessing`` too) and the dataset builders of keras.utils."""

from vfw.frontends.tensorflow.keras.preprocessing import image, sequence, text  # noqa: F401
from vfw.frontends.tensorflow.keras.src.utils.dataset_directory import (  # noqa: F401
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from vfw.frontends.tensorflow.keras.src.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
