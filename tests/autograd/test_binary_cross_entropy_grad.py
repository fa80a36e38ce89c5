"""BinaryCrossEntropy's gradients: central finite differences inside (0, 1), PyTorch's finite values at 0 and 1."""

import numpy as np

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute


def case(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.05, 0.95, (3, 4)), rng.uniform(0, 1, (3, 4))]


def test_first_order():
    check_gradient("BinaryCrossEntropy", case())


def test_higher_order():
    check_higher_order("BinaryCrossEntropy", case(1), order=2)


def test_edges_follow_torch():
    # d/dx = (x - y) / max(x (1 - x), 1e-12): finite at 0 and 1; d/dy = log(1 - x) - log(x): infinite there.
    x = Tensor(np.array([0.0, 1.0, 0.5]), requires_grad=True)
    y = Tensor(np.array([0.3, 0.6, 0.5]), requires_grad=True)
    dx, dy = autograd.gradient([execute("BinaryCrossEntropy", x, y)], [x, y])
    np.testing.assert_allclose(dx.array, [-0.3e12, 0.4e12, 0.0])
    np.testing.assert_array_equal(dy.array, [np.inf, -np.inf, 0.0])


def test_half_precision_gradient():
    x = Tensor(np.array([0.0, 0.25], np.float16), requires_grad=True)
    (dx,) = autograd.gradient([execute("BinaryCrossEntropy", x, np.array([1.0, 1.0], np.float16))], [x])
    assert dx.array.dtype == np.float16
    assert np.isinf(dx.array[0]) and dx.array[0] < 0  # -1e12 overflows float16, as torch's half result does
    np.testing.assert_allclose(dx.array[1], -4.0)
