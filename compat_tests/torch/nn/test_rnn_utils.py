"""torch.nn.utils.rnn (PackedSequence, packing and padding) against real torch, gradients included."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def U(lib):
    return lib.nn.utils.rnn


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[5, 3, 3, 1], [5, 5, 5, 5], [2, 1, 1, 1]])
def test_pack_padded_sequence(batch_first, lengths):
    x = arrays((4, 5, 3) if batch_first else (5, 4, 3))
    check_grad(lambda lib, x: tuple(U(lib).pack_padded_sequence(x, lengths, batch_first=batch_first)), x)
    check(lambda lib, x: tuple(U(lib).pack_padded_sequence(x, lib.tensor(lengths), batch_first=batch_first)), x)


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_unsorted(batch_first):
    x = arrays((4, 5, 2) if batch_first else (5, 4, 2), seed=1)
    lengths = [2, 5, 1, 3]
    check_grad(lambda lib, x: tuple(U(lib).pack_padded_sequence(x, lengths, batch_first, enforce_sorted=False)), x)
    check(lambda lib, x: tuple(U(lib).pack_padded_sequence(x, lib.tensor(lengths, dtype=lib.int32), batch_first,
                                                           enforce_sorted=False)), x)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("total_length", [None, 7])
@pytest.mark.parametrize("padding_value", [0.0, -1.5])
def test_pad_packed_sequence_round_trip(batch_first, total_length, padding_value):
    x = arrays((6, 4, 3), seed=2)

    def case(lib, x):
        packed = U(lib).pack_padded_sequence(x, [3, 6, 1, 4], enforce_sorted=False)
        return U(lib).pad_packed_sequence(packed, batch_first, padding_value, total_length)

    check_grad(case, x)


def test_pad_packed_sequence_of_a_hand_made_sequence():
    data = arrays((6, 2), seed=3)
    check_grad(lambda lib, d: U(lib).pad_packed_sequence(U(lib).PackedSequence(d, lib.tensor([3, 2, 1]))), data)
    check(lambda lib, d: U(lib).pad_packed_sequence(U(lib).PackedSequence(d, lib.tensor([3, 2, 1])), total_length=2),
          data)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first, padding_side):
    seqs = arrays((3, 2), (5, 2), (1, 2), seed=4)
    check_grad(lambda lib, *s: U(lib).pad_sequence(list(s), batch_first, 0.5, padding_side), *seqs)
    short = arrays((3,), (1,))
    check(lambda lib, *s: U(lib).pad_sequence(s, batch_first=batch_first, padding_side=padding_side), *short)


def test_pad_sequence_dtypes_and_errors():
    a, b = arrays((2, 3), (1, 3), seed=5)
    check(lambda lib, a, b: U(lib).pad_sequence([a, b.astype(np.float64)]), a, b.astype(np.float64))
    check(lambda lib, a: U(lib).pad_sequence([lib.ones(2, 3, dtype=lib.int64), a]), b)
    check(lambda lib, a: U(lib).pad_sequence([a, lib.ones(1, 4)]), a)
    check(lambda lib: U(lib).pad_sequence([]))
    check(lambda lib: U(lib).pad_sequence(5))
    check(lambda lib, a: U(lib).pad_sequence([a], padding_side="middle"), a)
    check(lambda lib, a: U(lib).pad_sequence(a), a)  # a tensor is an iterable of its rows


def test_pack_sequence_and_unpack_sequence():
    seqs = arrays((3, 2), (5, 2), (1, 2), seed=6)
    check_grad(lambda lib, *s: tuple(U(lib).pack_sequence(list(s), enforce_sorted=False)), *seqs)
    check_grad(lambda lib, *s: U(lib).unpack_sequence(U(lib).pack_sequence(list(s), enforce_sorted=False)), *seqs)
    check(lambda lib, *s: tuple(U(lib).pack_sequence(list(s))), *seqs)  # not sorted: torch's error
    check_grad(lambda lib, *s: tuple(U(lib).pack_sequence([s[1], s[0], s[2]])), *seqs)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(batch_first):
    x = arrays((4, 5, 2) if batch_first else (5, 4, 2), seed=7)

    def case(lib, x):
        padded = x * 1  # unpad_sequence transposes a time-major batch in place, as torch's does
        pieces = U(lib).unpad_sequence(padded, lib.tensor([5, 2, 3, 1]), batch_first)
        return pieces, tuple(padded.shape)

    check_grad(lambda lib, x: case(lib, x)[0], x)
    check(case, x)


@pytest.mark.parametrize("case", [
    lambda lib: U(lib).pack_padded_sequence(lib.ones(4, 3, 2), [2, 3, 1]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(4, 3, 2), [3, 2, 0]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(4, 3, 2), [3, 2]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(4, 3, 2), lib.tensor([[3, 2, 1]])),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(4), [3]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(0, 2, 1), [1, 1]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(3, 2, 1), [2, 1], batch_first=True),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(3, 2, 1), lib.tensor([3.0, 2.0])),
    lambda lib: U(lib).pad_packed_sequence(U(lib).pack_padded_sequence(lib.ones(4, 3, 2), [3, 2, 1]), total_length=2),
    lambda lib: U(lib).PackedSequence(lib.ones(3)),
    lambda lib: U(lib).pack_sequence([lib.ones(0, 2)]),
])
def test_errors_and_edge_cases(case):
    check(lambda lib: tuple(case(lib)))


def test_packed_sequence_type_and_conversions():
    def case(lib):
        p = U(lib).pack_padded_sequence(lib.ones(3, 2, 2), [3, 1], enforce_sorted=False)
        q = p.to(lib.float64)
        hand = U(lib).PackedSequence(lib.ones(3), lib.tensor([2, 1]), lib.tensor([1, 0]))
        return (isinstance(p, tuple), p._fields, q.data.dtype, p.double().data.dtype, p.to(lib.float32) is p,
                p.is_cuda, tuple(hand), U(lib).invert_permutation(lib.tensor([2, 0, 1])), p.cpu() is p,
                type(q).__name__, q.sorted_indices, q.unsorted_indices, p.half().data.dtype, p.long().data.dtype)

    check(case)
    assert U(vt).invert_permutation(None) is None and U(real).invert_permutation(None) is None
