"""keras.datasets.reuters."""

from vfw.frontends.tensorflow.keras.src.datasets.tabular import load_reuters as load_data  # noqa: F401
from vfw.frontends.tensorflow.keras.src.datasets.tabular import reuters_label_names as get_label_names  # noqa: F401
from vfw.frontends.tensorflow.keras.src.datasets.tabular import reuters_word_index as get_word_index  # noqa: F401
