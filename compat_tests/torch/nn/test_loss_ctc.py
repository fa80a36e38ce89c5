"""ctc_loss and CTCLoss against real torch 2.13: losses and gradients for padded and concatenated targets,
lengths as tensors or tuples, every reduction, zero_infinity, unbatched inputs, and torch's errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad
from compat_tests.torch.nn.harness import check_module, check_repr

T, N, C, S = 12, 4, 6, 5
INPUT_LENGTHS = np.array([12, 9, 7, 3])
TARGET_LENGTHS = np.array([5, 3, 0, 2])


def log_probs(shape=(T, N, C), dtype="float32", seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    return (x - np.log(np.exp(x).sum(axis=-1, keepdims=True))).astype(dtype)


def padded_targets(seed=1, blank=0):
    t = np.random.default_rng(seed).integers(0, C - 1, (N, S))
    t[t >= blank] += 1  # never the blank
    t[1, :3] = t[1, 0]  # repeated labels need a blank between them
    return t.astype("int64")


def concatenated(targets, lengths):
    return np.concatenate([row[:n] for row, n in zip(targets, lengths)])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
def test_ctc_loss(reduction, dtype, layout):
    x = log_probs(dtype=dtype)
    t = padded_targets()
    if layout == "concatenated":
        t = concatenated(t, TARGET_LENGTHS)

    def fn(lib, a, b, il, tl):
        return lib.nn.functional.ctc_loss(a, b, il, tl, reduction=reduction)

    check_grad(fn, x, t, INPUT_LENGTHS, TARGET_LENGTHS)
    check_module(lambda lib: lib.nn.CTCLoss(reduction=reduction), x, t, INPUT_LENGTHS, TARGET_LENGTHS)


@pytest.mark.parametrize("blank", [0, 3, C - 1])
def test_ctc_blank_and_length_forms(blank):
    x = log_probs(dtype="float64", seed=2)
    t = padded_targets(3, blank)
    il, tl = tuple(int(v) for v in INPUT_LENGTHS), [int(v) for v in TARGET_LENGTHS]
    check_grad(lambda lib, a: lib.nn.functional.ctc_loss(a, lib.from_numpy(t), il, tl, blank=blank), x)
    check_grad(lambda lib, a, b, u, v: lib.nn.functional.ctc_loss(a, b, u, v, blank=blank, reduction="none"), x, t,
               INPUT_LENGTHS.astype("int32"), TARGET_LENGTHS.astype("int32"))
    check(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, il, tl, blank=blank), x, t.astype("int32"))
    check(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, il, tl, blank=blank), x, t.astype("float32"))


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_impossible_alignments(zero_infinity, reduction):
    # Sequence 0 has more labels than steps, and sequence 1 needs blanks between repeats it has no room for:
    # infinite losses (NaN gradients), or zeros with zero_infinity.
    x = log_probs(dtype="float64", seed=4)
    t = padded_targets(5)
    t[1, :3] = 2
    il = np.array([3, 4, 7, 0])
    tl = np.array([5, 3, 2, 0])

    def fn(lib, a, b, u, v):
        return lib.nn.functional.ctc_loss(a, b, u, v, reduction=reduction, zero_infinity=zero_infinity)

    check_grad(fn, x, t, il, tl)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_unbatched(reduction):
    x = log_probs((T, C), "float64", 6)
    t = padded_targets(7)[0, :4]
    check_grad(lambda lib, a, b, u, v: lib.nn.functional.ctc_loss(a, b, u, v, reduction=reduction), x, t,
               np.array(10), np.array(4))
    check_grad(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, (10,), (4,), reduction=reduction), x, t)
    check(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, 10, 4), x, t)
    check(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, (10,), (4,)), x, padded_targets(7)[:1])
    check(lambda lib, a, b: lib.nn.functional.ctc_loss(a, b, (10,), (4,)), x, padded_targets(7)[0])


def test_ctc_errors():
    x = log_probs()
    t = padded_targets()

    def ctc(lib, a, b, u, v, **kw):
        return lib.nn.functional.ctc_loss(a, b, u, v, **kw)

    il, tl = INPUT_LENGTHS, TARGET_LENGTHS
    check(ctc, x, t, np.array([13, 9, 7, 3]), tl)  # longer than T
    check(ctc, x, t, np.array([-1, 9, 7, 3]), tl)
    check(ctc, x, t, il, np.array([-1, 3, 0, 2]))
    check(ctc, x, t, il, np.array([6, 3, 0, 2]))  # longer than the padded targets
    check(ctc, x, t, il[:3], tl)
    check(ctc, x, t, il, tl[:3])
    check(ctc, x, t, il.astype("float32"), tl)
    check(ctc, x, t.reshape(1, N, S), il, tl)
    check(ctc, x, concatenated(t, tl)[:5], il, tl)
    check(ctc, x, t, il, tl, blank=C)
    check(ctc, x, t, il, tl, reduction="bad")
    check(ctc, x.astype("float16"), t, il, tl)
    check(ctc, x[:, 0], t, il, tl)  # unbatched log_probs with batched lengths


def test_ctc_module_repr():
    check_repr(lambda lib: lib.nn.CTCLoss(blank=2, zero_infinity=True))
