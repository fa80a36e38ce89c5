"""tf.edit_distance: Levenshtein distances between the sequences of two SparseTensors.

The last dimension of each SparseTensor indexes positions in a sequence; the leading dimensions
name the sequence, and the output has the larger of the two leading dense shapes.
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import host, mismatch, op_error
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor


def _levenshtein(a, b):
    """Edit distance of two 1-D arrays; one DP row at a time (each row is one vectorised step
    plus the running insertion minimum, which depends on its own left neighbour)."""
    previous = np.arange(len(b) + 1)
    for i, item in enumerate(a, start=1):
        substitution = previous[:-1] + (b != item)
        current = np.empty_like(previous)
        current[0] = i
        best = np.minimum(substitution, previous[1:] + 1)
        for j in range(1, len(b) + 1):
            current[j] = min(best[j - 1], current[j - 1] + 1)
        previous = current
    return int(previous[-1])


def _sequences(indices, values):
    """Sequence key (leading index) -> its values ordered by position."""
    order = np.lexsort(indices.T[::-1])
    found = {}
    for row in order:
        found.setdefault(tuple(indices[row, :-1]), []).append(values[row])
    return {key: np.array(items) for key, items in found.items()}


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distance between the sequences of ``hypothesis`` and ``truth`` (SparseTensors).

    Parameters
    ----------
    hypothesis, truth : SparseTensor
        Of one dtype and rank; the last dimension indexes positions within each sequence.
    normalize : bool
        Divide by the truth's length (inf for an empty truth and a non-empty hypothesis).

    Returns
    -------
    Tensor
        float32 of the leading dense shape (the element-wise maximum of both).
    """
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    if truth.values.dtype != hypothesis.values.dtype:
        raise mismatch("EditDistance", hypothesis.values.dtype, truth.values.dtype, position=4)

    def run(h_indices, h_values, h_shape, t_indices, t_values, t_shape):
        if len(h_shape) != len(t_shape):
            raise op_error(f"hypothesis and truth must have the same rank: {len(h_shape)} vs. {len(t_shape)}",
                           "EditDistance")
        out_shape = np.maximum(h_shape[:-1], t_shape[:-1])
        hyp, tru = _sequences(h_indices, h_values), _sequences(t_indices, t_values)
        result = np.zeros(out_shape, np.float32)
        empty = np.array([], dtype=h_values.dtype)
        for key in set(hyp) | set(tru):
            h, t = hyp.get(key, empty), tru.get(key, empty)
            distance = float(_levenshtein(h, t))
            if normalize:
                distance = distance / len(t) if len(t) else (np.inf if len(h) else 0.0)
            result[key] = distance
        return result

    return host(run, hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices, truth.values,
                truth.dense_shape)


NAMESPACES = {"tf": ["edit_distance"]}
TENSOR_METHODS = {}
