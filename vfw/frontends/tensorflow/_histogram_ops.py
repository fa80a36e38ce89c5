"""tf.histogram_fixed_width and tf.histogram_fixed_width_bins (integer results: not differentiable)."""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, mismatch, op_error
from vfw.frontends.tensorflow._op_support import OpTypes, static_int

_HISTOGRAM_TYPES = OpTypes("HistogramFixedWidth", "int32 int64 float32 float64")


def _range_of(values, value_range, tf_op):
    x = convert_to_tensor(values)
    bounds = convert_to_tensor(value_range, dtype=_dtypes.of_array(x.array))
    if bounds.array.shape != (2,):
        raise op_error(f"value_range should be a vector of 2 elements, got shape {list(bounds.array.shape)}", tf_op)
    return x, bounds


def histogram_fixed_width(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (values outside go to the end bins).

    Parameters
    ----------
    values : numeric tensor (int32, int64, float32, float64)
    value_range : tensor of shape [2], same dtype
        ``[low, high)``; values below ``low`` count in the first bin, at or above ``high`` in the last.
    nbins : int
    dtype : int32 or int64
        The counts' dtype.

    Returns
    -------
    Tensor of shape [nbins].
    """
    x, bounds = _range_of(values, value_range, "HistogramFixedWidth")
    _HISTOGRAM_TYPES.check(x.array.dtype)
    count = static_int(nbins, "nbins")
    if count <= 0:
        raise op_error(f"nbins should be a positive number, but got '{count}'", "HistogramFixedWidth")
    out = _dtypes.as_dtype(dtype).np

    def compute(array, limits):
        low, high = limits[0], limits[1]
        if not low < high:
            raise op_error(f"value_range should satisfy value_range[0] < value_range[1], but got '[{low} {high}]'",
                           "HistogramFixedWidth")
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise op_error("Histogram values must not contain NaN", "HistogramFixedWidth")
        step = float(high - low) / float(count)  # TF's kernel: the bin of x is (max(x, low) - low) / step in double
        offsets = (np.maximum(array, low) - low).astype(np.float64)
        bins = np.minimum(offsets / step, count - 1).astype(np.int32).reshape(-1)
        return np.bincount(bins, minlength=count).astype(out)

    return host(compute, x, bounds)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=_dtypes.int32, name=None):
    """The bin index (int32, shaped like ``values``) of each value in ``histogram_fixed_width``'s bins.

    Computed as TF does, in the values' float dtype: ``floor(nbins * (x - low) / (high - low))``
    clipped to ``[0, nbins - 1]``.
    """
    x = convert_to_tensor(values)
    bounds = convert_to_tensor(value_range)
    if bounds.array.dtype != x.array.dtype:  # TF computes values - value_range[0]
        raise mismatch("Sub", x.array.dtype, bounds.array.dtype)
    dtype_of_x = _dtypes.of_array(x.array)
    if not dtype_of_x.is_floating:
        raise TypeError(f"histogram_fixed_width_bins: values must be floating point, got {dtype_of_x.name}")
    count = static_int(nbins, "nbins")

    def compute(array, limits):
        kind = array.dtype.type
        scaled = (array - limits[0]) / (limits[1] - limits[0])
        indices = np.floor(kind(count) * scaled)
        return np.clip(indices, 0, kind(count) - 1).astype(np.int32)

    return host(compute, x, bounds)


NAMESPACES = {"tf": ["histogram_fixed_width", "histogram_fixed_width_bins"]}
TENSOR_METHODS = {}
