"""ChannelsLastConvMaxPool against the two ops it fuses (ChannelsLastConv then ChannelsLastMaxPool), over batches
of several slices, and its gradients by finite differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from vfw.core import run

RNG = np.random.default_rng(0)

CASES = [
    # X shape, W shape, conv attrs, pool attrs
    # 30 KB of convolution output per image (60 KB in float64): a 70-image batch runs in 9 (18) slices
    ((70, 24, 20, 3), (3, 3, 3, 16), {"pads": [1, 1, 1, 1]}, {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((9, 10, 9, 4), (3, 2, 2, 6), {"group": 2, "strides": [1, 2], "dilations": [2, 1], "pads": [0, 1, 2, 0]},
     {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1]}),
    ((5, 7, 7, 6), (3, 3, 1, 6), {"group": 6, "pads": [1, 1, 1, 1]}, {"kernel_shape": [2, 2], "strides": [1, 1],
                                                                          "dilations": [2, 1]}),
]


def _unfused(x, w, b, conv, pool):
    return run("ChannelsLastMaxPool", run("ChannelsLastConv", x, w, *([] if b is None else [b]), **conv), **pool)


def _fused_attrs(conv, pool):
    return dict(conv, **{"pool_" + k: v for k, v in pool.items()})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("xs, ws, conv, pool", CASES)
def test_equals_the_convolution_then_the_pool(xs, ws, conv, pool, bias, dtype):
    x, w = RNG.standard_normal(xs).astype(dtype), RNG.standard_normal(ws).astype(dtype)
    b = RNG.standard_normal(ws[-1]).astype(dtype) if bias else None
    y = run("ChannelsLastConvMaxPool", x, w, *([] if b is None else [b]), **_fused_attrs(conv, pool))
    expected = _unfused(x, w, b, conv, pool)
    assert y.dtype == dtype and y.shape == expected.shape
    np.testing.assert_array_equal(y, expected)  # the same kernels on batch slices: bit for bit


@pytest.mark.parametrize("xs, ws, conv, pool", [((2, 6, 5, 2), (3, 2, 2, 3), {"pads": [1, 0, 1, 1]},
                                                 {"kernel_shape": [2, 2], "strides": [2, 1]}),
                                                ((2, 5, 5, 4), (2, 2, 2, 4), {"group": 2},
                                                 {"kernel_shape": [2, 2], "strides": [1, 1]})])
def test_gradients(xs, ws, conv, pool):
    inputs = [RNG.standard_normal(xs), RNG.standard_normal(ws), RNG.standard_normal(ws[-1])]
    check_gradient("ChannelsLastConvMaxPool", inputs, _fused_attrs(conv, pool))
