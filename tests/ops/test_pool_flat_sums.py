"""AveragePool / LpPool window sums as shifts of the flattened padded input (stride 1, outputs spanning most of
each axis): every window's taps stay inside its own image, sums that run into the next image are cropped away.
Checked against a numpy reference that visits every window tap (float64, several images and channels so that
the flat shifts cross image boundaries)."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, rand
from tests.ops.test_pool import _ref_pool
from vfw.core import run

FLAT_CASES = [
    ((3, 4, 9, 11), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ((2, 5, 8, 7), {"kernel_shape": [3, 2], "pads": [2, 0, 1, 1], "dilations": [2, 1]}),
    ((2, 3, 10), {"kernel_shape": [4], "pads": [1, 2], "dilations": [2]}),
    ((2, 3, 6, 7, 8), {"kernel_shape": [2, 3, 3], "pads": [1, 1, 0, 0, 1, 2]}),
    ((2, 3, 7, 8), {"kernel_shape": [1, 3], "pads": [0, 1, 0, 1]}),  # a unit window axis: no pass along it
    ((2, 3, 7, 8), {"kernel_shape": [1, 1]}),  # no pass at all: the input itself must not be written
    ((2, 3, 7, 8), {"kernel_shape": [3, 3], "pads": [0, 0, 1, 1], "ceil_mode": 1}),
]


@pytest.mark.parametrize("shape, attrs", FLAT_CASES)
def test_flat_window_sums_against_numpy(shape, attrs):
    x = rand(shape, np.float64)
    kept = x.copy()
    for cip in (0, 1):
        assert_same(run("AveragePool", x, count_include_pad=cip, **attrs),
                    _ref_pool(x, "avg", attrs, count_include_pad=cip)[0], 1e-12, 1e-12)
    plain = {k: v for k, v in attrs.items() if k != "ceil_mode"}
    for p in (1, 2, 3):
        y = run("LpPool", x, p=p, **plain)
        assert y.flags.c_contiguous
        assert_same(y, _ref_pool(x, "lp", plain, p=p)[0], 1e-12, 1e-12)
    np.testing.assert_array_equal(x, kept)


def test_flat_window_sums_float32_out_buffer():
    x = rand((2, 6, 14, 14), np.float32)
    out = np.full((2, 6, 14, 14), np.nan, np.float32)
    assert run("AveragePool", x, out=out, kernel_shape=[3, 3], pads=[1, 1, 1, 1]) is out
    expected = _ref_pool(x.astype(np.float64), "avg", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})[0]
    assert_same(out, expected.astype(np.float32), 1e-6, 1e-6)
