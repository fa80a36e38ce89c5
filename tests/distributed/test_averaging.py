"""``divide_by`` (the averaging pass of all-reduce "avg" and DDP) gives numpy's division bit for bit."""

import numpy as np
import pytest

from vfw.core.distributed import divide_by


@pytest.mark.parametrize("size", [1, 2, 3, 4, 6, 8])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_divide_by_is_numpys_division(size, dtype):
    info = np.finfo(dtype)
    values = np.concatenate([np.random.default_rng(size).standard_normal(1000) * 1e3,
                             [0.0, -0.0, np.inf, -np.inf, np.nan, info.max, info.tiny, info.smallest_subnormal,
                              3 * info.smallest_subnormal]]).astype(dtype)
    out = np.empty_like(values)
    divide_by(values, size, out=out)
    want = np.divide(values, size)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))


def test_divide_by_integers_stays_numpys():
    with pytest.raises(TypeError):  # numpy's casting error: an int array cannot hold the true quotient
        divide_by(np.arange(4), 2, out=np.empty(4, np.int64))
