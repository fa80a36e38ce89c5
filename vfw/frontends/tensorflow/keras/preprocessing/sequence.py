"""tf.keras.preprocessing.sequence."""

from vfw.frontends.tensorflow.keras.src.legacy.sequence import make_sampling_table, pad_sequences, skipgrams  # noqa: F401
