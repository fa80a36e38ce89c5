"""Embedding and ranking losses (hinge embedding, margin ranking, cosine embedding, triplet margin, triplet margin
with distance) and their modules, against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_module, check_repr

REDUCTIONS = ["none", "mean", "sum"]
DTYPES = ["float32", "float64"]


def signs(shape, seed, dtype="float32"):
    return np.where(np.random.default_rng(seed).random(shape) > 0.5, 1, -1).astype(dtype)


def const(lib, a):
    return lib.from_numpy(a.copy())


@pytest.mark.parametrize("margin", [1.0, 0.4])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_hinge_embedding(margin, reduction, dtype):
    x = arrays((4, 5), dtype=dtype, seed=1)
    y = signs((4, 5), 2, dtype)
    check_grad(lambda lib, a: lib.nn.functional.hinge_embedding_loss(a, const(lib, y), margin, reduction=reduction),
               x)
    check_module(lambda lib: lib.nn.HingeEmbeddingLoss(margin, reduction=reduction), x, y, grad=False)
    check(lambda lib, a, b: lib.nn.functional.hinge_embedding_loss(a, b), x, y.astype("int64"))
    check(lambda lib, a, b: lib.nn.functional.hinge_embedding_loss(a, b), x, y[0])  # broadcast
    check(lambda lib, a, b: lib.nn.functional.hinge_embedding_loss(a, b), x, np.zeros((4, 5), "float32"))
    check(lambda lib, a, b: lib.nn.functional.hinge_embedding_loss(a, b), x.astype("int64"), y.astype("int64"))


@pytest.mark.parametrize("margin", [0.0, 0.5])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_margin_ranking(margin, reduction, dtype):
    a, b = arrays((6,), (6,), dtype=dtype, seed=3)
    y = signs((6,), 4, dtype)
    check_grad(lambda lib, u, v, t: lib.nn.functional.margin_ranking_loss(u, v, t, margin, reduction=reduction),
               a, b, y)
    check_module(lambda lib: lib.nn.MarginRankingLoss(margin, reduction=reduction), a, b, y)
    check(lambda lib, u, v, t: lib.nn.functional.margin_ranking_loss(u, v, t), a, b[:1], y)
    check(lambda lib, u, v, t: lib.nn.functional.margin_ranking_loss(u, v, t), a, b, y.reshape(1, 6))
    check(lambda lib, u, v, t: lib.nn.functional.margin_ranking_loss(u, v, t), a, b, y.astype("int64"))


@pytest.mark.parametrize("margin", [0.0, 0.3, -0.2])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cosine_embedding(margin, reduction, dtype):
    a, b = arrays((5, 4), (5, 4), dtype=dtype, seed=5)
    y = signs((5,), 6, dtype)
    y[0] = 0  # neither 1 nor -1: no loss
    check_grad(lambda lib, u, v: lib.nn.functional.cosine_embedding_loss(u, v, const(lib, y), margin,
                                                                        reduction=reduction), a, b)
    check_grad(lambda lib, u, v: lib.nn.functional.cosine_embedding_loss(u, v, lib.tensor(-1.0), margin,
                                                                        reduction=reduction), a[1], b[1])
    check_module(lambda lib: lib.nn.CosineEmbeddingLoss(margin, reduction=reduction), a, b, y, grad=False)


def test_cosine_embedding_errors_and_promotion():
    a, b = arrays((3, 4), (3, 4), seed=7)

    def cos(lib, u, v, t):
        return lib.nn.functional.cosine_embedding_loss(u, v, t)

    check(cos, a, b, np.ones(3, "int64"))
    check(cos, a, b[:1], np.ones(3, "float32"))  # broadcast
    check(cos, a, b, np.ones(2, "float32"))
    check(cos, a, b, np.array(1.0, "float32"))
    check(cos, a[0], b[0], np.ones(1, "float32"))
    check(cos, a, b, np.ones((3, 1), "float32"))
    check(cos, a.astype("int64"), b.astype("int64"), np.ones(3, "float32"))
    check(cos, a, b.astype("float64"), np.ones(3, "float32"))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin(p, swap, reduction):
    anchor, pos, neg = arrays((5, 4), (5, 4), (5, 4), dtype="float64", seed=8)
    neg[0] = pos[0] + 0.01  # swap changes this one

    def fn(lib, a, b, c):
        return lib.nn.functional.triplet_margin_loss(a, b, c, margin=1.5, p=p, swap=swap, reduction=reduction)

    check_grad(fn, anchor, pos, neg)
    check_grad(fn, anchor[0], pos[0], neg[0])
    check_module(lambda lib: lib.nn.TripletMarginLoss(1.5, p, swap=swap, reduction=reduction), anchor, pos, neg)


def test_triplet_margin_shapes_and_errors():
    a, b, c = arrays((3, 4), (3, 4), (3, 4), seed=9)

    def trip(lib, u, v, w, **kw):
        return lib.nn.functional.triplet_margin_loss(u, v, w, **kw)

    check(trip, a, b[:1], c, reduction="none")  # broadcast
    check(trip, a, b[0], c)
    check(trip, a, b, c, margin=0.0)
    check_grad(trip, *arrays((2, 3, 4), (2, 3, 4), (2, 3, 4), dtype="float64", seed=10), reduction="none")
    check_grad(trip, a, b, c, p=1, eps=1e-3)
    check(lambda lib: lib.nn.TripletMarginLoss(margin=-1.0))


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance(swap, reduction):
    anchor, pos, neg = arrays((5, 4), (5, 4), (5, 4), dtype="float64", seed=11)

    def cosine_distance(lib):
        return lambda u, v: 1.0 - lib.nn.functional.cosine_similarity(u, v)

    def fn(lib, a, b, c):
        return lib.nn.functional.triplet_margin_with_distance_loss(a, b, c, distance_function=cosine_distance(lib),
                                                                   margin=0.5, swap=swap, reduction=reduction)

    check_grad(fn, anchor, pos, neg)
    check_grad(lambda lib, a, b, c: lib.nn.functional.triplet_margin_with_distance_loss(a, b, c, swap=swap), anchor,
               pos, neg)
    check_module(lambda lib: lib.nn.TripletMarginWithDistanceLoss(swap=swap, reduction=reduction), anchor, pos, neg)
    check_module(lambda lib: lib.nn.TripletMarginWithDistanceLoss(distance_function=lib.nn.PairwiseDistance(p=1.0),
                                                                  margin=2.0, reduction=reduction), anchor, pos, neg)
    check_grad(lambda lib, a, b, c: lib.nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance(lib))(
        a, b, c), anchor, pos, neg)


def test_triplet_margin_with_distance_errors():
    a, b, c = arrays((3, 4), (3, 4), (3, 4), seed=12)

    def trip(lib, u, v, w, **kw):
        return lib.nn.functional.triplet_margin_with_distance_loss(u, v, w, **kw)

    check(trip, a, b[0], c)
    check(trip, a, b, c, margin=-1.0)
    check(trip, a, b, c, reduction="bad")
    check(lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0.0))


@pytest.mark.parametrize("name", ["HingeEmbeddingLoss", "MarginRankingLoss", "CosineEmbeddingLoss",
                                  "TripletMarginLoss", "TripletMarginWithDistanceLoss"])
def test_module_repr(name):
    check_repr(lambda lib: getattr(lib.nn, name)())
