"""Index-pattern builders, unfold windows, fill_diagonal_ and small memory methods against real torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad


@pytest.mark.parametrize("fn", [
    lambda torch: (torch.tril_indices(3, 3), torch.tril_indices(4, 2, 1), torch.tril_indices(3, 5, -1),
                   torch.tril_indices(0, 3), torch.tril_indices(3, 3, dtype=torch.int32)),
    lambda torch: (torch.triu_indices(3, 4, 1), torch.triu_indices(3, 3, -1), torch.triu_indices(1, 1)),
    lambda torch: torch.tril_indices(-1, 3),
    lambda torch: (torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])),
                   torch.cartesian_prod(torch.tensor([1.5])), torch.cartesian_prod(torch.arange(2), torch.arange(2),
                                                                                   torch.arange(3))),
    lambda torch: (torch.combinations(torch.tensor([1, 2, 3, 4])), torch.combinations(torch.tensor([1., 2., 3.]), 3),
                   torch.combinations(torch.tensor([1, 2]), with_replacement=True),
                   torch.combinations(torch.tensor([1, 2, 3]), r=4), torch.combinations(torch.tensor([1, 2]), r=0)),
    lambda torch: (torch.block_diag(torch.ones(1, 2), torch.tensor([[2]]), torch.tensor([1.5, 2.0])),
                   torch.block_diag(torch.tensor(3), torch.tensor([1, 2])), torch.block_diag()),
    lambda torch: torch.block_diag(torch.ones(1, 1, 1)),
    lambda torch: (torch.vander(torch.tensor([1, 2, 3])), torch.vander(torch.tensor([1., 2.]), N=4),
                   torch.vander(torch.tensor([2., 3.]), 3, increasing=True), torch.vander(torch.tensor([1, 2]), N=0)),
    lambda torch: (torch.unravel_index(torch.tensor([5, 7, -1]), (2, 4)), torch.unravel_index(torch.tensor(3), (2, 2)),
                   torch.unravel_index(torch.tensor([4]), 3)),
    lambda torch: torch.unravel_index(torch.tensor([1.0]), (2, 2)),
])
def test_builders(fn):
    check(fn)


def test_builder_gradients():
    # (torch.vander's own backward fails with an in-place error in torch 2.13: not compared)
    check_grad(lambda torch, a, b: (torch.cartesian_prod(a, b), torch.combinations(a, 2), torch.block_diag(a, b[:2])),
               *arrays((3,), (4,), dtype="float64"))


@pytest.mark.parametrize("fn", [
    lambda torch, x: (x.unfold(0, 2, 1), x.unfold(1, 3, 2), x.unfold(-1, 4, 4), x.unfold(1, 5, 1)),
    lambda torch, x: x.t().unfold(0, 2, 2),
    lambda torch, x: x.unfold(1, 6, 1),
    lambda torch, x: x.unfold(1, 2, 0),
    lambda torch, x: x[0, 0].unfold(0, 1, 1),
])
def test_unfold(fn):
    check(fn, arrays((3, 5)))


def test_unfold_is_a_view_and_differentiable():
    def writes(torch, x):
        w = x.unfold(1, 2, 2)
        w[0, 0, 0] = 100.0
        return x, w._base is x
    check(writes, arrays((3, 5)))
    check_grad(lambda torch, x: (x.unfold(1, 3, 1) * torch.arange(3.0)).sum(-1), arrays((2, 6), dtype="float64"))
    check_grad(lambda torch, x: x.t().unfold(0, 2, 1).sum(), arrays((3, 4), dtype="float64"))


@pytest.mark.parametrize("fn", [
    lambda torch, x: (x.clone().fill_diagonal_(5), x[:2].clone().fill_diagonal_(-1)),
    lambda torch, x: torch.zeros(7, 3).fill_diagonal_(1, wrap=True),
    lambda torch, x: torch.zeros(7, 3).fill_diagonal_(1),
    lambda torch, x: torch.zeros(3, 3, 3, dtype=torch.int64).fill_diagonal_(2),
    lambda torch, x: torch.zeros(2, 3, 3).fill_diagonal_(1),
    lambda torch, x: torch.zeros(3).fill_diagonal_(1),
    lambda torch, x: (x.is_shared(), x.share_memory_() is x, x.is_shared()),
])
def test_fill_diagonal_and_memory_methods(fn):
    check(fn, arrays((4, 4)))


def test_fill_diagonal_gradient():
    def fn(torch, x):
        y = x * 2
        y.fill_diagonal_(0.5)
        return y
    check_grad(fn, np.arange(9.0).reshape(3, 3))


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.as_strided(x, (2, 2), (1, 2)), torch.as_strided(x, (2,), (3,), 1),
                      x[1].as_strided((2,), (1,)), x.t().as_strided((2, 2), (4, 1)), x.as_strided((0, 3), (1, 1))),
    lambda torch, x: torch.as_strided(x, (5, 5), (4, 1)),
    lambda torch, x: torch.as_strided(x, (2, 2), (1,)),
    lambda torch, x: (torch.empty_strided((2, 3), (1, 2)).shape, torch.empty_strided((2, 3), (1, 2)).stride(),
                      torch.empty_strided((4,), (2,), dtype=torch.int64).dtype),
    lambda torch, x: (torch.select_scatter(x, torch.ones(4), 0, 1), x.select_scatter(torch.ones(3), 1, -1),
                      torch.slice_scatter(x, torch.ones(3, 2), 1, 0, None, 2), torch.slice_scatter(x, torch.ones(1, 4)),
                      torch.diagonal_scatter(x, torch.ones(2), 1), x.diagonal_scatter(torch.zeros(3))),
    lambda torch, x: torch.select_scatter(x, torch.ones(3), 0, 1),
    lambda torch, x: (x.narrow_copy(1, 1, 2), torch.narrow_copy(x, 0, 1, 1)),
])
def test_strided_views_and_scatter_copies(fn):
    check(fn, arrays((3, 4)))


def test_storage_offsets_of_strided_views():
    check(lambda torch, x: [torch.as_strided(x, (2, 2), (3, 1), 4).storage_offset(),
                            x.unfold(0, 3, 2)[1].storage_offset(), x[3:].view(3, 3)[1:].storage_offset(),
                            torch.as_strided(x[2:], (2,), (2,)).storage_offset()], arrays((12,)))


def test_as_strided_shares_memory_and_scatter_copies_differentiate():
    def writes(torch, x):
        v = torch.as_strided(x, (2, 2), (1, 2))
        v[0, 1] = 100.0
        return x
    check(writes, arrays((3, 4)))
    check_grad(lambda torch, x: (torch.as_strided(x, (2, 2), (1, 2)) * torch.tensor([1.0, 2.0])).sum(),
               arrays((3, 4), dtype="float64"))
    check_grad(lambda torch, x, s: (torch.select_scatter(x, s, 0, 1), torch.diagonal_scatter(x, s[:3])),
               *arrays((3, 4), (4,), dtype="float64"))


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("fn", [
    lambda torch, x, s: (x.index_reduce(0, torch.tensor([0, 2, 0]), s, "prod"),
                         x.index_reduce(0, torch.tensor([0, 2, 0]), s, "mean", include_self=False),
                         torch.index_reduce(x, 1, torch.tensor([1, 1]), s[:, :2], "amin"),
                         x.clone().index_reduce_(0, torch.tensor([1, 1, 1]), s, "amax")),
    lambda torch, x, s: x.index_reduce(0, torch.tensor([0, 2, 0]), s, "sum"),
    lambda torch, x, s: x.index_reduce(0, torch.tensor([0, 2]), s, "prod"),
])
def test_index_reduce(fn):
    check(fn, *arrays((3, 2), (3, 2)))
