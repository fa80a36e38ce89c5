"""CTC decoding and label helpers: tf.nn.ctc_greedy_decoder, ctc_beam_search_decoder, collapse_repeated and
ctc_unique_labels.

The decoders return their label sequences as TF does, one int64 ``tf.SparseTensor`` per path, and
the log-probabilities of the paths.  They are not differentiable (as in TF).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._nn_ctc_beam import beam_search
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)


def _sparse_of(rows, batch):
    """The ``(indices, values, dense_shape)`` arrays of a list of ``batch`` label sequences (int arrays)."""
    lengths = np.array([len(r) for r in rows], np.int64)
    values = np.concatenate([np.asarray(r, I64) for r in rows]) if rows else np.zeros(0, I64)
    entry = np.repeat(np.arange(batch, dtype=I64), lengths)
    position = np.arange(values.size, dtype=I64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return (np.stack([entry, position], axis=1).reshape(-1, 2), values,
            np.array([batch, lengths.max() if batch else 0], I64))


def _decoder_inputs(inputs, sequence_length, tf_op):
    """``inputs`` (a float32/float64 tensor) and ``sequence_length``, checked as TF's kernel ``tf_op`` checks them."""
    inputs = convert_to_tensor(inputs)
    if inputs.dtype not in (_dtypes.float32, _dtypes.float64):
        raise op_error(f"Value for attr 'T' of {inputs.dtype.name} is not in the list of allowed values: float, "
                       "double", tf_op)
    lengths = convert_to_tensor(sequence_length, dtype_hint=_dtypes.int32)
    if inputs.array.ndim != 3:
        raise op_error("inputs is not a 3-Tensor", tf_op)
    if lengths.array.ndim != 1:
        raise op_error("sequence_length is not a vector", tf_op)
    frames, batch = inputs.array.shape[:2]
    if lengths.array.shape[0] != batch:
        raise op_error(f"len(sequence_length) != batch_size.  len(sequence_length):  {lengths.array.shape[0]} "
                       f"batch_size: {batch}", tf_op, errors.FailedPreconditionError)
    too_long = np.flatnonzero(lengths.array > frames)
    if too_long.size:
        raise op_error(f"sequence_length({too_long[0]}) <= {frames}", tf_op, errors.FailedPreconditionError)
    return inputs, lengths


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: the most likely class of each frame, repeats merged and blanks dropped.

    Parameters
    ----------
    inputs : float Tensor, shape ``(max_time, batch, num_classes)``
        Logits.
    sequence_length : int Tensor, shape ``(batch,)``
        Frames of each entry (at most ``max_time``).
    merge_repeated : bool
        Emit a class repeated in consecutive frames once.
    blank_index : int, optional
        The blank class (default ``num_classes - 1``; negative values count from ``num_classes``).

    Returns
    -------
    tuple
        ``([decoded], log_probabilities)``: ``decoded`` a ``SparseTensor`` of the paths, and the
        ``(batch, 1)`` negated sums of each entry's per-frame maximal logits.
    """
    tf_op = "CTCGreedyDecoder"
    inputs, lengths = _decoder_inputs(inputs, sequence_length, tf_op)
    num_classes = inputs.array.shape[2]
    blank = num_classes - 1 if blank_index is None else int(blank_index)
    if not -num_classes <= blank < num_classes:
        raise op_error(f"blank_index expected to be between {-num_classes} and {num_classes - 1} but was {blank}",
                       tf_op)
    blank %= num_classes

    def decode(logits, length_array):
        best = np.argmax(logits, axis=2).T  # (batch, time)
        inside = np.arange(logits.shape[0])[None, :] < length_array[:, None]
        previous = np.concatenate([np.full((best.shape[0], 1), -1), best[:, :-1]], axis=1)
        emitted = inside & (best != blank)
        if merge_repeated:
            emitted &= best != previous
        scores = -np.where(inside, np.max(logits, axis=2).T, 0).sum(axis=1, keepdims=True)
        entry, position = np.nonzero(emitted)
        rank = np.arange(entry.size) - np.searchsorted(entry, entry)  # position among the entry's labels
        longest = int(emitted.sum(axis=1).max()) if entry.size else 0
        return (np.stack([entry, rank], axis=1).astype(I64).reshape(-1, 2), best[entry, position].astype(I64),
                np.array([best.shape[0], longest], I64), scores.astype(logits.dtype))

    indices, values, dense_shape, scores = host(decode, inputs, lengths)
    return [SparseTensor._from_parts(indices, values, dense_shape)], scores


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """The ``top_paths`` most likely label sequences found by a beam search over the frames' softmax.

    Parameters
    ----------
    inputs : float Tensor, shape ``(max_time, batch, num_classes)``
        Logits; the last class is the blank.
    sequence_length : int Tensor, shape ``(batch,)``
    beam_width : int
        Prefixes kept after each frame.
    top_paths : int
        Paths returned (at most ``beam_width``).

    Returns
    -------
    tuple
        ``(decoded, log_probabilities)``: a list of ``top_paths`` ``SparseTensor`` (best first) and
        their ``(batch, top_paths)`` log-probabilities.
    """
    tf_op = "CTCBeamSearchDecoder"
    inputs, lengths = _decoder_inputs(inputs, sequence_length, tf_op)
    beam_width, top_paths = int(beam_width), int(top_paths)
    if beam_width < 1:
        raise op_error(f"Value for attr 'beam_width' of {beam_width} must be at least minimum 1", tf_op)
    if top_paths < 1:
        raise op_error(f"Value for attr 'top_paths' of {top_paths} must be at least minimum 1", tf_op)
    if top_paths > beam_width:
        raise op_error("requested more paths than the beam width.", tf_op)

    def decode(logits, length_array):
        batch = logits.shape[1]
        paths, scores = beam_search(logits, length_array, beam_width, top_paths)
        return tuple(a for k in range(top_paths) for a in _sparse_of([p[k] for p in paths], batch)) + (
            scores.astype(logits.dtype),)

    outputs = host(decode, inputs, lengths)
    decoded = [SparseTensor._from_parts(*outputs[3 * k:3 * k + 3]) for k in range(top_paths)]
    return decoded, outputs[-1]


def collapse_repeated(labels, seq_length, name=None):
    """Merge runs of a repeated label in each padded label sequence.

    Parameters
    ----------
    labels : Tensor, shape ``(batch, max_length)``
    seq_length : int Tensor, shape ``(batch,)``

    Returns
    -------
    tuple of Tensor
        The collapsed labels, shape ``(batch, new_max_length)`` (zero-padded, ``labels``' dtype), and
        the new lengths (``seq_length``'s dtype).
    """
    labels = convert_to_tensor(labels)
    seq_length = convert_to_tensor(seq_length)

    def collapse(label_array, length_array):
        width = label_array.shape[1]
        starts = np.ones(label_array.shape, bool)
        starts[:, 1:] = label_array[:, 1:] != label_array[:, :-1]
        starts &= np.arange(width)[None, :] < length_array[:, None]
        new_lengths = starts.sum(axis=1)
        out = np.zeros((label_array.shape[0], int(new_lengths.max()) if new_lengths.size else 0), label_array.dtype)
        out[np.arange(out.shape[1])[None, :] < new_lengths[:, None]] = label_array[starts]
        return out, new_lengths.astype(length_array.dtype)

    return host(collapse, labels, seq_length)


def ctc_unique_labels(labels, name=None):
    """The distinct labels of each row (in order of first appearance, zero-padded) and each label's index among
    them.

    Parameters
    ----------
    labels : Tensor, shape ``(batch, max_length)``

    Returns
    -------
    list of Tensor
        ``[unique (int64, batch x max_length), indices (int32, batch x max_length)]``.
    """
    labels = convert_to_tensor(labels)
    if labels.array.ndim != 2:
        raise op_error("unique expects a 1D vector.", "Unique")

    def unique_rows(x):
        batch, width = x.shape
        if width == 0:
            return np.zeros(x.shape, I64), np.zeros(x.shape, np.int32)
        order = np.argsort(x, axis=1, kind="stable")
        ordered = np.take_along_axis(x, order, axis=1)
        group_start = np.ones(x.shape, bool)
        group_start[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        start_slot = np.maximum.accumulate(np.where(group_start, np.arange(width), 0), axis=1)
        first = np.empty(x.shape, np.int64)  # where each element's value first appears in its row
        np.put_along_axis(first, order, np.take_along_axis(order, start_slot, axis=1), axis=1)
        is_first = first == np.arange(width)[None, :]
        slot = np.cumsum(is_first, axis=1) - 1
        indices = np.take_along_axis(slot, first, axis=1)
        unique = np.zeros(x.shape, x.dtype)
        rows, cols = np.nonzero(is_first)
        unique[rows, slot[rows, cols]] = x[rows, cols]
        return unique.astype(I64), indices.astype(np.int32)

    return list(host(unique_rows, labels))


NAMESPACES = {"nn": ["ctc_greedy_decoder", "ctc_beam_search_decoder", "collapse_repeated", "ctc_unique_labels"]}
