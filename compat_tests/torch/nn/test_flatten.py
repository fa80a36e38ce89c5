"""Flatten and Unflatten against real torch: shapes, views, gradients, errors and reprs."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check
from compat_tests.torch.nn.harness import check_module, check_repr

FLATTENS = [(), (0,), (1,), (2,), (-2, -1), (0, -1), (1, 2), (0, 0), (-3, 1)]


@pytest.mark.parametrize("args", FLATTENS)
def test_flatten(args):
    def make(lib):
        return lib.nn.Flatten(*args)

    check_repr(make)
    for x in (arrays((2, 3, 4), seed=0), arrays((2, 3, 4, 2), dtype="float64", seed=1)):
        check_module(make, x)
    check(lambda lib, a: lib.nn.Flatten(*args)(a), arrays((3, 4), seed=2))  # too few dims for some


def test_flatten_views_and_edge_ranks():
    def run(lib, x, start, end):
        y = lib.nn.Flatten(start, end)(x)
        return y, y is x, y.data_ptr() == x.data_ptr()

    for start, end in ((1, -1), (0, -1), (1, 1), (2, 1), (0, 5)):
        check(lambda lib, a, s=start, e=end: run(lib, a, s, e), arrays((2, 3, 4), seed=3))
        check(lambda lib, a, s=start, e=end: run(lib, a, s, e), arrays((2, 3, 4), seed=3).transpose(2, 0, 1))
    for shape in ((), (5,)):
        check(lambda lib, a: lib.nn.Flatten()(a), np.ones(shape, np.float32))
        check(lambda lib, a: lib.nn.Flatten(0)(a), np.ones(shape, np.float32))
    check(lambda lib, a: lib.nn.Flatten()(a), np.arange(24).reshape(2, 3, 4))


UNFLATTENS = [(1, (2, 3)), (1, [2, 3]), (-1, (3, 2)), (1, (-1, 3)), (1, [2, -1]), (0, (2, 1)), (1, (6,)),
              (2, (1, 6)), (1, (1, 2, 3))]


@pytest.mark.parametrize("dim,sizes", UNFLATTENS)
def test_unflatten(dim, sizes):
    check_repr(lambda lib: lib.nn.Unflatten(dim, sizes))
    check_module(lambda lib: lib.nn.Unflatten(dim, sizes), arrays((2, 6, 6), seed=4))
    check(lambda lib, a: lib.nn.Unflatten(dim, sizes)(a).data_ptr() == a.data_ptr(), arrays((2, 6, 6), seed=4))


def test_unflatten_with_a_size():
    check_repr(lambda lib: lib.nn.Unflatten(-1, lib.Size([2, 3])))
    check_module(lambda lib: lib.nn.Unflatten(-1, lib.Size([2, 3])), arrays((4, 6), dtype="float64", seed=5))


def test_unflatten_errors():
    for sizes in (6, (2, 3.0), "23", None):
        check(lambda lib, s=sizes: lib.nn.Unflatten(1, s))
    for dim, sizes in ((1, (4, -1)), (1, (4, 2)), (3, (2, 3)), (1, (-1, -1))):
        check(lambda lib, a, d=dim, s=sizes: lib.nn.Unflatten(d, s)(a), arrays((2, 6), seed=6))


def test_flatten_unflatten_round_trip_in_a_model():
    def make(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(12, 12), lib.nn.Unflatten(1, (3, 4)))

    check_module(make, arrays((5, 3, 4), seed=7))
    check_repr(make)
