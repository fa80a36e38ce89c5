"""``tf.math.sobol_sample``: points of the Sobol low-discrepancy sequence, as TF generates them.

Each dimension's 32 direction numbers come from a primitive polynomial (degree ``s``, coefficients ``a``) and
initial numbers ``m`` of the Joe-Kuo "new-joe-kuo-6" table (the first dimension is van der Corput's); point ``i``
XORs the direction numbers of the set bits of the Gray code of ``i``, as a 32-bit binary fraction.  TF skips the
all-zero first point: ``skip=0`` starts at point 1.  vfw has the table's first 16 dimensions.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error

_BITS = 32
# dimension -> (degree s, polynomial coefficients a, initial direction numbers m_1..m_s), Joe & Kuo (2008)
_JOE_KUO = {2: (1, 0, [1]), 3: (2, 1, [1, 3]), 4: (3, 1, [1, 3, 1]), 5: (3, 2, [1, 1, 1]), 6: (4, 1, [1, 1, 3, 3]),
            7: (4, 4, [1, 3, 5, 13]), 8: (5, 2, [1, 1, 5, 5, 17]), 9: (5, 4, [1, 1, 5, 5, 5]),
            10: (5, 7, [1, 1, 7, 11, 19]), 11: (5, 11, [1, 1, 5, 1, 1]), 12: (5, 13, [1, 1, 1, 3, 11]),
            13: (5, 14, [1, 3, 5, 5, 31]), 14: (6, 1, [1, 3, 3, 9, 7, 49]), 15: (6, 13, [1, 1, 1, 15, 21, 21]),
            16: (6, 16, [1, 3, 1, 13, 27, 49])}
MAX_DIM = 1 + len(_JOE_KUO)


def _direction_numbers(dim):
    """``(dim, 32)`` uint64: direction number ``k`` of each dimension, scaled to a 32-bit fraction."""
    numbers = np.zeros((dim, _BITS), np.uint64)
    numbers[0] = [1 << (_BITS - 1 - k) for k in range(_BITS)]
    for d in range(2, dim + 1):
        degree, coefficients, m = _JOE_KUO[d]
        m = list(m)
        for k in range(degree, _BITS):  # m_k = 2^s m_{k-s} ^ m_{k-s} ^ sum_j a_j 2^j m_{k-j}
            value = m[k - degree] ^ (m[k - degree] << degree)
            for j in range(1, degree):
                if (coefficients >> (degree - 1 - j)) & 1:
                    value ^= m[k - j] << j
            m.append(value)
        numbers[d - 1] = [m[k] << (_BITS - 1 - k) for k in range(_BITS)]
    return numbers


def _points(dim, count, skip, numpy_dtype):
    indices = np.arange(skip + 1, skip + 1 + count, dtype=np.uint64)
    gray = indices ^ (indices >> np.uint64(1))
    numbers = _direction_numbers(dim)
    fractions = np.zeros((count, dim), np.uint64)
    for k in range(_BITS):
        fractions ^= np.where(((gray >> np.uint64(k)) & np.uint64(1)).astype(bool)[:, None], numbers[:, k], 0)
    return (fractions.astype(np.float64) / 2.0 ** _BITS).astype(numpy_dtype)


def sobol_sample(dim, num_results, skip=0, dtype=_dtypes.float32, name=None):
    """``[num_results, dim]`` points of the Sobol sequence (float32 or float64) after skipping ``skip`` points.

    Parameters
    ----------
    dim : int
        Dimensions, 1 to 16 in vfw (TF's table goes to 21201: larger ``dim`` raises NotImplementedError).
    num_results : int
    skip : int
    dtype : float32 or float64
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in (_dtypes.float32, _dtypes.float64):
        raise op_error(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: float, double",
                       "SobolSample")
    tensors = [convert_to_tensor(v, dtype=_dtypes.int32) for v in (dim, num_results, skip)]

    def run(dim_array, count_array, skip_array):
        dims, count, skipped = int(dim_array), int(count_array), int(skip_array)
        if dims < 1:
            raise op_error(f"dim must be at least one, got {dims}", "SobolSample")
        if count < 1:
            raise op_error(f"num_results must be at least one, got {count}", "SobolSample")
        if skipped < 0:
            raise op_error(f"skip must be non-negative, got {skipped}", "SobolSample")
        if dims > MAX_DIM:
            raise NotImplementedError(f"tf.math.sobol_sample: vfw has the direction numbers of {MAX_DIM} "
                                      f"dimensions, got dim={dims}")
        return _points(dims, count, skipped, dtype.as_numpy_dtype)

    return host(run, *tensors)


NAMESPACES = {"math": ["sobol_sample"]}
TENSOR_METHODS = {}
