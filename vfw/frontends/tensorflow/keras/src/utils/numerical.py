"""``keras.utils.to_categorical``, ``normalize`` and ``pad_sequences``: array preparation helpers."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.ops import nn


def to_categorical(x, num_classes=None):
    """One-hot rows for the integer labels ``x`` (a trailing size-1 axis is dropped).

    Parameters
    ----------
    x : array-like or tensor of ints
    num_classes : int, optional
        Defaults to ``max(x) + 1``.

    Returns
    -------
    numpy.ndarray (float64) for array-like ``x``; a floatx tensor for a tensor ``x``.
    """
    if tf.is_tensor(x):
        shape = x.shape.as_list()
        if len(shape) > 1 and shape[-1] == 1:
            x = tf.reshape(x, shape[:-1])
        return nn.one_hot(x, num_classes)
    x = np.array(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if not num_classes:
        num_classes = np.max(x) + 1
    categorical = np.zeros((x.shape[0], num_classes))
    categorical[np.arange(x.shape[0]), x] = 1
    return categorical.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as 1 for numpy arrays)."""
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis or -1)
    return nn.normalize(x, axis=axis, order=order)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """The sequences as one ``(count, maxlen, ...)`` array: padded with ``value`` and truncated at the start
    ("pre") or end ("post").

    Parameters
    ----------
    sequences : list of sequences
    maxlen : int, optional
        Defaults to the longest sequence's length.
    dtype : str or numpy dtype
    padding, truncating : {"pre", "post"}
    value : scalar or str

    Returns
    -------
    numpy.ndarray
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    lengths = []
    sample_shape = None  # the shape of one step, from the first non-empty sequence
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as e:
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {x}") from e
        if sample_shape is None and len(x):
            sample_shape = np.asarray(x).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = np.max(lengths)
    is_text = np.issubdtype(dtype, np.str_) or np.issubdtype(dtype, np.bytes_)
    if isinstance(value, str) and dtype is not object and not is_text:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: {type(value)}\nYou should set "
                         "`dtype=object` for variable length strings.")
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for index, sequence in enumerate(sequences):
        if not len(sequence):
            continue
        if truncating == "pre":
            kept = sequence[-maxlen:]
        elif truncating == "post":
            kept = sequence[:maxlen]
        else:
            raise ValueError(f'Truncating type "{truncating}" not understood')
        kept = np.asarray(kept, dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {index} is different from "
                             f"expected shape {sample_shape}")
        if padding == "post":
            out[index, :len(kept)] = kept
        elif padding == "pre":
            out[index, -len(kept):] = kept
        else:
            raise ValueError(f'Padding type "{padding}" not understood')
    return out
