"""The memory report: hand-computed numbers, the per-level comparison, and agreement with what a run allocates."""

import tracemalloc

import numpy as np
import pytest

from tests.graph.test_buffers import build_graph, mlp_program, trace_graph, train_program
from vfw.core import Tensor
from vfw.core.graph import CompiledGraph
from vfw.core.graph.memory import memory_report, report_by_level
from vfw.core.graph.passes import optimize
from vfw.core.graph.passes.buffers import plan_buffers
from vfw.core.graph.passes.inplace import plan_inplace
from vfw.core.proto import GraphDef

F = np.float32
ACTIVATION = 8 * 64 * 4  # one 8x64 float32 activation of the MLPs below


def _small_graph():
    """Six ops on 2x8 float32 (64 bytes a value); ``r`` is a view of ``a``, ``y`` the output.

    Lifetimes (steps): a 0-3 (through its view r, read at 3), b 1-3, c 3-4, d 4-5.
    """
    x = np.linspace(-1, 1, 16, dtype=F).reshape(2, 8)
    return build_graph({"x": x}, [
        ("Exp", ["x"], ["a"]), ("Exp", ["a"], ["b"]), ("Reshape", ["a", "shape"], ["r"]),
        ("Add", ["b", "r"], ["c"]), ("Neg", ["c"], ["d"]), ("Mul", ["d", "x"], ["y"]),
    ], ["y"], initializers={"shape": np.array([2, 8], np.int64)})


def test_unplanned_graph_holds_every_intermediate_to_the_end():
    report = memory_report(_small_graph())
    assert report["intermediates"] == 4  # a, b, c, d: the view and the output are not counted
    assert report["peak_bytes"] == report["resident_bytes"] == 4 * 64
    assert report["lower_bound_bytes"] == 3 * 64  # a, b and c at step 3
    assert report["pool_bytes"] == 0 and report["buffers"] == 0


def test_inplace_plan_counts_a_chain_once():
    report = memory_report(plan_inplace(_small_graph(), ["y"]))
    # b, c, d share one buffer (Add overwrites b, Neg overwrites c); a is released after its view's last read.
    assert report["buffers"] == 1 and report["pool_bytes"] == 0  # level 2 chains are allocated dynamically
    assert report["peak_bytes"] == report["resident_bytes"] == 2 * 64
    assert report["lower_bound_bytes"] == 3 * 64  # the bound ignores in-place sharing; the plan beats it


def test_buffer_plan_pools_everything():
    report = memory_report(plan_buffers(plan_inplace(_small_graph(), ["y"]), ["y"]))
    assert report["buffers"] == 2 and report["pool_bytes"] == 2 * 64  # a's, and the chain's (a is live at 1)
    assert report["peak_bytes"] == report["resident_bytes"] == 2 * 64


def test_empty_graph():
    report = memory_report(GraphDef(name="empty"))
    assert report["peak_bytes"] == report["pool_bytes"] == report["lower_bound_bytes"] == 0


def test_deep_mlp_o3_is_within_one_activation_of_the_lower_bound():
    mlp, x = mlp_program(20)
    reports = report_by_level(mlp, Tensor(x))
    o0, o1, o2, o3 = (reports[level] for level in range(4))
    assert o0["intermediates"] == 39  # 20 Gemm + 20 Relu results, the last one being the output
    assert o0["peak_bytes"] == 39 * ACTIVATION  # level 0 holds every intermediate to the end
    assert o1["peak_bytes"] == o1["lower_bound_bytes"] == 2 * ACTIVATION  # level 1 frees after the last read
    assert o3["lower_bound_bytes"] == 2 * ACTIVATION  # a layer's input and output
    assert o3["peak_bytes"] <= o3["lower_bound_bytes"] + ACTIVATION
    assert o3["peak_bytes"] <= 0.25 * o0["peak_bytes"]
    assert o3["pool_bytes"] == o3["resident_bytes"] == 2 * ACTIVATION
    # O2: each Gemm result and the Relu over it share a buffer, 19 chains (the last Relu is the output).
    assert o2["buffers"] == 19 and o2["pool_bytes"] == 0  # chains allocated as they start, not pooled
    assert o2["peak_bytes"] == 2 * ACTIVATION
    assert o3["resident_bytes"] <= o2["resident_bytes"] <= o1["resident_bytes"]


def test_training_step_levels_only_improve():
    step, _, args = train_program()
    reports = report_by_level(step, *[Tensor(a) for a in args])
    for level in range(4):
        r = reports[level]
        assert r["lower_bound_bytes"] <= r["peak_bytes"] + r["pool_bytes"]
    # Levels 1-2 allocate dynamically and free after the last read; level 3 preallocates whole pools
    # (sized for their largest value), trading some resident bytes for no allocation per call.
    assert reports[2]["resident_bytes"] <= reports[1]["resident_bytes"] <= reports[0]["resident_bytes"]
    assert reports[3]["resident_bytes"] <= reports[0]["resident_bytes"]
    assert reports[2]["peak_bytes"] <= reports[1]["peak_bytes"] <= reports[0]["peak_bytes"]
    assert reports[3]["peak_bytes"] <= reports[0]["peak_bytes"]
    assert reports[3]["buffers"] > 0
    assert reports[0]["peak_bytes"] >= reports[1]["peak_bytes"]  # O1 prunes and deduplicates


def _measured_peak(compiled, feeds):
    compiled(*feeds)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        compiled(*feeds)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_report_matches_what_a_run_allocates(level):
    mlp, x = mlp_program(12, width=256, batch=16)  # activations large against Python's own allocations
    activation = 16 * 256 * 4
    graph, keep, captures, _, _ = trace_graph(mlp, x)
    planned = optimize(graph, level, keep)
    report = memory_report(planned, keep)
    measured = _measured_peak(CompiledGraph(planned), [x] + captures)
    # A run allocates the intermediates outside the pools, plus the output (pools exist beforehand).
    expected = report["resident_bytes"] - report["pool_bytes"] + activation
    assert expected <= measured < expected + activation // 2
