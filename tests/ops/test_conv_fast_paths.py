"""The stride-1 ConvTranspose path (flat shifted adds) and ConvGradFilter's per-batch-item path.

ConvTranspose is compared with the scatter definition (and ONNX's reference evaluator where it works);
ConvGradFilter with Conv's gradient by central differences.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from tests.ops.oracle import assert_same, check_op, rand
from tests.ops.test_conv import _ref_conv_transpose
from vfw.core import run

STRIDE1_CASES = [
    # (X shape, W shape, attrs, output's begin crop, output size): every stride is 1 (the shifted col2im)
    ((2, 4, 5, 6), (4, 3, 3, 3), {}, (0, 0), (7, 8)),
    ((2, 4, 5, 6), (4, 3, 3, 2), {"pads": [1, 0, 2, 1]}, (1, 0), (4, 6)),
    ((1, 4, 5, 6), (4, 2, 3, 3), {"group": 2, "dilations": [2, 1], "pads": [1, 1, 0, 1]}, (1, 1), (8, 6)),
    ((1, 2, 4, 5), (2, 3, 2, 3), {"dilations": [3, 2], "output_padding": [2, 1]}, (0, 0), (9, 10)),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"output_shape": [7, 9]}, (0, 0), (7, 9)),  # larger than the full result
    ((2, 3, 7), (3, 2, 4), {"pads": [2, 1]}, (2,), (7,)),
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), {"pads": [0, 1, 1, 1, 0, 0], "dilations": [1, 1, 2]}, (0, 1, 1), (3, 5, 4)),
    ((2, 3, 4, 4), (3, 5, 1, 1), {}, (0, 0), (4, 4)),
]


@pytest.mark.parametrize("xs, ws, attrs, begins, out_sp", STRIDE1_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stride1_conv_transpose_matches_scatter_definition(xs, ws, attrs, begins, out_sp, dtype):
    # the numpy scatter oracle of test_conv.py: ONNX's reference fails for groups, dilated output_padding and
    # output_shape; the plain cases are checked against it too
    group, nd = attrs.get("group", 1), len(xs) - 2
    x, w, b = rand(xs, dtype), rand(ws, dtype, seed=1), rand((ws[1] * group,), dtype, seed=2)
    want = _ref_conv_transpose(x, w, b, [1] * nd, attrs.get("dilations", [1] * nd), group, begins, out_sp)
    assert_same(run("ConvTranspose", x, w, b, **attrs), want, 1e-4, 1e-4)
    if group == 1 and "output_shape" not in attrs and "output_padding" not in attrs:
        check_op("ConvTranspose", [x, w, b], attrs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, ws, attrs, begins, out_sp", STRIDE1_CASES[:4])
def test_stride1_conv_transpose_gradients(xs, ws, attrs, begins, out_sp):
    check_gradient("ConvTranspose", [rand(xs, np.float64), rand(ws, np.float64, seed=1)], attrs)


@pytest.mark.parametrize("xs, ws, attrs", [
    ((3, 1, 6, 5), (8, 1, 2, 2), {}),  # 8 output channels > 4 window rows: one GEMM per batch item
    ((2, 2, 6, 5), (8, 1, 2, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 0, 1]}),
    ((2, 1, 9), (6, 1, 3), {"dilations": [2]}),
])
def test_conv_filter_gradient_per_batch_item(xs, ws, attrs):
    check_gradient("Conv", [rand(xs, np.float64), rand(ws, np.float64, seed=1)], attrs, wrt=[1])
