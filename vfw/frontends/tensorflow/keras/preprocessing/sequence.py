"""tf.keras.preprocessing.sequence."""

from vfw.frontends.tensorflow.keras.src.legacy.sequence import (  # noqa: F401
    TimeseriesGenerator,
    make_sampling_table,
    pad_sequences,
    skipgrams,
)
