"""The vocabulary lookup shared by IntegerLookup, StringLookup and TextVectorization (Keras' ``IndexLookup``).

Index layout as Keras': in ``"int"`` mode ``[mask_token (if set), oov indices..., vocabulary...]``; in the encoding
modes (``"one_hot"``, ``"multi_hot"``, ``"count"``, ``"tf_idf"``) the mask token has no index and encodes to zeros.
``adapt`` orders the vocabulary by decreasing count, ties by decreasing token, and learns tf-idf weights
``log(1 + documents / (1 + document frequency))`` (the OOV weight: their mean).  The lookup runs in numpy through
``host`` ops, so it works eagerly, in ``tf.function`` graphs (Keras' training steps) and in ``dataset.map``.

An adapted vocabulary (or one set with ``set_vocabulary``) is saved in ``.keras`` files as the asset
``vocabulary.txt`` (one token a line, special tokens first; tf-idf weights as ``idf_weights.txt``), while a
vocabulary given to the constructor is part of the config.  The config's ``vocabulary_size`` fixes the depth of the
encoding modes until the vocabulary is loaded.
"""

import collections
import os

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import host
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _check_not_sparse, _DataLayer, encode_categories

MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")
VOCABULARY_FILENAME, IDF_FILENAME = "vocabulary.txt", "idf_weights.txt"


def read_vocabulary_file(path, encoding="utf-8"):
    """The lines of the vocabulary file ``path`` (Keras' error when it does not exist)."""
    if not os.path.exists(path):
        raise ValueError(f"Vocabulary file {path} does not exist.")
    with open(path, encoding=encoding) as f:
        return f.read().splitlines()


def checked_vocabulary(tokens, special_tokens, reserved, max_tokens):
    """``tokens`` without leading ``special_tokens`` (when exactly those lead), validated as Keras does.

    Returns ``(tokens, had_special_tokens)``. ``reserved`` are ``(name, token)`` pairs that may not be terms.
    """
    tokens = list(tokens)
    if not tokens:
        raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={tokens}")
    leading = bool(special_tokens) and tokens[:len(special_tokens)] == list(special_tokens)
    if leading:
        tokens = tokens[len(special_tokens):]
    if len(set(tokens)) != len(tokens):
        # Keras checks the vocabulary as a numpy array: the message lists numpy scalars, first repeated first
        counts = collections.Counter(list(np.asarray(tokens)))
        repeated = [token for token, count in counts.items() if count > 1]
        raise ValueError("The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                         f"The repeated terms are: {repeated}")
    for kind, token in reserved:
        if token in tokens:
            raise ValueError(f"Found reserved {kind} token at unexpected location in `vocabulary`. Note that passed "
                             "`vocabulary` does not need to include the OOV and mask tokens. Either remove all mask "
                             "and OOV tokens, or include them only at the start of the vocabulary in precisely this "
                             f"order: {list(special_tokens)}. Received: {kind.lower()}_token={token} at vocabulary "
                             f"index [{len(tokens) - 1 - tokens[::-1].index(token) + len(special_tokens) * leading}]")
    size = len(special_tokens) + len(tokens)
    if max_tokens is not None and size > max_tokens:
        raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary size "
                         f"is {size}; `max_tokens` is {max_tokens}.")
    return tokens, leading


def checked_idf_weights(idf_weights, num_tokens, had_special_tokens):
    """float32 tf-idf weights, the OOV weight (the mean, as Keras) first, for ``num_tokens`` vocabulary terms."""
    weights = np.ravel(np.asarray(idf_weights.numpy() if tf.is_tensor(idf_weights) else idf_weights, np.float32))
    if had_special_tokens and len(weights) == num_tokens + 1:
        weights = weights[1:]
    if len(weights) != num_tokens:
        raise ValueError("`idf_weights` must be the same length as vocabulary. len(idf_weights) is "
                         f"{len(weights)}; len(vocabulary) is {num_tokens}")
    return np.concatenate([[weights.mean()], weights]).astype(np.float32)


class TokenCounter:
    """Token and document counts of ``adapt`` batches; :meth:`vocabulary` gives Keras' learned vocabulary."""

    def __init__(self):
        self.counts, self.document_counts, self.documents = {}, {}, 0

    def add_rows(self, rows):
        """Count ``rows`` (each a document: a list of hashable tokens)."""
        for row in rows:
            for token in row:
                self.counts[token] = self.counts.get(token, 0) + 1
            for token in set(row):
                self.document_counts[token] = self.document_counts.get(token, 0) + 1
        self.documents += len(rows)

    def vocabulary(self, excluded, room, tf_idf):
        """``(tokens, idf weights or None)``: by decreasing count (ties: decreasing token), ``excluded`` left out,
        at most ``room`` tokens (None: all); ``None`` when nothing was counted."""
        counts = {t: n for t, n in self.counts.items() if t not in excluded}
        if not self.counts:
            return None
        tokens = np.empty(len(counts), object)
        tokens[:] = list(counts)
        order = np.lexsort((tokens, np.asarray(list(counts.values()), np.int64)))[::-1]
        if room is not None:
            order = order[:max(room, 0)]
        weights = None
        if tf_idf:
            frequencies = np.asarray([self.document_counts[t] for t in tokens[order]], np.float64)
            idf = np.log(1 + self.documents / (1 + frequencies)).astype(np.float32)
            weights = np.concatenate([[idf.mean(dtype=np.float32)], idf]).astype(np.float32)
        return list(tokens[order]), weights


class StringDtype:
    """Mixin of the layers computing on strings: their compute and variable dtype is ``"string"``."""

    @property
    def compute_dtype(self):
        return "string"

    @property
    def variable_dtype(self):
        return "string"


class IndexLookup(_DataLayer):
    """Tokens to vocabulary indices (or back, ``invert=True``), with ``adapt``; subclasses define the token kind.

    Parameters
    ----------
    max_tokens : int, optional
        Largest vocabulary size learned by ``adapt``, special tokens (mask, oov indices) included.
    num_oov_indices : int
        How many indices out-of-vocabulary tokens share (0: they are an error).
    mask_token, oov_token
        The token meaning "masked" (None: none; index 0 in ``"int"`` mode, zeros in the encoding modes) and the one
        that ``invert=True`` gives for oov indices.
    vocabulary : list or array of tokens, or str, optional
        The tokens (special tokens optional at the start), or the path of a file with one token a line.
    idf_weights : list of float, optional
        ``"tf_idf"`` mode with a given vocabulary: the weight of each token.
    invert : bool
        Map indices back to tokens (``"int"`` mode only).
    output_mode : {"int", "one_hot", "multi_hot", "count", "tf_idf"}
    pad_to_max_tokens : bool
        Encoding modes: vectors of ``max_tokens`` entries whatever the vocabulary size.
    sparse : bool
        Not supported by vfw (NotImplementedError: no sparse tensors).

    Subclasses set ``_token_kind`` (``"int"`` or ``"string"``) and define ``_as_token`` (a vocabulary entry, an
    input array element or an asset line as the token kept), ``_key`` (a token as looked up in input arrays),
    ``_oov_offsets`` (the oov index offsets of a flat input array) and ``_checked_input``.
    """

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                 output_mode, pad_to_max_tokens, sparse, name=None, **kwargs):
        # The number of indices when the vocabulary was last set (from configs: before assets are loaded).
        self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        if output_mode not in MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {MODES}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if sparse and output_mode == "int":
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, `'count'` or "
                             f"`'tf_idf'`. Received: sparse={sparse} and output_mode={output_mode}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if `output_mode` is `'tf_idf'`. Received: "
                             f"idf_weights={idf_weights} and output_mode={output_mode}")
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, the `idf_weights` "
                             "argument must also be provided.")
        _check_not_sparse(sparse)
        self.max_tokens, self.num_oov_indices = max_tokens, num_oov_indices
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode = invert, output_mode
        self.sparse, self.pad_to_max_tokens = sparse, pad_to_max_tokens
        self._given_vocabulary = listed(vocabulary)
        self._given_idf_weights = listed(idf_weights)
        self._convert_input_args = False
        self._set_tables([], None)
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- the vocabulary --------------------------------------------------------------------------------------------
    @property
    def _masked(self):
        """Whether the mask token has an index (``"int"`` mode only)."""
        return self.mask_token is not None and self.output_mode == "int"

    def _special_tokens(self):
        return [self.mask_token] * int(self._masked) + [self.oov_token] * self.num_oov_indices

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary``: the tokens in index order, optionally preceded by exactly the special tokens
        (``get_vocabulary()``'s layout), or the path of a file with one token a line; ``idf_weights`` in
        ``"tf_idf"`` mode."""
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={self.output_mode} and idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a vocabulary from file.")
            vocabulary = read_vocabulary_file(vocabulary, getattr(self, "encoding", "utf-8"))
        values = vocabulary.numpy() if tf.is_tensor(vocabulary) else vocabulary
        tokens = [self._as_token(t) for t in np.ravel(np.asarray(values, object))]
        reserved = [("mask", self.mask_token)] * (self.mask_token is not None)
        reserved += [("OOV", self.oov_token)] * (self.invert and self.oov_token is not None)
        tokens, leading = checked_vocabulary(tokens, self._special_tokens(), reserved, self.max_tokens)
        weights = None if idf_weights is None else checked_idf_weights(idf_weights, len(tokens), leading)
        self._use(tokens, weights)

    def _use(self, tokens, idf_weights):
        """Make ``tokens`` (special tokens excluded) the vocabulary, recording its size."""
        size = len(self._special_tokens()) + len(tokens)
        if self.output_mode != "int" and not self.pad_to_max_tokens and self._frozen_vocab_size not in (None, size):
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, the "
                               "vocabulary size cannot be changed after the layer is called. Old vocab size is "
                               f"{self._frozen_vocab_size}, new vocab size is {size}")
        self._frozen_vocab_size = size
        self._set_tables(tokens, idf_weights)

    def _set_tables(self, tokens, idf_weights):
        self._tokens = list(tokens)
        self._index = {self._key(t): i for i, t in enumerate(self._special_tokens() + self._tokens)
                       if i >= int(self._masked) + self.num_oov_indices}
        if self._masked:
            self._index[self._key(self.mask_token)] = 0
        self._idf_weights = None if idf_weights is None else np.asarray(idf_weights, np.float32)

    def get_vocabulary(self, include_special_tokens=True):
        """The tokens in index order (mask and oov tokens first when ``include_special_tokens``): as Keras, the
        special tokens are Python values and the vocabulary's tokens numpy scalars (``np.int64``, ``np.str_``)."""
        tokens = list(np.asarray(self._tokens, np.int64 if self._token_kind == "int" else str))
        return (self._special_tokens() if include_special_tokens else []) + tokens

    def vocabulary_size(self):
        """The number of indices, special tokens included."""
        return len(self._special_tokens()) + len(self._tokens)

    def adapt(self, data, steps=None):
        """Learn the vocabulary (and tf-idf weights) from ``data``: a list, array or tensor, a ``tf.data`` dataset
        (batched or not) or an iterable of batches; each row of a batch is a document (rank 1: each token)."""
        from vfw.frontends.tensorflow.data import Dataset

        if self._given_vocabulary is not None:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` "
                             "argument or `set_vocabulary()` method.")
        if isinstance(data, Dataset):
            batches = data.take(steps) if steps is not None else data
        elif isinstance(data, (list, tuple, np.ndarray, str, bytes, tf.RaggedTensor)) or tf.is_tensor(data) \
                or not hasattr(data, "__iter__"):
            batches = [data]
        else:
            batches = (b for i, b in enumerate(data) if steps is None or i < steps)
        counter = TokenCounter()
        for batch in batches:
            batch = batch[0] if isinstance(batch, tuple) else batch
            if isinstance(batch, tf.RaggedTensor):  # rows of their own lengths (label lists): each row a document
                rows = [np.asarray(row, object).ravel().tolist() for row in batch.to_list()]
            else:
                array = np.asarray(batch.numpy() if tf.is_tensor(batch) else batch, object)
                rows = (array.reshape(-1, 1) if array.ndim <= 1 else array.reshape(-1, array.shape[-1])).tolist()
            counter.add_rows([[self._key(self._as_token(t)) for t in row] for row in rows])
        self.use_counts(counter)

    def use_counts(self, counter):
        """Make the vocabulary (and tf-idf weights) learned from the :class:`TokenCounter` ``counter`` (of token
        keys) the layer's; nothing when it counted nothing."""
        excluded = {self._key(t) for t in (self.mask_token, self.oov_token) if t is not None}
        room = None if not self.max_tokens else self.max_tokens - len(self._special_tokens())
        learned = counter.vocabulary(excluded, room, self.output_mode == "tf_idf")
        if learned is not None:
            self._use([self._as_token(t) for t in learned[0]], learned[1])

    # -- saving ----------------------------------------------------------------------------------------------------
    def save_assets(self, dir_path):
        """Write the vocabulary (special tokens first) and tf-idf weights, unless the config holds them."""
        if self._given_vocabulary is not None:
            return
        with open(os.path.join(dir_path, VOCABULARY_FILENAME), "w", encoding="utf-8") as f:
            f.write("\n".join(str(token) for token in self.get_vocabulary()))
        if self._idf_weights is not None:
            np.savetxt(os.path.join(dir_path, IDF_FILENAME), self._idf_weights)

    def load_assets(self, dir_path):
        """Set the vocabulary (and tf-idf weights) written by :meth:`save_assets` (nothing to do when the config
        held it)."""
        if self._given_vocabulary is not None:
            return
        if dir_path is None or not os.path.exists(os.path.join(dir_path, VOCABULARY_FILENAME)):
            raise ValueError(f"The model file has no `{VOCABULARY_FILENAME}` asset for {type(self).__name__} layer "
                             f"'{self.name}', whose vocabulary is not in its config.")
        with open(os.path.join(dir_path, VOCABULARY_FILENAME), encoding="utf-8") as f:
            lines = f.read().split("\n")
        specials = [str(t) for t in self._special_tokens()]
        lines = lines[len(specials):] if lines[:len(specials)] == specials else lines
        # As Keras: empty lines are no terms (a vocabulary's empty-string term is lost in the file).
        tokens = [self._as_token(line) for line in lines if line]
        weights = None
        if os.path.exists(os.path.join(dir_path, IDF_FILENAME)):
            weights = np.atleast_1d(np.loadtxt(os.path.join(dir_path, IDF_FILENAME), np.float32))
        self._frozen_vocab_size = None
        self._use(tokens, weights)

    def get_build_config(self):
        """``{}``: the lookup's state is its vocabulary (config or assets), not the input shape."""
        return {}

    def build_from_config(self, config):
        self.build(None)

    # -- the lookup ------------------------------------------------------------------------------------------------
    @property
    def frozen_vocabulary_size(self):
        """The vocabulary size fixing the encoding depth (from the config until assets are loaded), or None."""
        return self._frozen_vocab_size

    @property
    def idf_weights_with_oov(self):
        """float32 tf-idf weights by index (the OOV weight first), or None."""
        return self._idf_weights

    def depth(self):
        """The size of the encoding vectors (Keras' RuntimeError when no vocabulary fixes it)."""
        if self.pad_to_max_tokens:
            return self.max_tokens
        if self._frozen_vocab_size is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must "
                               "set the layer's vocabulary before calling it. Either pass a `vocabulary` argument to "
                               "the layer, or call `adapt` with some sample data.")
        return self._frozen_vocab_size

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        if len(input_shape) == 0:
            return (depth,)
        if self.output_mode == "one_hot" and (input_shape[-1] != 1 or len(input_shape) == 1):
            return tuple(input_shape) + (depth,)
        return tuple(input_shape[:-1]) + (depth,)

    def compute_output_spec(self, inputs):
        # As Keras: symbolic encodings are floatx, although eager calls give int64 (tf-idf: floatx).
        if self.output_mode != "int":
            dtype = backend.floatx()
        else:
            dtype = ("string" if self._token_kind == "string" else "int64") if self.invert else "int64"
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def call(self, inputs):
        if isinstance(inputs, tf.RaggedTensor):
            return self._ragged_call(inputs)
        inputs = self._checked_input(inputs)
        if self.invert:
            return self._tokens_of(tf.cast(inputs, tf.int64))
        indices = self.lookup(inputs)
        if self.output_mode == "int":
            return indices
        depth = self.depth()
        if self.output_mode != "tf_idf":
            return encode_categories(indices, self.output_mode, depth, "int64")
        if self._idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        weights = np.zeros(depth, np.float32)
        weights[:min(depth, len(self._idf_weights))] = self._idf_weights[:depth]
        counts = encode_categories(indices, "count", depth, backend.floatx())
        return counts * tf.constant(weights.astype(backend.floatx()))

    def _ragged_call(self, inputs):
        """Ragged token rows as Keras' TF backend encodes them: "int", inverted lookups and "one_hot" keep the rows
        (the flat values mapped); "multi_hot" and "count" give one dense row per ragged row, both marking presence
        only (TF's ragged bincount is binary there)."""
        if self.output_mode in ("int", "one_hot") or self.invert:
            return inputs.with_flat_values(self.call(inputs.flat_values))
        if self.output_mode == "tf_idf":
            raise NotImplementedError(f"{type(self).__name__} with output_mode='tf_idf' does not take ragged inputs "
                                      "in vfw yet")
        indices = inputs.with_flat_values(self.lookup(self._checked_input(inputs.flat_values)))
        # -1 (the encodings' "no category") pads the rows: it encodes to zeros.
        return encode_categories(indices.to_tensor(default_value=-1), "multi_hot", self.depth(), "int64")

    def lookup(self, tokens):
        """int64 indices of the token tensor ``tokens`` (oov indices for unknown tokens; in the encoding modes the
        mask token gets -1, which encodes to zeros)."""
        mask_key = None if self.mask_token is None else self._key(self.mask_token)
        index, masked = self._index, self._masked

        def find(array):
            flat = array.ravel()
            known = np.fromiter((index.get(t, -1) for t in flat.tolist()), np.int64, flat.size)
            unknown = known < 0
            if mask_key is not None and not masked:
                unknown &= np.asarray([t != mask_key for t in flat.tolist()], bool).reshape(flat.shape)
            if unknown.any():
                if not self.num_oov_indices:
                    raise tf.errors.InvalidArgumentError(None, None, "When `num_oov_indices=0` all inputs should be "
                                                         "in vocabulary, found OOV values")
                known[unknown] = self._oov_offsets(flat[unknown]) + int(masked)
            return known.reshape(array.shape)
        return host(find, tokens)

    def _tokens_of(self, indices):
        table = np.empty(self.vocabulary_size(), object if self._token_kind == "string" else np.int64)
        table[:] = [self._key(t) for t in self.get_vocabulary()]
        oov = self._key(self.oov_token)

        def tokens_of(array):
            inside = (array >= 0) & (array < len(table))
            result = np.full(array.shape, oov, table.dtype)
            result[inside] = table[array[inside]]
            return result
        return host(tokens_of, indices)

    def get_config(self):
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token, "mask_token": self.mask_token,
                "output_mode": self.output_mode, "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "idf_weights": self._given_idf_weights, "vocabulary": self._given_vocabulary,
                "vocabulary_size": self._frozen_vocab_size}


def listed(value):
    """A vocabulary, file path or weights argument as a config value (lists of Python scalars and str)."""
    if value is None or isinstance(value, str):
        return value
    values = np.ravel(np.asarray(value.numpy() if tf.is_tensor(value) else value, object)).tolist()
    return [v.item() if isinstance(v, np.generic) else v.decode("utf-8") if isinstance(v, bytes) else v
            for v in values]
