"""IntegerLookup and StringLookup: tokens to vocabulary indices (or back, ``invert=True``), with ``adapt``.

Both are :class:`~.preprocessing_index_lookup.IndexLookup` (the vocabulary, ``adapt``, output modes and ``.keras``
assets); they differ in the token kind: integers (out-of-vocabulary tokens go to oov index ``token mod
num_oov_indices``, Keras' ``"floormod"``, or hashed: ``"farmhash"``) and strings (kept as ``str``, looked up as
bytes in ``encoding``; out-of-vocabulary strings are hashed to choose among several oov indices).  Hashing is TF's:
FarmHash Fingerprint64, or keyed SipHash-2-4 with a ``salt``, of the token's bytes (an integer's decimal string).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._farmhash import fingerprint64
from vfw.frontends.tensorflow._siphash import siphash24
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_index_lookup import IndexLookup, StringDtype


def _checked_salt(salt):
    """Keras' ``salt``: None, a pair (as a list), or an int ``s`` for ``[s, s]``."""
    if salt is None:
        return None
    if isinstance(salt, (tuple, list)) and len(salt) == 2:
        return list(salt)
    if isinstance(salt, int):
        return [salt, salt]
    raise ValueError(f"The `salt` argument for `IndexLookup` can only be a tuple of 2 integers, or a single integer. "
                     f"Received: salt={salt}.")


def _hashed_oov_offsets(keys, num_oov_indices, salt):
    """The oov index offsets of byte strings ``keys``: their TF string hash (SipHash with ``salt``) modulo
    ``num_oov_indices``."""
    hashes = siphash24(keys, salt) if salt is not None else fingerprint64(keys)
    return (hashes % np.uint64(num_oov_indices)).astype(np.int64)


class IntegerLookup(IndexLookup):
    """Maps integer tokens to indices of a vocabulary (given, or learned by :meth:`adapt` by frequency).

    Parameters as :class:`IndexLookup` (``oov_token`` default -1), and

    vocabulary_dtype : {"int64"}
    oov_method : {"floormod", "farmhash"}
        How out-of-vocabulary integers choose among ``num_oov_indices``: ``token mod num_oov_indices``, or the
        hash of the token's decimal string (FarmHash, or SipHash keyed by ``salt``).
    salt : int or pair of int, optional
        Only with ``oov_method="farmhash"``.
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
        if vocabulary_dtype != "int64":
            raise ValueError(f"Only `vocabulary_dtype='int64'` is supported at this time. Received: "
                             f"vocabulary_dtype={vocabulary_dtype}")
        self.vocabulary_dtype, self.oov_method, self.salt = vocabulary_dtype, oov_method, _checked_salt(salt)
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)

    @staticmethod
    def _as_token(value):
        return int(value)

    @staticmethod
    def _key(token):
        return int(token)

    def _oov_offsets(self, tokens):
        if self.oov_method == "farmhash":
            keys = [str(int(token)).encode() for token in tokens]
            return _hashed_oov_offsets(keys, self.num_oov_indices, self.salt)
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

    Parameters as :class:`IndexLookup` (``oov_token`` default ``"[UNK]"``), and

    encoding : str
        The text encoding of the string tensors' bytes.
    salt : int or pair of int, optional
        With several oov indices, out-of-vocabulary strings choose one by their FarmHash, or their SipHash keyed
        by ``salt``.
    """

    _token_kind = "string"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", name=None, salt=None, **kwargs):
        kwargs.pop("oov_method", None)  # in Keras' config, always "floormod" (string tokens are hashed)
        self.encoding, self.salt = encoding, _checked_salt(salt)
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)

    def _as_token(self, value):
        return value.decode(self.encoding) if isinstance(value, bytes) else str(value)

    def _key(self, token):
        return token.encode(self.encoding)

    def _oov_offsets(self, tokens):
        return _hashed_oov_offsets(list(tokens), self.num_oov_indices, self.salt)

    def _checked_input(self, inputs):
        if isinstance(inputs, (list, tuple, np.ndarray)) and np.asarray(inputs).dtype.kind in "USO":
            inputs = np.asarray(inputs, object)
        # As Keras: inputs are cast to the vocabulary dtype (TF refuses int <-> string casts: UnimplementedError).
        inputs = tf.convert_to_tensor(inputs)
        return inputs if self.invert else tf.cast(inputs, tf.string)

    def get_config(self):
        return {**super().get_config(), "oov_method": "floormod", "salt": self.salt, "encoding": self.encoding}


API = {"layers": ["IntegerLookup", "StringLookup"]}
