"""Embedding and EmbeddingBag engine ops: kernels against numpy oracles (explicit loops over bags),
gradients by central differences where the gradient is the derivative, and against numpy oracles
where it is deliberately not (padding rows, frequency scaling)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute, get_schema, run
from vfw.core.errors import IndexOutOfRangeError, OpInputError, ShapeError
from vfw.core.registry import TensorInfo

RNG = np.random.default_rng(0)
WEIGHT = RNG.standard_normal((7, 3))
FLAT = np.array([1, 2, 4, 5, 4, 3, 0, 4, 6])


# -- Embedding -----------------------------------------------------------------------------------
@pytest.mark.parametrize("indices", [np.array([[1, 2, 1], [6, 0, 1]]), np.array([3]), np.array(5),
                                     np.zeros((2, 0), np.int64), np.array([0, 6], np.int32)])
def test_embedding_is_a_row_lookup(indices):
    got = run("Embedding", WEIGHT, indices)
    np.testing.assert_array_equal(got, WEIGHT[indices])
    assert got.shape == indices.shape + (3,)


def test_embedding_keeps_any_table_dtype():
    table = np.arange(12).reshape(4, 3).astype(np.int32)
    np.testing.assert_array_equal(run("Embedding", table, np.array([3, 0])), table[[3, 0]])


@pytest.mark.parametrize("bad", [np.array([7]), np.array([-1]), np.array([[0, 9]])])
def test_embedding_rejects_indices_outside_the_table(bad):
    with pytest.raises(IndexOutOfRangeError, match="index out of range in self"):
        run("Embedding", WEIGHT, bad)


def test_embedding_needs_a_2d_table():
    with pytest.raises(ShapeError):
        run("Embedding", WEIGHT[0], np.array([0]))


def test_embedding_gradient_is_a_scatter_add():
    idx = np.array([[1, 2, 1], [6, 0, 1]])
    check_gradient("Embedding", [WEIGHT, idx])
    check_higher_order("Embedding", [WEIGHT, idx])


def _embedding_grad(idx, g, padding_idx=-1, scale_grad_by_freq=0):
    w = Tensor(WEIGHT.copy(), requires_grad=True)
    y = execute("Embedding", w, idx, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    (gw,) = autograd.gradient([y], [w], [Tensor(g)])
    return gw.array


@pytest.mark.parametrize("padding_idx", [-1, 1, 0])
@pytest.mark.parametrize("scale", [0, 1])
def test_embedding_padding_and_frequency_gradients(padding_idx, scale):
    idx = np.array([[1, 2, 1], [6, 0, 1]])
    g = RNG.standard_normal(idx.shape + (3,))
    expected = np.zeros_like(WEIGHT)
    counts = np.bincount(idx.ravel(), minlength=7)
    for i, row in zip(idx.ravel(), g.reshape(-1, 3)):  # oracle: one entry at a time
        if i != padding_idx:
            expected[i] += row / (counts[i] if scale else 1)
    np.testing.assert_allclose(_embedding_grad(idx, g, padding_idx, scale), expected, rtol=1e-12)


def test_embedding_shape_inference():
    (info,) = get_schema("Embedding").infer({"padding_idx": -1, "scale_grad_by_freq": 0},
                                            [TensorInfo((7, 3), WEIGHT.dtype), TensorInfo((2, 5), np.dtype(np.int64))])
    assert info.shape == (2, 5, 3) and info.dtype == WEIGHT.dtype


# -- EmbeddingBag --------------------------------------------------------------------------------
def _bag_oracle(weight, indices, offsets, mode, padding_idx=-1, include_last_offset=False, samples=None):
    """Each bag reduced with a Python loop."""
    ends = list(offsets[1:]) + ([] if include_last_offset else [len(indices)])
    starts = offsets[:-1] if include_last_offset else offsets
    out = np.zeros((len(starts), weight.shape[1]))
    for b, (s, e) in enumerate(zip(starts, ends)):
        entries = [k for k in range(s, e) if indices[k] != padding_idx]
        if not entries:
            continue
        rows = np.array([weight[indices[k]] * (1 if samples is None else samples[k]) for k in entries])
        out[b] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


BAGS = [(np.array([0, 2, 2, 5]), 0), (np.array([0, 3, 9]), 0), (np.array([0]), 0), (np.array([0, 2, 4]), 1),
        (np.array([0, 2, 2, 9]), 1), (np.array([0]), 1), (np.zeros(0, np.int64), 0)]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [-1, 4])
@pytest.mark.parametrize("bags", range(len(BAGS)))
def test_embedding_bag_reductions(mode, padding_idx, bags):
    offsets, last = BAGS[bags]
    attrs = {"mode": mode, "padding_idx": padding_idx, "include_last_offset": last}
    out = run("EmbeddingBag", WEIGHT, FLAT, offsets, None, **attrs)[0]
    np.testing.assert_allclose(out, _bag_oracle(WEIGHT, FLAT, offsets, mode, padding_idx, last), rtol=1e-12)
    if padding_idx < 0:  # with padding the gradient is not the derivative at the padding rows (none flows there)
        check_gradient("EmbeddingBag", [WEIGHT, FLAT, offsets], attrs, outputs=[0])


@pytest.mark.parametrize("bags", range(len(BAGS)))
def test_embedding_bag_per_sample_weights(bags):
    offsets, last = BAGS[bags]
    samples = np.linspace(-1, 2, FLAT.size)
    attrs = {"mode": "sum", "include_last_offset": last}
    out = run("EmbeddingBag", WEIGHT, FLAT, offsets, samples, **attrs)[0]
    np.testing.assert_allclose(out, _bag_oracle(WEIGHT, FLAT, offsets, "sum", -1, last, samples), rtol=1e-12)
    check_gradient("EmbeddingBag", [WEIGHT, FLAT, offsets, samples], attrs, outputs=[0])


def test_embedding_bag_max_indices_point_at_the_first_maximum():
    w = np.array([[1.0, 2.0], [1.0, 2.0], [0.5, 3.0]])
    out, _, _, argmax = run("EmbeddingBag", w, np.array([1, 0, 2, 2, 0]), np.array([0, 3, 5]), None, mode="max")
    # bag 0 holds rows 1, 0, 2 (rows 1 and 0 tie on the first feature), bag 1 rows 2, 0, bag 2 nothing
    np.testing.assert_array_equal(argmax, [[1, 2], [0, 2], [-1, -1]])
    np.testing.assert_array_equal(out, [[1.0, 3.0], [1.0, 3.0], [0.0, 0.0]])


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_second_order(mode):
    samples = np.linspace(-1, 2, FLAT.size) if mode == "sum" else None
    check_higher_order("EmbeddingBag", [WEIGHT, FLAT, np.array([0, 4]), samples], {"mode": mode})


@pytest.mark.parametrize("offsets,error", [(np.array([1, 3]), OpInputError), (np.array([0, 10]), OpInputError),
                                           (np.array([0, 4, 2]), OpInputError), (np.array([[0]]), ShapeError)])
def test_embedding_bag_offset_errors(offsets, error):
    with pytest.raises(error):
        run("EmbeddingBag", WEIGHT, FLAT, offsets)


def test_embedding_bag_other_errors():
    with pytest.raises(IndexOutOfRangeError):
        run("EmbeddingBag", WEIGHT, np.array([1, 7]), np.array([0]))
    with pytest.raises(OpInputError):
        run("EmbeddingBag", WEIGHT, FLAT, np.array([0]), np.ones(FLAT.size), mode="mean")
    with pytest.raises(ShapeError):
        run("EmbeddingBag", WEIGHT, FLAT, np.array([0]), np.ones(3), mode="sum")


def test_embedding_bag_shape_inference():
    index = np.dtype(np.int64)
    infos = [TensorInfo((7, 3), WEIGHT.dtype), TensorInfo((9,), index), TensorInfo((4,), index)]
    for last, bags in ((0, 4), (1, 3)):
        attrs = {"mode": "sum", "padding_idx": -1, "include_last_offset": last, "scale_grad_by_freq": 0}
        out = get_schema("EmbeddingBag").infer(attrs, infos + [None])
        assert out[0].shape == (bags, 3) and out[1].shape == (9,)
