"""Max pooling over disjoint windows (stride at least the window's extent), whose gradient is a plain scatter
write: values, indices and gradients against real torch, ties included (the first maximum in a window wins)."""

import numpy as np
import pytest

from compat_tests.torch.harness import check_grad

DISJOINT_CASES = [
    ((6, 8), {"kernel_size": 2}),
    ((7, 9), {"kernel_size": 2}),                                       # tails no window reads
    ((7, 7), {"kernel_size": 2, "ceil_mode": True}),                    # last windows overhang
    ((8, 9), {"kernel_size": 3, "stride": 3, "padding": 1}),            # every window reads some of X
    ((9,), {"kernel_size": 2, "stride": 4, "dilation": 2}),             # gaps between windows
    ((4, 6, 4), {"kernel_size": 2}),
]


def relu_like(*shape, seed=0):
    """Small integers clipped at zero: whole windows of zeros and other ties, as after a ReLU."""
    return np.maximum(np.random.default_rng(seed).integers(-3, 3, shape), 0).astype(np.float32)


@pytest.mark.parametrize("spatial, kwargs", DISJOINT_CASES)
def test_disjoint_max_pool_gradient_with_ties(spatial, kwargs):
    fn = f"max_pool{len(spatial)}d"
    x = relu_like(2, 3, *spatial)
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, return_indices=True, **kwargs), x)
    check_grad(lambda lib, x: getattr(lib.nn.functional, fn)(x, **kwargs), x)


def test_disjoint_max_pool_gradient_after_relu_in_a_model():
    x = np.random.default_rng(1).standard_normal((2, 4, 6, 6)).astype(np.float32)
    check_grad(lambda lib, x: lib.nn.functional.max_pool2d(lib.relu(x), 2) * 3.0, x)
