"""TextVectorization: strings to token indices (or multi-hot, count, tf-idf vectors), with ``adapt``.

The pipeline is Keras 3's: standardize (``tf.strings.lower`` and Keras' punctuation regex, or a callable), split
(``tf.strings.split`` on whitespace, ``unicode_split`` into characters, or a callable), optional n-grams
(``tf.strings.ngrams`` joined by a space), then a string vocabulary lookup.  Index layout as Keras' StringLookup
with ``mask_token=""``: in ``"int"`` mode ``["", "[UNK]", vocabulary...]``, in the encoding modes
``["[UNK]", vocabulary...]`` (the empty string then encodes to nothing).  ``adapt`` orders the vocabulary by
decreasing count, ties by decreasing token (bytes), and learns tf-idf weights ``log(1 + documents / (1 +
document frequency))`` (the OOV weight: their mean).  The lookup runs in numpy through ``host`` ops, so it works
eagerly, in ``tf.function`` graphs (Keras' training steps) and in ``dataset.map``.

An adapted vocabulary is saved in ``.keras`` files as the asset ``vocabulary.txt`` (special tokens first; the tf-idf
weights as ``idf_weights.txt``); a vocabulary given to the constructor is part of the config.
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import host
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow.keras.src import backend
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _check_not_sparse, _DataLayer
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_index_lookup import (
    MODES,
    StringDtype,
    TokenCounter,
    listed,
)
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_lookup import StringLookup
from vfw.frontends.tensorflow.keras.src.utils import serialization

# Keras' punctuation class (``,-\.`` is the range from "," to ".").
_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
_MASK, _OOV = "", "[UNK]"
MODES = MODES


def _check_choice(value, allowed, arg_name, allow_none=True):
    if (value is None and allow_none) or callable(value) or value in allowed:
        return
    allowed_text = ", ".join(f'"{a}"' for a in allowed)
    raise ValueError(f"The argument `{arg_name}` of TextVectorization must be one of {allowed_text}"
                     f"{', None' if allow_none else ''} or a callable. Received: {arg_name}={value}")


def _as_text(token):
    return token.decode("utf-8") if isinstance(token, bytes) else str(token)


class TextVectorization(StringDtype, _DataLayer):
    """Turns strings into sequences of token indices (``"int"``) or into per-string vectors over the vocabulary.

    Parameters
    ----------
    max_tokens : int, optional
        Largest vocabulary size ``adapt`` learns, special tokens included.
    standardize : {"lower_and_strip_punctuation", "lower", "strip_punctuation", None} or callable
    split : {"whitespace", "character", None} or callable
    ngrams : int or tuple of int, optional
        n-gram widths (an int ``n``: widths 1 to ``n``).
    output_mode : {"int", "multi_hot", "count", "tf_idf"}
    output_sequence_length : int, optional
        ``"int"`` mode: pad or cut every sequence to this length.
    pad_to_max_tokens : bool
        Encoding modes: vectors of ``max_tokens`` entries whatever the vocabulary size.
    vocabulary : list of str or str, optional
        The tokens (special tokens optional at the start), or the path of a file with one token a line.
    idf_weights : list of float, optional
        ``"tf_idf"`` with a given vocabulary: the weight of each token.
    sparse : bool
        Not supported by vfw (no sparse tensors).
    ragged : bool
        ``"int"`` mode: a RaggedTensor of the sequences instead of padded ones.
    encoding : str
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None, **kwargs):
        _check_choice(standardize, ("lower_and_strip_punctuation", "lower", "strip_punctuation"), "standardize")
        _check_choice(split, ("whitespace", "character"), "split")
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        _check_choice(output_mode, MODES, "output_mode", allow_none=False)
        if not (ngrams is None or isinstance(ngrams, int)
                or isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams)):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_mode == "int" and not (output_sequence_length is None or isinstance(output_sequence_length, int)):
            raise ValueError("`output_sequence_length` must be either None or an integer when `output_mode` is "
                             f"'int'. Received: output_sequence_length={output_sequence_length}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                             f"Received output_sequence_length={output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} and "
                             f"output_mode={output_mode}")
        if output_mode == "one_hot":
            raise NotImplementedError("TextVectorization in vfw does not support output_mode='one_hot'.")
        _check_not_sparse(sparse)
        if pad_to_max_tokens and output_mode != "int" and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: max_tokens=None")
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        self.max_tokens, self.standardize, self.split = max_tokens, standardize, split
        self.ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.pad_to_max_tokens, self.sparse, self.ragged, self.encoding = pad_to_max_tokens, sparse, ragged, encoding
        self._input_vocabulary, self._input_idf_weights = vocabulary, idf_weights
        self._convert_input_args = False
        # The vocabulary and its lookup: Keras' StringLookup with the empty string as mask token (untracked: a
        # helper, not a sublayer, so the layer's saved state and built status are its own).
        lookup = StringLookup(max_tokens=max_tokens, mask_token=_MASK, oov_token=_OOV, output_mode=output_mode,
                              pad_to_max_tokens=pad_to_max_tokens and output_mode != "int", encoding=encoding,
                              vocabulary_size=vocabulary_size)
        object.__setattr__(self, "_lookup_layer", lookup)
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- the vocabulary ------------------------------------------------------------------------------------------
    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Use ``vocabulary`` (tokens, optionally preceded by exactly the special tokens, or a file path)."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def get_vocabulary(self, include_special_tokens=True):
        """The tokens in index order (special tokens first when ``include_special_tokens``)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The number of indices, special tokens included."""
        return self._lookup_layer.vocabulary_size()

    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and tf-idf weights) from ``data``: a list or array of strings, a string tensor,
        a ``tf.data`` dataset (batched or not) or an iterable of batches."""
        from vfw.frontends.tensorflow.data import Dataset

        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static vocabulary via `vocabulary` "
                             "argument or `set_vocabulary()` method.")
        if isinstance(data, Dataset):
            batches = data.take(steps) if steps is not None else data
        elif hasattr(data, "__iter__") and not isinstance(data, (list, tuple, np.ndarray, str, bytes)) \
                and not tf.is_tensor(data):
            batches = (b for i, b in enumerate(data) if steps is None or i < steps)
        else:
            data = tf.convert_to_tensor(np.asarray(data, object) if not tf.is_tensor(data) else data)
            batches = [tf.expand_dims(data, -1) if data.shape.rank == 1 else data]
        counter = TokenCounter()
        for batch in batches:
            counter.add_rows(self._token_rows(self._preprocess(batch[0] if isinstance(batch, tuple) else batch)))
        self._lookup_layer.use_counts(counter)

    @staticmethod
    def _token_rows(tokens):
        """The rows of tokens (lists of bytes) of a preprocessed batch (a dense rank-1 batch: one token a row)."""
        if isinstance(tokens, RaggedTensor):
            flat, splits = tokens.flat_values.numpy().ravel().tolist(), tokens.nested_row_splits
            for inner in reversed(splits[1:]):
                flat = [flat[a:b] for a, b in zip(inner.numpy()[:-1], inner.numpy()[1:])]
                flat = [t for row in flat for t in row]
            outer = splits[0].numpy()
            return [flat[a:b] for a, b in zip(outer[:-1], outer[1:])]
        array = np.asarray(tokens.numpy(), object)
        array = array.reshape(-1, 1) if array.ndim <= 1 else array.reshape(-1, array.shape[-1])
        return array.tolist()

    # -- the pipeline --------------------------------------------------------------------------------------------
    def _preprocess(self, inputs):
        if not isinstance(inputs, RaggedTensor):
            inputs = tf.convert_to_tensor(np.asarray(inputs, object) if isinstance(inputs, (list, tuple, np.ndarray))
                                          else inputs, dtype=tf.string)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            inputs = tf.strings.lower(inputs)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            inputs = tf.strings.regex_replace(inputs, _PUNCTUATION, "")
        if callable(self.standardize):
            inputs = self.standardize(inputs)
        if self.split is not None:
            if inputs.shape.rank > 1:
                if inputs.shape[-1] != 1:
                    raise ValueError("When using `TextVectorization` to tokenize strings, the input rank must be 1 "
                                     "or the last shape dimension must be 1. Received: "
                                     f"inputs.shape={inputs.shape} with rank={inputs.shape.rank}")
                inputs = tf.squeeze(inputs, axis=-1)
            if self.split == "whitespace":
                inputs = tf.strings.split(inputs)
            elif self.split == "character":
                inputs = tf.strings.unicode_split(inputs, "UTF-8")
            else:
                inputs = self.split(inputs)
        if self._ngrams is not None:
            inputs = tf.strings.ngrams(inputs, ngram_width=self._ngrams, separator=" ")
        return inputs

    def call(self, inputs):
        tokens = self._preprocess(inputs)
        if isinstance(tokens, RaggedTensor):
            indices = tokens.with_flat_values(self._lookup_layer.lookup(tokens.flat_values))
        else:
            indices = self._lookup_layer.lookup(tokens)
        if self.output_mode == "int":
            if isinstance(indices, RaggedTensor):
                if self.ragged:
                    return indices
                return indices.to_tensor(0, shape=[None] * indices.shape.rank if self.output_sequence_length is None
                                         else [None] * (indices.shape.rank - 1) + [self.output_sequence_length])
            if self.output_sequence_length is None:
                return indices
            length = self.output_sequence_length
            return host(lambda a: np.pad(a[..., :length], [(0, 0)] * (a.ndim - 1) + [(0, length - a[..., :length]
                                                                                      .shape[-1])]), indices)
        return self._encode(indices)

    def _encode(self, indices):
        """multi_hot / count / tf_idf vectors (floatx) of every row of ``indices``."""
        depth, mode = self._lookup_layer.depth(), self.output_mode
        weights = self._lookup_layer.idf_weights_with_oov
        if mode == "tf_idf" and weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if weights is not None and len(weights) < depth:
            weights = np.concatenate([weights, np.zeros(depth - len(weights), np.float32)])
        # As Keras: eager tf-idf vectors are floatx, counts and multi-hot int64 (symbolic ones all floatx).
        dtype = backend.floatx() if mode == "tf_idf" else "int64"

        def encode(values, splits=None):
            if splits is None:  # dense: one row per entry of the leading dims (a rank-1 batch: one token a row)
                rows = values.reshape(-1, 1) if values.ndim <= 1 else values.reshape(-1, values.shape[-1])
                lead = values.shape[:-1] if values.ndim > 1 else values.shape
                row_of, flat = np.repeat(np.arange(rows.shape[0]), rows.shape[1]), rows.ravel()
            else:
                lead = (len(splits) - 1,)
                row_of, flat = np.repeat(np.arange(lead[0]), np.diff(splits)), values
            counts = np.zeros((int(np.prod(lead)), depth), np.float32)
            keep = (flat >= 0) & (flat < depth) & (flat != -1)
            np.add.at(counts, (row_of[keep], flat[keep]), 1)
            if mode == "multi_hot":
                counts = np.minimum(counts, 1)
            elif mode == "tf_idf":
                counts = counts * weights[:depth]
            return counts.astype(dtype).reshape(tuple(lead) + (depth,))
        if isinstance(indices, RaggedTensor):
            return host(encode, indices.flat_values, indices.row_splits)
        return host(encode, indices)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return (input_shape[0] if input_shape else None, self.output_sequence_length)
        depth = self.max_tokens if self.pad_to_max_tokens else self._lookup_layer.frozen_vocabulary_size
        if self.split is None and len(input_shape) > 1:
            return input_shape[:-1] + (depth,)
        return (input_shape[0] if input_shape else None, depth)

    def compute_output_spec(self, inputs):
        dtype = "int64" if self.output_mode == "int" else backend.floatx()
        return KerasTensor(self.compute_output_shape(inputs.shape), dtype=dtype)

    def build(self, input_shape=None):
        self.built = True

    # -- saving --------------------------------------------------------------------------------------------------
    def get_config(self):
        config = {"max_tokens": self.max_tokens, "standardize": self.standardize, "split": self.split,
                  "ngrams": self.ngrams_arg, "output_mode": self.output_mode,
                  "output_sequence_length": self.output_sequence_length, "pad_to_max_tokens": self.pad_to_max_tokens,
                  "sparse": self.sparse, "ragged": self.ragged, "vocabulary": listed(self._input_vocabulary),
                  "idf_weights": listed(self._input_idf_weights), "encoding": self.encoding,
                  "vocabulary_size": self.vocabulary_size()}
        for key in ("standardize", "split"):
            if callable(config[key]):
                config[key] = serialization.serialize_keras_object(config[key])
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        for key in ("standardize", "split"):
            if config.get(key) is not None and not isinstance(config[key], str):
                config[key] = serialization.deserialize_keras_object(config[key], custom_objects=custom_objects)
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)

    def save_assets(self, dir_path):
        """Write the vocabulary (special tokens first) and tf-idf weights, unless the config holds them."""
        if not (self._has_input_vocabulary and self._input_vocabulary is not None):
            self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        """Set the vocabulary (and tf-idf weights) written by :meth:`save_assets`."""
        if not (self._has_input_vocabulary and self._input_vocabulary is not None):
            self._lookup_layer.load_assets(dir_path)

    def get_build_config(self):
        return {}

    def build_from_config(self, config):
        self.build(None)


API = {"layers": ["TextVectorization"]}
