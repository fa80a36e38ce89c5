"""IntegerLookup and StringLookup: tokens to vocabulary indices (or back, ``invert=True``), with ``adapt``.

Both are :class:`~.preprocessing_index_lookup.IndexLookup` (the vocabulary, ``adapt``, output modes and ``.keras``
assets); they differ in the token kind: integers (out-of-vocabulary tokens go to oov index ``token mod
num_oov_indices``, Keras' ``"floormod"``) and strings (kept as ``str``, looked up as bytes in ``encoding``).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_index_lookup import IndexLookup, StringDtype


class IntegerLookup(IndexLookup):
    """Maps integer tokens to indices of a vocabulary (given, or learned by :meth:`adapt` by frequency).

    Parameters as :class:`IndexLookup` (``oov_token`` default -1), and

    vocabulary_dtype : {"int64", "int32"}
    oov_method : {"floormod"}
        Keras' ``"farmhash"`` (with ``salt``) is not supported by vfw (NotImplementedError).
    """

    _token_kind = "int"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"`oov_method` must be one of 'floormod' or 'farmhash'. Received: oov_method="
                             f"{oov_method}")
        if salt is not None and oov_method != "farmhash":
            raise ValueError(f"`salt` can only be used when `oov_method='farmhash'`. Received: oov_method="
                             f"{oov_method}")
        if oov_method == "farmhash":
            raise NotImplementedError("IntegerLookup in vfw supports only oov_method='floormod' (no FarmHash).")
        if vocabulary_dtype not in ("int64", "int32"):
            raise ValueError(f"IntegerLookup vocabulary_dtype must be int32 or int64. Received: {vocabulary_dtype}")
        self.vocabulary_dtype, self.oov_method, self.salt = vocabulary_dtype, oov_method, salt
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)

    @staticmethod
    def _as_token(value):
        return int(value)

    @staticmethod
    def _key(token):
        return int(token)

    def _oov_offsets(self, tokens):
        return np.mod(np.asarray(tokens, np.int64), self.num_oov_indices)

    def _checked_input(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        if inputs.dtype not in (tf.int32, tf.int64):
            raise ValueError(f"When `vocabulary_dtype` is integer, `inputs` must be integer. Received: "
                             f"inputs.dtype={inputs.dtype.name}")
        return tf.cast(inputs, tf.int64)

    def get_config(self):
        return {**super().get_config(), "vocabulary_dtype": self.vocabulary_dtype, "oov_method": self.oov_method,
                "salt": self.salt}


class StringLookup(StringDtype, IndexLookup):
    """Maps string tokens to indices of a vocabulary (given, or learned by :meth:`adapt` by frequency).

    Parameters as :class:`IndexLookup` (``oov_token`` default ``"[UNK]"``; ``num_oov_indices`` 0 or 1 in vfw: Keras
    hashes strings with FarmHash to choose among several), and

    encoding : str
        The text encoding of the string tensors' bytes.
    """

    _token_kind = "string"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        kwargs.pop("oov_method", None)  # in Keras' config, always "floormod" (string tokens are hashed)
        if num_oov_indices > 1:
            raise NotImplementedError("StringLookup in vfw supports num_oov_indices 0 or 1 (Keras hashes strings "
                                      "with FarmHash to choose among several oov indices).")
        self.encoding, self.salt = encoding, salt
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)

    def _as_token(self, value):
        return value.decode(self.encoding) if isinstance(value, bytes) else str(value)

    def _key(self, token):
        return token.encode(self.encoding)

    def _oov_offsets(self, tokens):
        return np.zeros(len(tokens), np.int64)

    def _checked_input(self, inputs):
        if isinstance(inputs, (list, tuple, np.ndarray)) and np.asarray(inputs).dtype.kind in "USO":
            inputs = np.asarray(inputs, object)
        # As Keras: inputs are cast to the vocabulary dtype (TF refuses int <-> string casts: UnimplementedError).
        inputs = tf.convert_to_tensor(inputs)
        return inputs if self.invert else tf.cast(inputs, tf.string)

    def get_config(self):
        return {**super().get_config(), "oov_method": "floormod", "salt": self.salt, "encoding": self.encoding}


API = {"layers": ["IntegerLookup", "StringLookup"]}
