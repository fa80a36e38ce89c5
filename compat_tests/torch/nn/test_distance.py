"""PairwiseDistance, CosineSimilarity, F.pairwise_distance, F.cosine_similarity and F.pdist against real torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_module, check_repr


@pytest.mark.parametrize("shapes", [((4, 5), (4, 5)), ((5,), (5,)), ((4, 5), (1, 5)), ((2, 3, 5), (3, 5))])
@pytest.mark.parametrize("config", [{}, {"p": 1.0}, {"p": 3.0, "eps": 0.1}, {"keepdim": True}, {"p": float("inf")}])
def test_pairwise_distance_module(shapes, config):
    x1, x2 = arrays(*shapes, seed=1)
    check_module(lambda lib: lib.nn.PairwiseDistance(**config), x1, x2)
    check_repr(lambda lib: lib.nn.PairwiseDistance(**config))
    check(lambda lib: (lambda m: (m.norm, m.eps, m.keepdim))(lib.nn.PairwiseDistance(**config)))


@pytest.mark.parametrize("shapes,dim", [(((4, 5), (4, 5)), 1), (((4, 5), (4, 5)), 0), (((2, 3, 4), (3, 4)), -1),
                                        (((5,), (5,)), 0), (((3, 1), (1, 4)), 0)])
@pytest.mark.parametrize("eps", [1e-8, 0.5])
def test_cosine_similarity_module(shapes, dim, eps):
    x1, x2 = arrays(*shapes, seed=2)
    check_module(lambda lib: lib.nn.CosineSimilarity(dim, eps), x1, x2)
    check_repr(lambda lib: lib.nn.CosineSimilarity(dim, eps))


def test_distance_functionals_are_torchs_functions():
    def case(lib):
        F = lib.nn.functional
        return F.pairwise_distance is lib.pairwise_distance, F.cosine_similarity is lib.cosine_similarity
    check(case)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(3, 4), lib.ones(2, 4)),
    lambda lib: (lib.ones(3, 4, dtype=lib.int64), lib.ones(3, 4, dtype=lib.int64)),
    lambda lib: (lib.ones(3, 4), lib.ones(3, 4, dtype=lib.float64)),
    lambda lib: ([1.0], lib.ones(1)),
])
def test_distance_modules_bad_inputs(args):
    check(lambda lib: lib.nn.PairwiseDistance()(*args(lib)))
    check(lambda lib: lib.nn.CosineSimilarity()(*args(lib)))


@pytest.mark.parametrize("shape", [(5, 3), (2, 4), (7, 1), (4, 0)])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf")])
def test_pdist(shape, p):
    x = arrays(shape, seed=3)
    check_grad(lambda lib, x: lib.nn.functional.pdist(x, p), x)
    check_grad(lambda lib, x: lib.nn.functional.pdist(x, p), x.astype(np.float64))


def test_pdist_counts_and_repeated_rows():
    x = arrays((4, 3), seed=4)
    check(lambda lib, x: lib.nn.functional.pdist(x, 0), x)
    # Equal rows: a zero distance, whose gradient torch takes as zero for p = 2.
    repeated = np.concatenate([x, x[:1]], axis=0)
    check_grad(lambda lib, x: lib.nn.functional.pdist(x), repeated)


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(2, 4, 3),),
    lambda lib: (lib.ones(3),),
    lambda lib: (lib.ones(4, 3), -1.0),
    lambda lib: (lib.ones(4, 3, dtype=lib.int64),),
    lambda lib: (lib.ones(4, 3, dtype=lib.float16),),
    lambda lib: (lib.ones(1, 3),),
    lambda lib: (lib.ones(0, 3),),
    lambda lib: (lib.ones(4, 3), "two"),
    lambda lib: ([[1.0, 2.0]],),
])
def test_pdist_errors_and_edge_cases(args):
    check(lambda lib: lib.nn.functional.pdist(*args(lib)))
