"""Collective ops in one process (a world of size 1: MPI's singleton) against numpy, gradients by finite
differences, and graph passes keeping them; tests/distributed/ runs them across 2 and 3 processes."""

import numpy as np
import pytest

pytest.importorskip("mpi4py")

from tests.autograd.gradcheck import check_gradient  # noqa: E402
from vfw.core import distributed  # noqa: E402
from vfw.core.eager import execute, run  # noqa: E402
from vfw.core.graph import function  # noqa: E402
from vfw.core.registry import TensorInfo, get_schema  # noqa: E402
from vfw.core.tensor import Tensor  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def world():
    group = distributed.init()
    assert group.size == 1, "these tests run in a single process"
    return group


X = np.arange(12, dtype=np.float32).reshape(4, 3) - 5


@pytest.mark.parametrize("reduction", ["sum", "avg", "max", "min", "prod"])
def test_all_reduce_of_one_process_is_its_input(reduction):
    np.testing.assert_array_equal(run("AllReduce", X, reduction=reduction), X)


def test_all_reduce_half_and_bool_keep_dtypes():
    half = run("AllReduce", X.astype(np.float16), reduction="sum")
    assert half.dtype == np.float16 and np.array_equal(half, X.astype(np.float16))
    flags = run("AllReduce", np.array([True, False]), reduction="sum")
    assert flags.dtype == np.bool_ and flags.tolist() == [True, False]


def test_all_gather_stacks_and_reduce_scatter_splits():
    np.testing.assert_array_equal(run("AllGather", X), X[None])
    np.testing.assert_array_equal(run("ReduceScatter", X, reduction="sum"), X)
    np.testing.assert_array_equal(run("Broadcast", X, root=0), X)


def test_shape_inference_does_not_communicate():
    info = [TensorInfo((4, 3), np.float32)]
    assert get_schema("AllGather").infer({"group": 0}, info)[0].shape == (1, 4, 3)
    assert get_schema("ReduceScatter").infer({"group": 0, "reduction": "sum"}, info)[0].shape == (4, 3)
    assert get_schema("AllReduce").infer({"group": 0, "reduction": "sum"}, info)[0].shape == (4, 3)


@pytest.mark.parametrize("op_type, attrs", [("AllReduce", {"reduction": "sum"}), ("AllReduce", {"reduction": "avg"}),
                                            ("AllGather", {}), ("ReduceScatter", {"reduction": "sum"}),
                                            ("ReduceScatter", {"reduction": "avg"}), ("Broadcast", {"root": 0})])
def test_gradients_match_finite_differences(op_type, attrs):
    check_gradient(op_type, [X.astype(np.float64)], attrs)


def test_gradient_of_max_is_refused():
    x = Tensor(X.copy(), requires_grad=True)
    y = execute("AllReduce", x, reduction="max")
    from vfw.core.autograd import gradient

    with pytest.raises(ValueError, match="AllReduce: the gradient is defined for reductions 'sum' and 'avg' only"):
        gradient([y], [x])


def test_bad_arguments_are_clear_errors(world):
    with pytest.raises(ValueError, match="reduction 'avg' needs a floating-point array, got int64"):
        world.all_reduce(np.arange(3), "avg")
    with pytest.raises(ValueError, match="unknown reduction 'mean'"):
        world.all_reduce(X, "mean")
    with pytest.raises(ValueError, match=r"src=1 is not a rank of this group \(ranks 0..0\)"):
        world.broadcast(X.copy(), 1)
    with pytest.raises(RuntimeError, match="no process group 7"):
        run("AllReduce", X, reduction="sum", group=7)


def test_graph_passes_keep_unused_collectives():
    calls = []
    group = distributed.world()
    original = group.all_reduce

    def counting(array, op="sum", out=None):
        calls.append(op)
        return original(array, op, out=out)

    group.all_reduce = counting
    try:
        @function
        def step(x):
            execute("AllReduce", x, reduction="max")  # unused: every process must still make the call
            a = execute("AllReduce", x, reduction="sum")
            b = execute("AllReduce", x, reduction="sum")  # a duplicate: not merged with the one above
            return execute("Add", a, b)

        for _ in range(2):
            calls.clear()
            np.testing.assert_array_equal(step(Tensor(X)).array, 2 * X)
            assert calls == ["max", "sum", "sum"]
    finally:
        del group.all_reduce


def test_buckets_pack_by_dtype_and_size(world):
    arrays = [np.ones((2, 3), np.float32), np.arange(4.0), np.full(5, 2, np.float32), None]
    buckets = distributed.Buckets([(a.shape, a.dtype) for a in arrays[:3]] + [((2,), np.float32)], bucket_bytes=24)
    assert [[int(i) for i in b.indices] for b in buckets.buckets] == [[0], [1], [2, 3]]
    results = buckets.all_reduce(world, arrays, "sum")
    assert results[0] is arrays[0] and np.array_equal(results[3], np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="bucket_bytes must be positive"):
        distributed.Buckets([], bucket_bytes=0)


def test_buckets_give_large_arrays_their_own_bucket(world):
    specs = [((3,), np.float32), ((64,), np.float32), ((2,), np.float32), ((16,), np.float64)]
    layout = distributed.Buckets(specs, bucket_bytes=1024, solo_bytes=256).buckets
    # the 256-byte float32 array stands alone; the small float32 ones share a bucket, float64 keeps its own
    assert sorted([int(i) for i in b.indices] for b in layout) == [[0, 2], [1], [3]]
    assert [[int(i) for i in b.indices] for b in distributed.Buckets(specs, bucket_bytes=1024).buckets] == \
        [[0, 1, 2], [3]]
