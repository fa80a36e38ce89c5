"""DeformConv against ONNX's reference evaluator."""

import pytest

from tests.ops.oracle import check_op, rand
from vfw.core import ShapeError, run


@pytest.mark.parametrize("config", [
    dict(),
    dict(pads=[1, 1, 1, 1]),
    dict(strides=[2, 1], pads=[1, 0, 0, 1]),
    dict(dilations=[2, 1]),
    dict(group=2),
    dict(offset_group=2),
])
@pytest.mark.parametrize("with_mask_bias", [False, True])
def test_deform_conv(config, with_mask_bias):
    # Small: ONNX's reference samples every tap of every channel pair in Python.
    x = rand((1, 4, 5, 4), seed=1)
    group, offset_group = config.get("group", 1), config.get("offset_group", 1)
    w = rand((2, 4 // group, 3, 2), seed=2)
    sh, sw = config.get("strides", [1, 1])
    dh, dw = config.get("dilations", [1, 1])
    top, left, bottom, right = config.get("pads", [0, 0, 0, 0])
    oh, ow = (5 + top + bottom - 2 * dh - 1) // sh + 1, (4 + left + right - dw - 1) // sw + 1
    offset = rand((1, offset_group * 6 * 2, oh, ow), low=-1.5, high=1.5, seed=3)
    inputs = [x, w, offset]
    if with_mask_bias:
        inputs += [rand((2,), seed=4), rand((1, offset_group * 6, oh, ow), low=0, high=1, seed=5)]
    check_op("DeformConv", inputs, config, rtol=1e-4, atol=1e-5)


def test_deform_conv_errors():
    with pytest.raises(ShapeError, match="offset must have shape"):
        run("DeformConv", rand((1, 1, 4, 4)), rand((1, 1, 2, 2)), rand((1, 8, 2, 2)))
    with pytest.raises(ShapeError, match="only 2-D"):
        run("DeformConv", rand((1, 1, 4)), rand((1, 1, 2)), rand((1, 2, 3)))
