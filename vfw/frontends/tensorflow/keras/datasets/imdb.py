"""keras.datasets.imdb."""

from vfw.frontends.tensorflow.keras.src.datasets.tabular import imdb_word_index as get_word_index  # noqa: F401
from vfw.frontends.tensorflow.keras.src.datasets.tabular import load_imdb as load_data  # noqa: F401
