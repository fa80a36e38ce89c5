"""Embedding, EmbeddingBag and one_hot against real torch: lookups, bag reductions, padding rows,
frequency-scaled gradients, in-place max_norm renormalization, initialization, reprs and errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, assert_same, check, check_grad, real, to_numpy, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr

WEIGHT = arrays((7, 3), seed=0)
INDICES = np.array([[1, 4, 2, 4], [6, 0, 4, 1]])


def F(lib):
    return lib.nn.functional


# -- embedding -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 4}, {"padding_idx": -3}, {"padding_idx": 0},
                                    {"scale_grad_by_freq": True}, {"padding_idx": 1, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_embedding_values_and_gradients(kwargs, index_dtype):
    for idx in (INDICES, INDICES[0], np.asarray(INDICES[0, 0])):
        for w in (WEIGHT, WEIGHT.astype(np.float64)):
            check_grad(lambda lib, i, a: F(lib).embedding(i, a, **kwargs), idx.astype(index_dtype), w)


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf")])
def test_embedding_max_norm_renormalizes_the_weight_in_place(norm_type):
    def run(lib, i, a):
        w = a * 1.0  # a non-leaf, so the in-place change shows in the gradient's path
        y = F(lib).embedding(i, w, max_norm=1.2, norm_type=norm_type)
        return y, w, w._version

    check_grad(lambda lib, i, a: run(lib, i, a)[0], INDICES, WEIGHT * 2)
    check(run, INDICES, WEIGHT * 2)
    check(lambda lib, i, a: (F(lib).embedding(i, a, max_norm=1.0), a), INDICES, WEIGHT)


def test_embedding_sparse_flag_gives_the_same_dense_gradient():
    grads = []
    for lib in (real, vt):
        w = lib.from_numpy(WEIGHT.copy()).requires_grad_()
        F(lib).embedding(lib.from_numpy(INDICES), w, sparse=True).pow(2).sum().backward()
        grads.append(w.grad.to_dense() if w.grad.is_sparse else w.grad)
    assert_same(to_numpy(grads[0]), to_numpy(grads[1]))


EMBEDDING_ERRORS = [
    lambda lib, w: F(lib).embedding(lib.tensor([1, 7]), w),
    lambda lib, w: F(lib).embedding(lib.tensor([1, -1]), w),
    lambda lib, w: F(lib).embedding(lib.tensor([1.0, 2.0]), w),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2], dtype=lib.int16), w),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w[0]),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w.reshape(1, 7, 3)),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w, padding_idx=7),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w, padding_idx=-8),
    lambda lib, w: F(lib).embedding([1, 2], w),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), [[1.0]]),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 9]), w, max_norm=1.0),
    lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w.int()),
]


@pytest.mark.parametrize("k", range(len(EMBEDDING_ERRORS)))
def test_embedding_errors(k):
    check(EMBEDDING_ERRORS[k], WEIGHT)


# -- embedding_bag -------------------------------------------------------------------------------
FLAT = np.array([1, 2, 4, 5, 4, 3, 0, 4, 6])
BAGS = [
    (np.array([0, 2, 2, 5]), False),  # an empty bag in the middle
    (np.array([0, 3, 9]), False),  # an empty bag at the end
    (np.array([0]), False),
    (np.array([0, 2, 2, 9]), True),
]
# Offsets that make no bag at all crash torch 2.13 (its backward, and its forward in mode max), and with
# entries after the last offset of include_last_offset it reads garbage: both are tested on their own below.


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4, -1])
@pytest.mark.parametrize("bags", range(len(BAGS)))
def test_embedding_bag_with_offsets(mode, padding_idx, bags):
    offsets, last = BAGS[bags]
    for w in (WEIGHT, WEIGHT.astype(np.float64)):
        check_grad(lambda lib, i, o, a: F(lib).embedding_bag(i, a, o, mode=mode, include_last_offset=last,
                                                             padding_idx=padding_idx), FLAT, offsets, w)


@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("bags", range(len(BAGS)))
def test_embedding_bag_per_sample_weights(padding_idx, bags):
    offsets, last = BAGS[bags]
    samples = np.linspace(-1, 2, FLAT.size).astype(np.float32)
    check_grad(lambda lib, i, o, a, s: F(lib).embedding_bag(i, a, o, mode="sum", per_sample_weights=s,
                                                            include_last_offset=last, padding_idx=padding_idx),
               FLAT, offsets, WEIGHT, samples)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d_input(mode):
    check_grad(lambda lib, i, a: F(lib).embedding_bag(i, a, mode=mode), INDICES, WEIGHT)
    check_grad(lambda lib, i, a: F(lib).embedding_bag(i, a, mode=mode, padding_idx=4), INDICES.astype(np.int32),
               WEIGHT)
    check_grad(lambda lib, i, a: F(lib).embedding_bag(i, a, mode=mode, include_last_offset=True), INDICES, WEIGHT)
    if mode == "sum":
        check_grad(lambda lib, i, a, s: F(lib).embedding_bag(i, a, mode=mode, per_sample_weights=s), INDICES,
                   WEIGHT, arrays(INDICES.shape, seed=3))


def test_embedding_bag_max_ties_go_to_the_first_entry():
    # Equal rows and repeated indices tie: torch gives each maximum's gradient to the first.
    w = np.array([[1.0, 2.0], [1.0, 2.0], [0.5, 3.0]], np.float32)
    check_grad(lambda lib, i, o, a: F(lib).embedding_bag(i, a, o, mode="max"), np.array([1, 0, 2, 2, 0]),
               np.array([0, 3]), w)


def test_embedding_bag_max_norm():
    def run(lib, i, o, a):
        w = a * 1.0
        return F(lib).embedding_bag(i, w, o, max_norm=1.5, mode="sum"), w

    check_grad(lambda lib, i, o, a: run(lib, i, o, a)[0], FLAT, np.array([0, 4]), WEIGHT * 2)
    check(run, FLAT, np.array([0, 4]), WEIGHT * 2)


def test_embedding_bag_frequency_scaling_divides_by_each_index_count():
    # Oracle: the gradient of each weight row is (sum of its entries' bag gradients) / (its count).
    # (torch 2.13's CPU kernel scales by other indices' counts here, so it is not the oracle.)
    w = vt.from_numpy(WEIGHT.copy()).requires_grad_()
    offsets = np.array([0, 2, 5])
    g = arrays((3, 3), seed=4)
    for mode in ("sum", "mean"):
        w.grad = None
        y = F(vt).embedding_bag(vt.from_numpy(FLAT), w, vt.from_numpy(offsets), mode=mode, scale_grad_by_freq=True)
        (y * vt.from_numpy(g)).sum().backward()
        bag = np.repeat(np.arange(3), np.diff(np.append(offsets, FLAT.size)))
        sizes = np.bincount(bag)
        per_entry = g[bag] / (sizes[bag, None] if mode == "mean" else 1)
        expected = np.zeros_like(WEIGHT)
        np.add.at(expected, FLAT, per_entry / np.bincount(FLAT, minlength=7)[FLAT, None])
        np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_without_bags(mode):
    # Oracle: a (0, dim) result whose gradient reaches no row (torch's backward, and its forward in mode
    # max, crash here).
    for offsets, last in ((np.array([0]), True), (np.zeros(0, np.int64), False)):
        w = vt.from_numpy(WEIGHT.copy()).requires_grad_()
        y = F(vt).embedding_bag(vt.from_numpy(FLAT), w, vt.from_numpy(offsets), mode=mode, include_last_offset=last)
        assert tuple(y.shape) == (0, 3) and y.dtype == vt.float32
        y.sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), np.zeros_like(WEIGHT))


# include_last_offset with entries after the last offset: torch's kernels run the last bag to the end with a
# padding index, in mode max or for float64 weights; else the output leaves those entries out, and a mean
# divides the last bag by its count up to the end.  Offsets end before FLAT's 9 entries (the last bag empty in
# two of them).
TAIL_OFFSETS = [np.array([0, 2, 5]), np.array([0, 4, 4]), np.array([0, 0, 3])]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 4])
@pytest.mark.parametrize("offsets", range(len(TAIL_OFFSETS)))
def test_embedding_bag_entries_after_the_last_offset(mode, padding_idx, offsets):
    def bags(lib, i, o, a):
        return F(lib).embedding_bag(i, a, o, mode=mode, include_last_offset=True, padding_idx=padding_idx)

    for w in (WEIGHT, WEIGHT.astype(np.float64)):
        if padding_idx is not None or mode == "max" or w.dtype == np.float64:
            check_grad(bags, FLAT, TAIL_OFFSETS[offsets], w)
        else:  # torch's backward gives those entries gradients (sum: read from uninitialized memory): values only
            check(bags, FLAT, TAIL_OFFSETS[offsets], w)


@pytest.mark.parametrize("mode,padding_idx", [("sum", None), ("mean", 4), ("max", None)])
def test_embedding_bag_last_offset_beyond_the_entries_is_refused(mode, padding_idx):
    check(lambda lib, i, o, a: F(lib).embedding_bag(i, a, o, mode=mode, include_last_offset=True,
                                                    padding_idx=padding_idx), FLAT, np.array([0, 2, 10]), WEIGHT)


BAG_ERRORS = [
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([1, 3])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0, 10])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0], dtype=lib.int32)),
    lambda lib, w, i: F(lib).embedding_bag(i.int(), w, lib.tensor([0], dtype=lib.int32)),
    lambda lib, w, i: F(lib).embedding_bag(i.float(), w, lib.tensor([0])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0.0])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([[0]])),
    lambda lib, w, i: F(lib).embedding_bag(i, w),
    lambda lib, w, i: F(lib).embedding_bag(i.reshape(3, 3), w, lib.tensor([0])),
    lambda lib, w, i: F(lib).embedding_bag(i.reshape(1, 3, 3), w),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0]), mode="foo"),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0]), mode="mean", per_sample_weights=lib.ones(9)),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0]), mode="sum", per_sample_weights=lib.ones(5)),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0]), mode="sum",
                                           per_sample_weights=lib.ones(9, dtype=lib.float64)),
    lambda lib, w, i: F(lib).embedding_bag(lib.tensor([1, 9]), w, lib.tensor([0])),
    lambda lib, w, i: F(lib).embedding_bag(lib.tensor([1, -1]), w, lib.tensor([0])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0, 2]), padding_idx=7),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0, 2]), padding_idx=-8),
    lambda lib, w, i: F(lib).embedding_bag(i, w.int(), lib.tensor([0, 2])),
    lambda lib, w, i: F(lib).embedding_bag(i, w[:, 0], lib.tensor([0, 2])),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0, 2]), mode="max", scale_grad_by_freq=True),
    lambda lib, w, i: F(lib).embedding_bag(i, w, lib.tensor([0, 2]), mode="max", sparse=True),
    lambda lib, w, i: F(lib).embedding_bag(lib.tensor([], dtype=lib.int64), w, lib.tensor([0])),
    lambda lib, w, i: F(lib).embedding_bag(lib.tensor([], dtype=lib.int64), w, lib.tensor([0, 0]), mode="max"),
]


@pytest.mark.parametrize("k", range(len(BAG_ERRORS)))
def test_embedding_bag_argument_checks(k):
    check(BAG_ERRORS[k], WEIGHT, FLAT)


# -- one_hot -------------------------------------------------------------------------------------
ONE_HOT = [
    (np.array([1, 3]), -1), (np.array([1, 3]), 5), (np.array([1, 3]), 3), (np.array([1, -1]), 3),
    (np.array([1, -1]), -1), (np.array([1, 2], np.int32), 3), (np.array([1.0, 2.0]), 3),
    (np.zeros(0, np.int64), -1), (np.zeros(0, np.int64), 3), (np.array(2), 3), (np.array([1, 2]), 0),
    (np.array([0, 0]), 0), (np.array([1, 2]), -2), (np.array([[0, 2], [1, 1]]), 4),
]


@pytest.mark.parametrize("k", range(len(ONE_HOT)))
def test_one_hot(k):
    x, n = ONE_HOT[k]
    check(lambda lib, a: F(lib).one_hot(a, n), x)
    check(lambda lib, a: F(lib).one_hot(a, num_classes=n), x)
    check(lambda lib, a: F(lib).one_hot(input=a), x)


# -- modules -------------------------------------------------------------------------------------
EMBEDDINGS = [
    lambda lib: lib.nn.Embedding(7, 3), lambda lib: lib.nn.Embedding(7, 3, padding_idx=2),
    lambda lib: lib.nn.Embedding(7, 3, padding_idx=-1, scale_grad_by_freq=True),
    lambda lib: lib.nn.Embedding(7, 3, max_norm=1.0, norm_type=1),
    lambda lib: lib.nn.Embedding(7, 3, dtype=lib.float64, sparse=False),
]
BAGS_MODULES = [
    lambda lib: lib.nn.EmbeddingBag(7, 3), lambda lib: lib.nn.EmbeddingBag(7, 3, mode="sum", padding_idx=4),
    lambda lib: lib.nn.EmbeddingBag(7, 3, mode="max", padding_idx=-2),
    lambda lib: lib.nn.EmbeddingBag(7, 3, max_norm=1.0, norm_type=3.0, mode="sum"),
    lambda lib: lib.nn.EmbeddingBag(7, 3, include_last_offset=True, dtype=lib.float64),
]


@pytest.mark.parametrize("k", range(len(EMBEDDINGS)))
def test_embedding_module(k):
    check_init(EMBEDDINGS[k])
    check_repr(EMBEDDINGS[k])
    check_module(EMBEDDINGS[k], INDICES)
    check_module(EMBEDDINGS[k], INDICES[0].astype(np.int32))


@pytest.mark.parametrize("k", range(len(BAGS_MODULES)))
def test_embedding_bag_module(k):
    check_init(BAGS_MODULES[k])
    check_repr(BAGS_MODULES[k])
    check_module(BAGS_MODULES[k], INDICES)
    check_module(BAGS_MODULES[k], FLAT, np.array([0, 4, 4, 9]))
    if "mode='sum'" in repr(BAGS_MODULES[k](real)):
        check_module(BAGS_MODULES[k], FLAT, np.array([0, 4]), arrays(FLAT.shape, seed=5),
                     call=lambda m, i, o, s: m(i, o, per_sample_weights=s))


def test_reprs_with_every_option():
    check_repr(lambda lib: lib.nn.Embedding(5, 3, max_norm=1.0, norm_type=1, scale_grad_by_freq=True, padding_idx=2,
                                            sparse=True))
    check_repr(lambda lib: lib.nn.EmbeddingBag(5, 3, max_norm=1.0, norm_type=1, scale_grad_by_freq=True, mode="sum",
                                               padding_idx=2, sparse=True, include_last_offset=True))


def test_module_attributes_and_errors():
    for cls in ("Embedding", "EmbeddingBag"):
        check(lambda lib, c=cls: {k: v for k, v in vars(getattr(lib.nn, c)(5, 3, padding_idx=-2)).items()
                                  if not k.startswith("_") and k != "training"})
        for kwargs in ({"padding_idx": 5}, {"padding_idx": -6}, {"_weight": np.ones((4, 3), np.float32)}):
            check(lambda lib, c=cls, kw=kwargs: getattr(lib.nn, c)(5, 3, **{
                k: lib.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}))
        check(lambda lib, c=cls: getattr(lib.nn, c).from_pretrained(lib.ones(4)))
        check(lambda lib, c=cls: getattr(lib.nn, c)(4, 2, _weight=lib.ones(4, 2)).weight)


@pytest.mark.parametrize("cls", ["Embedding", "EmbeddingBag"])
@pytest.mark.parametrize("freeze", [True, False])
def test_from_pretrained(cls, freeze):
    def run(lib, w, i):
        m = getattr(lib.nn, cls).from_pretrained(w, freeze=freeze, padding_idx=1)
        y = m(i)
        if freeze:
            return y, m.weight.requires_grad, m.weight.data_ptr() == w.data_ptr(), repr(m)
        y.sum().backward()
        return y, m.weight.grad, repr(m)

    check(run, WEIGHT, INDICES)


def test_embedding_trains_with_sgd():
    # A few steps of training move the looked-up rows only (the padding row stays zero).
    def run(lib, i):
        lib.manual_seed(0)
        m = lib.nn.Embedding(7, 3, padding_idx=0)
        opt_rows = []
        for _ in range(3):
            m.zero_grad()
            m(i).pow(2).sum().backward()
            with lib.no_grad():
                m.weight -= 0.1 * m.weight.grad
            opt_rows.append(m.weight.clone())
        return opt_rows

    check(run, INDICES)
