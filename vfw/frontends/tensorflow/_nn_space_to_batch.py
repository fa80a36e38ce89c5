"""tf.nn.with_space_to_batch: run a VALID-padded op on a space-to-batch view of the input (dilated convolution
and pooling as plain ones).

The spatial dimensions are padded (by the filter's dilated extent for "SAME", plus what makes them
divisible by the rates), split by ``space_to_batch_nd`` into ``prod(dilation_rate)`` batches, the op
runs on them with "VALID" padding, and ``batch_to_space_nd`` reassembles and crops the result.  All
of it is differentiable tf ops.
"""

import numpy as np

from vfw.frontends.tensorflow._array_transform import (
    batch_to_space,
    required_space_to_batch_paddings,
    space_to_batch_nd,
)
from vfw.frontends.tensorflow._dispatch import convert_to_tensor


def _int_array(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value).astype(np.int64)


def _widened(values, fill, spatial_dims):
    """Per-spatial-dim ``values`` spread over dims ``1..spatial_dims[-1]`` (``fill`` elsewhere), as
    ``space_to_batch_nd`` takes its block dimensions right after the batch."""
    out = np.full((spatial_dims[-1],) + values.shape[1:], fill, np.int64)
    out[np.asarray(spatial_dims) - 1] = values
    return out


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """``op(input, num_spatial_dims, padding)`` with its spatial dimensions dilated by ``dilation_rate``.

    Parameters
    ----------
    input : Tensor
        Rank ``num_spatial_dims + 2`` (batch, spatial dims, channels; channels first if
        ``data_format`` starts with "NC").
    dilation_rate : sequence of int
        One positive rate per spatial dimension.
    padding : {"SAME", "VALID"}
    op : callable
        ``op(converted_input, num_spatial_dims, "VALID")``, e.g. a convolution or a pooling.
    filter_shape : sequence of int, optional
        The spatial filter shape (required for "SAME" padding).
    spatial_dims : sequence of int, optional
        The spatial dimensions of ``input`` (increasing; default after the batch dimension, or
        after the channels for "NC..." formats).

    Returns
    -------
    Tensor
        ``op``'s result on the dilated input, cropped back.
    """
    input = convert_to_tensor(input)  # noqa: A001
    rates = _int_array(dilation_rate)
    if rates.ndim != 1:
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={dilation_rate} of rank "
                         f"{rates.ndim}")
    n = rates.size
    if np.any(rates < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rates}")
    if spatial_dims is None:
        start = 2 if data_format is not None and data_format.startswith("NC") else 1
        spatial_dims = list(range(start, start + n))
    spatial_dims = [int(d) for d in spatial_dims]
    if spatial_dims != sorted(spatial_dims) or len(set(spatial_dims)) != len(spatial_dims) or spatial_dims[0] < 1:
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of positive integers. "
                         f"Received: spatial_dims={spatial_dims}")
    if np.all(rates == 1):
        return op(input, n, padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`. Received: filter_shape=None and "
                             f"padding={padding}")
        extent = (_int_array(filter_shape)[:n] - 1) * rates
        base = np.stack([extent // 2, extent - extent // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros((n, 2), np.int64)
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    spatial_shape = [input.array.shape[d] for d in spatial_dims]
    paddings, crops = required_space_to_batch_paddings(spatial_shape, rates, base_paddings=base)
    block = _widened(rates, 1, spatial_dims)
    paddings = _widened(paddings.numpy(), 0, spatial_dims)
    crops = _widened(crops.numpy(), 0, spatial_dims)
    converted = space_to_batch_nd(input, block, paddings)
    return batch_to_space(op(converted, n, "VALID"), block, crops)


NAMESPACES = {"nn": ["with_space_to_batch"]}
