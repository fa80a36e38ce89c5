"""tf.keras.preprocessing.text."""

from vfw.frontends.tensorflow.keras.src.legacy.text import (  # noqa: F401
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
    tokenizer_from_json,
)
