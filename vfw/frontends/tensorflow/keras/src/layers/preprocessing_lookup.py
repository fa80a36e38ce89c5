"""IntegerLookup: integer tokens to vocabulary indices (or back, ``invert=True``), with ``adapt``.

Index layout as Keras': in ``"int"`` mode ``[mask_token (if set), oov indices..., vocabulary...]``; in the
encoding modes (``"one_hot"``, ``"multi_hot"``, ``"count"``) the mask token has no index and encodes to zeros.
Out-of-vocabulary tokens go to oov index ``token mod num_oov_indices`` (Keras' ``"floormod"``). The lookup runs
with tf ops (a sorted vocabulary searched with ``tf.searchsorted``), so it works in traced training steps and
``dataset.map``.

An adapted vocabulary (or one set with ``set_vocabulary``) is saved in ``.keras`` files as Keras does: as the asset
``vocabulary.txt`` (one token a line, special tokens first; ``save_assets``/``load_assets``), while a vocabulary
given to the constructor is part of the config.  The config's ``vocabulary_size`` fixes the depth of the encoding
modes until the vocabulary is loaded.
"""

import os

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _check_not_sparse, _DataLayer, encode_categories

_MODES = ("int", "one_hot", "multi_hot", "count")
_VOCABULARY_FILENAME = "vocabulary.txt"


class IntegerLookup(_DataLayer):
    """Maps integer tokens to indices of a vocabulary (given, or learned by :meth:`adapt` by frequency).

    Parameters
    ----------
    max_tokens : int, optional
        Largest vocabulary size learned by ``adapt``, special tokens (mask, oov indices) included.
    num_oov_indices : int
        How many indices out-of-vocabulary tokens share (0: they are an error).
    mask_token, oov_token : int
        The token meaning "masked" (None: none) and the one that ``invert=True`` gives for oov indices.
    vocabulary : list or array of int, optional
    vocabulary_dtype : {"int64", "int32"}
    invert : bool
        Map indices back to tokens (``"int"`` mode only).
    output_mode : {"int", "one_hot", "multi_hot", "count"}
        ``"tf_idf"``, ``sparse=True``, ``pad_to_max_tokens=True`` and ``oov_method="farmhash"`` are not supported
        by vfw (NotImplementedError).
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, oov_method="floormod", salt=None, name=None, **kwargs):
        # The number of indices when the vocabulary was last set (from configs: before assets are loaded).
        self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode == "tf_idf" or idf_weights is not None or pad_to_max_tokens or oov_method != "floormod":
            raise NotImplementedError("IntegerLookup in vfw supports output_mode 'int', 'one_hot', 'multi_hot' and "
                                      "'count' with oov_method='floormod' (no tf_idf, idf_weights or "
                                      "pad_to_max_tokens).")
        if output_mode not in _MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {_MODES + ('tf_idf',)}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if vocabulary_dtype not in ("int64", "int32"):
            raise ValueError(f"IntegerLookup vocabulary_dtype must be int32 or int64. Received: {vocabulary_dtype}")
        _check_not_sparse(sparse)
        self.max_tokens, self.num_oov_indices = max_tokens, num_oov_indices
        self.mask_token, self.oov_token = mask_token, oov_token
        self.vocabulary_dtype, self.invert, self.output_mode = vocabulary_dtype, invert, output_mode
        self.sparse, self.pad_to_max_tokens, self.oov_method, self.salt = sparse, pad_to_max_tokens, oov_method, salt
        self.idf_weights = idf_weights
        self._given_vocabulary = None if vocabulary is None else [int(v) for v in np.ravel(vocabulary)]
        self._convert_input_args = False
        self._set_tables(np.zeros([0], np.int64))
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    # -- the vocabulary --------------------------------------------------------------------------------------------
    @property
    def _masked(self):
        """Whether the mask token has an index (``"int"`` mode only)."""
        return self.mask_token is not None and self.output_mode == "int"

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary``: the tokens in index order, optionally preceded by exactly the special tokens
        (``get_vocabulary()``'s layout)."""
        if idf_weights is not None:
            raise NotImplementedError("IntegerLookup in vfw has no tf_idf mode (idf_weights).")
        vocabulary = np.asarray(vocabulary, np.int64).ravel()
        if vocabulary.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        special = self.get_vocabulary()[:self._first_vocabulary_index()]
        tokens = vocabulary[len(special):] if np.array_equal(special, vocabulary[:len(special)]) else vocabulary
        if len(np.unique(tokens)) != len(tokens):
            repeated = [int(t) for t, n in zip(*np.unique(tokens, return_counts=True)) if n > 1]
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             f"The repeated terms are: {repeated}")
        for kind, token, reserved in (("mask", self.mask_token, True), ("OOV", self.oov_token, self.invert)):
            if reserved and token is not None and token in tokens:
                raise ValueError(f"Found reserved {kind} token at unexpected location in `vocabulary`. Note that "
                                 "passed `vocabulary` does not need to include the OOV and mask tokens. Either remove "
                                 "all mask and OOV tokens, or include them only at the start of the vocabulary in "
                                 f"precisely this order: {special}. Received: {kind.lower()}_token={token} at "
                                 f"vocabulary index {np.flatnonzero(vocabulary == token)[-1:]}")
        size = self._first_vocabulary_index() + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary "
                             f"size is {size}; `max_tokens` is {self.max_tokens}.")
        self._use_tokens(tokens)

    def _use_tokens(self, tokens):
        """Make ``tokens`` (special tokens excluded) the vocabulary, recording its size."""
        size = self._first_vocabulary_index() + len(tokens)
        if self.output_mode != "int" and self._frozen_vocab_size not in (None, size):
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, the "
                               "vocabulary size cannot be changed after the layer is called. Old vocab size is "
                               f"{self._frozen_vocab_size}, new vocab size is {size}")
        self._frozen_vocab_size = size
        self._set_tables(tokens)

    def _set_tables(self, tokens):
        """The lookup tables of the vocabulary ``tokens`` (special tokens excluded)."""
        self._tokens = tokens
        order = np.argsort(tokens, kind="stable")
        self._sorted_tokens = tf.constant(tokens[order])
        self._sorted_indices = tf.constant(order.astype(np.int64) + self._first_vocabulary_index())
        self._index_tokens = tf.constant(np.asarray(self.get_vocabulary(), np.int64))

    def _first_vocabulary_index(self):
        return int(self._masked) + self.num_oov_indices

    def get_vocabulary(self, include_special_tokens=True):
        """The tokens in index order (mask and oov tokens first when ``include_special_tokens``)."""
        tokens = [int(t) for t in self._tokens]
        if not include_special_tokens:
            return tokens
        return [self.mask_token] * int(self._masked) + [self.oov_token] * self.num_oov_indices + tokens

    def vocabulary_size(self):
        """The number of indices, special tokens included."""
        return self._first_vocabulary_index() + len(self._tokens)

    def adapt(self, data, steps=None):
        """Learn the vocabulary from ``data`` (array, tensor, dataset or iterable of batches): tokens by decreasing
        frequency (ties: larger tokens first), at most ``max_tokens`` indices in all."""
        from vfw.frontends.tensorflow.data import Dataset

        if self._given_vocabulary is not None:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` "
                             "argument or `set_vocabulary()` method.")
        if isinstance(data, Dataset):
            batches = data.take(steps) if steps is not None else data
            values = [np.asarray(b[0] if isinstance(b, tuple) else b).ravel() for b in batches]
        elif isinstance(data, np.ndarray) or tf.is_tensor(data) or not hasattr(data, "__iter__"):
            values = [np.asarray(data).ravel()]
        else:
            values = [np.asarray(b).ravel() for b in data]
        tokens = np.concatenate(values).astype(np.int64) if values else np.zeros([0], np.int64)
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                tokens = tokens[tokens != special]
        unique, counts = np.unique(tokens, return_counts=True)
        order = np.lexsort((unique, counts))[::-1]  # by count, then by token, both decreasing
        if self.max_tokens:
            order = order[:max(self.max_tokens - self._first_vocabulary_index(), 0)]
        self._use_tokens(unique[order])

    # -- saving ------------------------------------------------------------------------------------------------
    def save_assets(self, dir_path):
        """Write the vocabulary (special tokens first) to ``dir_path/vocabulary.txt``, unless the config holds it."""
        if self._given_vocabulary is not None:
            return
        with open(os.path.join(dir_path, _VOCABULARY_FILENAME), "w") as f:
            f.write("\n".join(str(token) for token in self.get_vocabulary()))

    def load_assets(self, dir_path):
        """Set the vocabulary from ``dir_path/vocabulary.txt`` (nothing to do when the config held it)."""
        if self._given_vocabulary is not None:
            return
        if dir_path is None:
            raise ValueError(f"The model file has no `{_VOCABULARY_FILENAME}` asset for IntegerLookup layer "
                             f"'{self.name}', whose vocabulary is not in its config.")
        with open(os.path.join(dir_path, _VOCABULARY_FILENAME)) as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        self.set_vocabulary([int(line) for line in lines])

    def get_build_config(self):
        """``{}``: the lookup's state is its vocabulary (config or assets), not the input shape."""
        return {}

    def build_from_config(self, config):
        self.build(None)

    # -- the lookup --------------------------------------------------------------------------------------------
    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self._frozen_vocab_size
        if len(input_shape) == 0:
            return (depth,)
        if self.output_mode == "one_hot" and (input_shape[-1] != 1 or len(input_shape) == 1):
            return tuple(input_shape) + (depth,)
        return tuple(input_shape[:-1]) + (depth,)

    def compute_output_spec(self, inputs):
        # As Keras: symbolic encodings are floatx, although eager calls give int64.
        dtype = "int64" if self.output_mode == "int" else backend.floatx()
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def call(self, inputs):
        inputs = tf.convert_to_tensor(inputs)
        if inputs.dtype not in (tf.int32, tf.int64):
            raise ValueError(f"When `vocabulary_dtype` is integer, `inputs` must be integer. Received: "
                             f"inputs.dtype={inputs.dtype.name}")
        tokens = tf.cast(inputs, tf.int64)
        if self.invert:
            return self._tokens_of(tokens)
        indices = self._indices_of(tokens)
        if self.output_mode == "int":
            return indices
        if self._frozen_vocab_size is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must "
                               "set the layer's vocabulary before calling it. Either pass a `vocabulary` argument to "
                               "the layer, or call `adapt` with some sample data.")
        return encode_categories(indices, self.output_mode, self._frozen_vocab_size, "int64")

    def _indices_of(self, tokens):
        flat = tf.reshape(tokens, [-1])
        if len(self._tokens):
            position = tf.minimum(tf.searchsorted(self._sorted_tokens, flat), len(self._tokens) - 1)
            found = tf.equal(tf.gather(self._sorted_tokens, position), flat)
            known = tf.gather(self._sorted_indices, position)
        else:
            found, known = tf.zeros_like(flat, dtype=tf.bool), tf.zeros_like(flat)
        if self.num_oov_indices:
            oov = tf.math.floormod(flat, self.num_oov_indices) + int(self._masked)
        else:
            tf.debugging.assert_equal(tf.reduce_all(found), True, message="When `num_oov_indices=0` all inputs "
                                      "should be in vocabulary, found OOV values")
            oov = tf.zeros_like(flat)
        indices = tf.where(found, known, oov)
        if self.mask_token is not None:  # "int": index 0; encodings: an index outside, which encodes to zeros
            indices = tf.where(tf.equal(flat, self.mask_token), tf.zeros_like(flat) - int(not self._masked), indices)
        return tf.reshape(indices, tf.shape(tokens))

    def _tokens_of(self, indices):
        inside = tf.logical_and(indices >= 0, indices < self.vocabulary_size())
        safe = tf.where(inside, indices, tf.zeros_like(indices))
        return tf.where(inside, tf.gather(self._index_tokens, safe), tf.zeros_like(indices) + self.oov_token)

    def get_config(self):
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token, "mask_token": self.mask_token,
                "output_mode": self.output_mode, "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype, "idf_weights": self.idf_weights,
                "vocabulary": self._given_vocabulary, "vocabulary_size": self._frozen_vocab_size,
                "oov_method": self.oov_method, "salt": self.salt}


API = {"layers": ["IntegerLookup"]}
