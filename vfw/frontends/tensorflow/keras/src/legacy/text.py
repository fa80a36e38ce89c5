"""``tf.keras.preprocessing.text``: the legacy word tokenizer and hashing helpers (pure Python/numpy)."""

import hashlib
import json
from collections import OrderedDict, defaultdict

import numpy as np

DEFAULT_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text, filters=DEFAULT_FILTERS, lower=True, split=" "):
    """The words of ``input_text``: lower-cased (``lower``), every character of ``filters`` turned into
    ``split``, split on ``split``, empty pieces dropped."""
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({char: split for char in filters}))
    return [word for word in input_text.split(split) if word]


def _md5(word):
    return int(hashlib.md5(word.encode()).hexdigest(), 16)


def hashing_trick(text, n, hash_function=None, filters=DEFAULT_FILTERS, lower=True, split=" ", analyzer=None):
    """Word ids in ``[1, n)``: ``hash_function(word) % (n - 1) + 1``.

    ``hash_function``: None (Python's ``hash``, which varies between processes unless
    PYTHONHASHSEED is set), ``"md5"`` (stable) or a callable.
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        hash_function = _md5
    words = text_to_word_sequence(text, filters=filters, lower=lower, split=split) if analyzer is None \
        else analyzer(text)
    return [hash_function(word) % (n - 1) + 1 for word in words]


def one_hot(input_text, n, filters=DEFAULT_FILTERS, lower=True, split=" ", analyzer=None):
    """:func:`hashing_trick` with Python's ``hash``."""
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower, split=split,
                         analyzer=analyzer)


class Tokenizer:
    """Legacy text tokenizer: builds a word index by frequency (``fit_on_texts``) and turns texts into id
    sequences or ``(n_texts, num_words)`` matrices.

    Parameters
    ----------
    num_words : int, optional
        Only ids below ``num_words`` are kept when converting (the ``num_words - 1`` most frequent words).
    filters, lower, split
        As :func:`text_to_word_sequence`.
    char_level : bool
        Tokens are characters.
    oov_token : str, optional
        Gets id 1 and replaces unknown (or too rare) words.
    analyzer : callable, optional
        Splits a text into tokens instead of :func:`text_to_word_sequence`.
    """

    def __init__(self, num_words=None, filters=DEFAULT_FILTERS, lower=True, split=" ", char_level=False,
                 oov_token=None, analyzer=None, **kwargs):
        if "nb_words" in kwargs:  # the Keras 1 name
            num_words = kwargs.pop("nb_words")
        document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.filters = filters
        self.split = split
        self.lower = lower
        self.num_words = num_words
        self.document_count = document_count
        self.char_level = char_level
        self.oov_token = oov_token
        self.index_docs = defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.analyzer = analyzer

    def _tokens(self, text):
        """The tokens of one text (a list of tokens, lower-cased if ``lower``, is taken as is)."""
        if self.char_level or isinstance(text, list):
            if self.lower:
                return [token.lower() for token in text] if isinstance(text, list) else text.lower()
            return text
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower, split=self.split)

    def fit_on_texts(self, texts):
        """Count the tokens of ``texts`` and rebuild ``word_index`` (most frequent first, ties in first-seen
        order, ``oov_token`` first)."""
        for text in texts:
            self.document_count += 1
            tokens = self._tokens(text)
            for token in tokens:
                self.word_counts[token] = self.word_counts.get(token, 0) + 1
            for token in set(tokens):
                self.word_docs[token] += 1
        by_count = sorted(self.word_counts.items(), key=lambda item: item[1], reverse=True)
        vocabulary = ([] if self.oov_token is None else [self.oov_token]) + [word for word, _ in by_count]
        self.word_index = dict(zip(vocabulary, range(1, len(vocabulary) + 1)))
        self.index_word = {index: word for word, index in self.word_index.items()}
        for word, count in self.word_docs.items():
            self.index_docs[self.word_index[word]] = count

    def fit_on_sequences(self, sequences):
        """Count document frequencies of ids (for ``"tfidf"`` matrices of sequences)."""
        self.document_count += len(sequences)
        for sequence in sequences:
            for index in set(sequence):
                self.index_docs[index] += 1

    def _kept_id(self, index, oov_index):
        """``index`` when below ``num_words`` (or no limit), else the oov id (None: dropped)."""
        if self.num_words and index >= self.num_words:
            return oov_index
        return index

    def texts_to_sequences_generator(self, texts):
        """Yield the id list of each text (unknown words: the oov id, or dropped without ``oov_token``)."""
        oov_index = self.word_index.get(self.oov_token)
        for text in texts:
            ids = []
            for token in self._tokens(text):
                index = self.word_index.get(token)
                if index is not None:
                    kept = self._kept_id(index, oov_index)
                    if kept is not None:
                        ids.append(kept)
                elif self.oov_token is not None:
                    ids.append(oov_index)  # None before any fit, as Keras
            yield ids

    def texts_to_sequences(self, texts):
        """The id list of each text."""
        return list(self.texts_to_sequences_generator(texts))

    def sequences_to_texts_generator(self, sequences):
        """Yield each id list as a space-joined text (ids past ``num_words`` or unknown: the oov token)."""
        oov_index = self.word_index.get(self.oov_token)
        for sequence in sequences:
            words = []
            for index in sequence:
                word = self.index_word.get(index)
                if word is not None:
                    kept = self._kept_id(index, oov_index)
                    if kept is not None:
                        words.append(self.index_word[kept])
                elif self.oov_token is not None:
                    words.append(self.index_word[oov_index])
            yield " ".join(words)

    def sequences_to_texts(self, sequences):
        """The text of each id list."""
        return list(self.sequences_to_texts_generator(sequences))

    def texts_to_matrix(self, texts, mode="binary"):
        """:meth:`sequences_to_matrix` of :meth:`texts_to_sequences`."""
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        """A float64 ``(len(sequences), num_words)`` matrix: per row, each id's ``"binary"`` presence,
        ``"count"``, ``"freq"`` (count / length) or ``"tfidf"`` ((1 + log count) * log(1 + docs / (1 + df))).
        Without ``num_words`` the width is ``len(word_index) + 1``."""
        if not self.num_words:
            if not self.word_index:
                raise ValueError("Specify a dimension (`num_words` argument), or fit on some text data first.")
            width = len(self.word_index) + 1
        else:
            width = self.num_words
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        matrix = np.zeros((len(sequences), width))
        for row, sequence in enumerate(sequences):
            if not sequence:
                continue
            counts = defaultdict(int)
            for index in sequence:
                if index < width:
                    counts[index] += 1
            for index, count in counts.items():
                if mode == "count":
                    matrix[row][index] = count
                elif mode == "freq":
                    matrix[row][index] = count / len(sequence)
                elif mode == "binary":
                    matrix[row][index] = 1
                elif mode == "tfidf":
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(index, 0)))
                    matrix[row][index] = (1 + np.log(count)) * idf
                else:
                    raise ValueError("Unknown vectorization mode:", mode)
        return matrix

    def get_config(self):
        """The settings and the fitted tables (the tables as JSON strings)."""
        return {
            "num_words": self.num_words, "filters": self.filters, "lower": self.lower, "split": self.split,
            "char_level": self.char_level, "oov_token": self.oov_token, "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts), "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs), "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs):
        """``{"class_name": "Tokenizer", "config": get_config()}`` as JSON (``kwargs`` go to ``json.dumps``)."""
        return json.dumps({"class_name": self.__class__.__name__, "config": self.get_config()}, **kwargs)


def tokenizer_from_json(json_string):
    """The :class:`Tokenizer` that ``to_json`` described."""
    config = dict(json.loads(json_string).get("config"))
    tables = {key: json.loads(config.pop(key)) for key in ("word_counts", "word_docs", "index_docs", "word_index",
                                                            "index_word")}
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = tables["word_counts"]
    tokenizer.word_docs = tables["word_docs"]
    tokenizer.index_docs = {int(key): value for key, value in tables["index_docs"].items()}
    tokenizer.index_word = {int(key): value for key, value in tables["index_word"].items()}
    tokenizer.word_index = tables["word_index"]
    return tokenizer
