"""Sequence and optional ops against numpy (the expected values are computed with numpy/list operations)."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, rand
from vfw.core import DTypeError, IndexOutOfRangeError, OpInputError, ShapeError, run
from vfw.core.values import OptionalValue, TensorSequence


def seq(*arrays):
    return TensorSequence(arrays, arrays[0].dtype if arrays else np.float32)


def assert_seq(actual, expected, dtype):
    assert isinstance(actual, TensorSequence) and actual.elem_dtype == dtype
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_same(a, e)


def test_empty_construct_insert_at_erase_length():
    a, b, c = rand((2,), seed=1), rand((3,), seed=2), rand((1,), seed=3)
    empty = run("SequenceEmpty", dtype=np.dtype(np.int64))
    assert_seq(empty, [], np.dtype(np.int64))
    built = run("SequenceConstruct", a, b)
    assert_seq(built, [a, b], a.dtype)
    assert built[0] is not a  # fresh memory
    assert_seq(run("SequenceInsert", built, c), [a, b, c], a.dtype)
    assert_seq(run("SequenceInsert", built, c, np.array(0, np.int64)), [c, a, b], a.dtype)
    assert_seq(run("SequenceInsert", built, c, np.array(-1, np.int32)), [a, c, b], a.dtype)
    assert_same(run("SequenceAt", built, np.array(-1, np.int64)), b)
    assert_seq(run("SequenceErase", built), [a], a.dtype)
    assert_seq(run("SequenceErase", built, np.array(0, np.int64)), [b], a.dtype)
    assert_same(run("SequenceLength", built), np.array(2, np.int64))
    assert len(built) == 2  # inputs are never changed


def test_concat_and_split():
    parts = [rand((2, 3), seed=k) for k in range(3)]
    s = seq(*parts)
    assert_same(run("ConcatFromSequence", s, axis=1), np.concatenate(parts, axis=1))
    assert_same(run("ConcatFromSequence", s, axis=-1, new_axis=1), np.stack(parts, axis=-1))
    x = rand((5, 4), seed=9)
    assert_seq(run("SplitToSequence", x, np.array(2, np.int64)), np.split(x, [2, 4]), x.dtype)
    assert_seq(run("SplitToSequence", x, np.array([1, 3], np.int64), axis=1), np.split(x, [1], axis=1), x.dtype)
    assert_seq(run("SplitToSequence", x, axis=1, keepdims=0), [x[:, k] for k in range(4)], x.dtype)
    assert_seq(run("SplitToSequence", x, axis=0), np.split(x, 5), x.dtype)


def test_optionals():
    x = rand((2,), seed=4)
    full, empty = run("Optional", x), run("Optional")
    assert isinstance(full, OptionalValue) and isinstance(empty, OptionalValue) and empty.value is None
    assert_same(run("OptionalHasElement", full), np.array(True))
    assert_same(run("OptionalHasElement", empty), np.array(False))
    assert_same(run("OptionalHasElement"), np.array(False))
    assert_same(run("OptionalHasElement", x), np.array(True))
    assert_same(run("OptionalGetElement", full), x)
    assert_same(run("OptionalGetElement", x), x)
    s = seq(x)
    assert run("OptionalGetElement", run("Optional", s)) is s


def test_errors():
    s = seq(rand((2,)), rand((2,)))
    with pytest.raises(IndexOutOfRangeError, match="position 2"):
        run("SequenceAt", s, np.array(2, np.int64))
    with pytest.raises(DTypeError, match="cannot hold"):
        run("SequenceInsert", s, np.zeros(2, np.int64))
    with pytest.raises(DTypeError, match="must be a sequence"):
        run("SequenceLength", np.zeros(2))
    with pytest.raises(DTypeError, match="must be a sequence"):
        run("SequenceLength", [np.zeros(2)])  # a plain list is not a sequence value
    with pytest.raises(OpInputError, match="empty"):
        run("OptionalGetElement", run("Optional"))
    with pytest.raises(OpInputError, match="empty"):
        run("ConcatFromSequence", run("SequenceEmpty"), axis=0)
    with pytest.raises(ShapeError, match="do not match"):
        run("ConcatFromSequence", seq(rand((2, 3)), rand((3, 2))), axis=0)
    with pytest.raises(ShapeError, match="sum to"):
        run("SplitToSequence", rand((4,)), np.array([1, 2], np.int64))
