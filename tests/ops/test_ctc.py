"""CTCLoss kernel against a brute-force oracle: the probability of a label sequence is the sum, over every
path of per-step classes that collapses to it (merge repeats, drop blanks), of the product of the path's
probabilities.  Tiny problems make the enumeration (C ** T paths) cheap."""

import itertools

import numpy as np
import pytest

from vfw.core import IndexOutOfRangeError, OpAttributeError, ShapeError, TensorInfo, get_schema, run


def collapse(path, blank):
    out = []
    previous = None
    for c in path:
        if c != previous and c != blank:
            out.append(c)
        previous = c
    return tuple(out)


def brute_force_nll(lp, target, steps, blank):
    """-log sum over paths of length ``steps`` collapsing to ``target`` (float64)."""
    total = 0.0
    for path in itertools.product(range(lp.shape[1]), repeat=steps):
        if collapse(path, blank) == tuple(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def case(steps, n, c, longest, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((steps, n, c))
    lp = x - np.log(np.exp(x).sum(axis=2, keepdims=True))
    targets = rng.integers(1, c, (n, longest))
    return lp, targets


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("blank", [0, 2])
def test_against_enumeration(dtype, blank):
    lp, targets = case(5, 5, 3, 3, seed=1)
    targets = np.where(targets == blank, 0 if blank else 1, targets)  # no blank among the labels
    targets[0, :2] = targets[0, 0]  # a repeat: a blank must separate the two
    other = 0 if blank == 2 else 2
    targets[4] = [1, other, 1]  # 3 labels in 3 steps: the one path without blanks
    input_lengths = np.array([5, 4, 5, 2, 3])
    target_lengths = np.array([2, 3, 0, 1, 3])
    loss, log_alpha = run("CTCLoss", lp.astype(dtype), targets, input_lengths, target_lengths, blank=blank)
    want = [brute_force_nll(lp[:, i], targets[i, :target_lengths[i]], input_lengths[i], blank) for i in range(5)]
    assert loss.dtype == dtype and log_alpha.shape == (5, 5, 7)
    np.testing.assert_allclose(loss, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_concatenated_targets_equal_padded():
    lp, targets = case(6, 3, 4, 3, seed=2)
    lengths = np.array([3, 1, 2])
    flat = np.concatenate([row[:k] for row, k in zip(targets, lengths)])
    a = run("CTCLoss", lp, targets, np.array([6, 5, 6]), lengths)[0]
    b = run("CTCLoss", lp, flat.astype(np.int32), np.array([6, 5, 6], np.int32), lengths.astype(np.int32))[0]
    np.testing.assert_array_equal(a, b)


def test_impossible_and_empty():
    lp, targets = case(3, 4, 3, 3, seed=3)
    targets[1] = [1, 1, 1]  # needs 5 steps
    loss = run("CTCLoss", lp, targets, np.array([2, 3, 0, 0]), np.array([3, 3, 0, 1]))[0]
    assert np.isinf(loss[0]) and np.isinf(loss[1]) and loss[2] == 0 and np.isinf(loss[3])
    zeroed = run("CTCLoss", lp, targets, np.array([2, 3, 0, 0]), np.array([3, 3, 0, 1]), zero_infinity=1)[0]
    np.testing.assert_array_equal(zeroed, [0, 0, 0, 0])
    no_steps = run("CTCLoss", lp[:0], targets, np.zeros(4, np.int64), np.array([0, 1, 0, 2]))[0]
    np.testing.assert_array_equal(no_steps, [0, np.inf, 0, np.inf])
    assert run("CTCLoss", lp[:, :0], targets[:0], np.zeros(0, np.int64), np.zeros(0, np.int64))[0].shape == (0,)


def test_errors():
    lp, targets = case(4, 2, 3, 2, seed=4)
    il, tl = np.array([4, 3]), np.array([2, 1])
    with pytest.raises(ShapeError, match="at most 4"):
        run("CTCLoss", lp, targets, np.array([5, 3]), tl)
    with pytest.raises(ShapeError, match=">= 0"):
        run("CTCLoss", lp, targets, il, np.array([-1, 1]))
    with pytest.raises(ShapeError, match="shape \\(2,\\)"):
        run("CTCLoss", lp, targets, il[:1], tl)
    with pytest.raises(ShapeError, match="S >= 3"):
        run("CTCLoss", lp, targets, il, np.array([3, 1]))
    with pytest.raises(ShapeError, match="sum\\(target_lengths\\) = 3"):
        run("CTCLoss", lp, targets.reshape(-1), il, tl)
    with pytest.raises(ShapeError, match="\\(T, N, C\\)"):
        run("CTCLoss", lp[0], targets, il, tl)
    with pytest.raises(OpAttributeError, match="blank=3"):
        run("CTCLoss", lp, targets, il, tl, blank=3)
    with pytest.raises(IndexOutOfRangeError, match="label 7"):
        run("CTCLoss", lp, np.array([[1, 7], [1, 2]]), il, tl)
    # Labels past a sequence's length are never read: any value is fine there.
    run("CTCLoss", lp, np.array([[1, 2], [1, -5]]), il, tl)


def test_shape_inference():
    schema = get_schema("CTCLoss")
    loss, alpha = schema.infer({"blank": 0, "zero_infinity": 0},
                               [TensorInfo((7, 3, 5), np.dtype(np.float32)), TensorInfo((3, 4), np.dtype(np.int64)),
                                TensorInfo((3,), np.dtype(np.int64)), TensorInfo((3,), np.dtype(np.int64))])
    assert loss.shape == (3,) and alpha.shape == (7, 3, None) and loss.dtype == np.float32
