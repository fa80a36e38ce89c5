import numpy as np
import pytest

from tests.ops.oracle import check_op, rand

SHAPES = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((5, 1, 3), (1, 4, 1)), ((), (2, 2)), ((0, 3), (1, 3))]


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("shapes", SHAPES)
def test_binary_matches_onnx(op, dtype, shapes):
    check_op(op, [rand(shapes[0], dtype, seed=1), rand(shapes[1], dtype, seed=2)])
