"""pairwise_distance, cosine_similarity (torch's functions of the same names), pdist."""

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends.torch._dispatch import call, op, type_name
from vfw.frontends.torch._linalg_norms import norm_along
from vfw.frontends.torch._numeric import _number, cosine_similarity, pairwise_distance
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["pairwise_distance", "cosine_similarity", "pdist"]

_HALVES = frozenset({np.dtype(np.float16), dt.bfloat16})


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows: ``||input[i] - input[j]||_p`` for ``i < j``.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, M)``, float32 or float64.
    p : float
        Non-negative.

    Returns
    -------
    Tensor
        Shape ``(N * (N - 1) / 2,)``, the pairs in row-major order of the upper triangle.
    """
    tensor_arg(input, "pdist")
    x = input.array
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    if x.dtype in _HALVES:
        raise NotImplementedError(f"\"pdist\" not implemented for '{type_name(x.dtype)}'")
    if x.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    p = _number(p, "pdist", "p")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = np.triu_indices(x.shape[0], 1)
    gather = op("Gather", axis=0)
    diff = call(op("Sub"), call(gather, input, first), call(gather, input, second))
    # Rows without columns are at distance 0 for every p (the inf-norm of nothing has no value of its own).
    return norm_along(diff, p if x.shape[1] else 1.0, (1,), False, "pdist")
