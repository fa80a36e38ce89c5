"""tf.math.sobol_sample against TF 2.21."""

import pytest

from compat_tests.tensorflow.harness import check

pytest.importorskip("tensorflow")


@pytest.mark.parametrize("dim, count, skip", [(1, 5, 0), (3, 6, 0), (2, 3, 2), (16, 300, 0), (16, 70000, 0),
                                              (7, 50, 123456789), (5, 10, 2**31)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sobol_sample_equals_tf(dim, count, skip, dtype):
    if skip >= 2**31:
        check(lambda tf: tf.math.sobol_sample(dim, count, skip=skip, dtype=dtype))
        return
    check(lambda tf: tf.math.sobol_sample(dim, count, skip=skip, dtype=dtype), rtol=0, atol=0)


@pytest.mark.parametrize("args", [(0, 3), (2, 0), (2, 3, -1)])
def test_sobol_sample_errors(args):
    check(lambda tf: tf.math.sobol_sample(*args))
    check(lambda tf: tf.math.sobol_sample(2, 3, dtype="int32"))
