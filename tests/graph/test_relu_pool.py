"""Relu gradients moved before max-pool gradients (O2/O3): the rewritten graph gives the unrewritten graph's
gradient bit for bit (O0 run op by op is the reference), for tiling and overlapping padded windows, both tie rules,
windows of Relu zeros (ties), nan inputs and non-finite gradients; and the rewrite is skipped where it would not be
exact (the pooled input is not the Relu output) or where the pool gradient itself is fetched."""

import numpy as np
import pytest

from tests.graph.test_buffers import build_graph, check_plan, eager_values
from vfw.core import run
from vfw.core.graph import CompiledGraph
from vfw.core.graph.passes import optimize
from vfw.core.graph.passes.relu_pool import move_relu_grads_before_pool_grads

F = np.float32
RNG = np.random.default_rng(0)

_TILED = {"kernel_shape": [2, 2], "strides": [2, 2]}
_OVERLAPPING = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}


def _pool_chain(pool, ties="first", features="f", fetch_pool_grad=False, x=None, dy=None):
    """``dF = ReluGrad(ChannelsLastMaxPoolGrad(Relu(F), Y, dY), features)``, ``Y = ChannelsLastMaxPool(Relu(F))``."""
    x = RNG.standard_normal((2, 7, 6, 5)).astype(F) if x is None else x
    attrs = dict(pool, ties=ties)
    dy = RNG.standard_normal(run("ChannelsLastMaxPool", x, **attrs).shape).astype(F) if dy is None else dy
    ops = [("Relu", ["f"], ["r"]), ("ChannelsLastMaxPool", ["r"], ["y"]),
           ("ChannelsLastMaxPoolGrad", ["r", "y", "dy"], ["dr"]), ("ReluGrad", ["dr", features], ["df"])]
    outputs = ["df", "dr"] if fetch_pool_grad else ["df"]
    graph = build_graph({"f": x, "dy": dy}, ops, outputs, attrs={1: attrs, 2: attrs})
    return graph, [x, dy]


def _check(graph, feeds, rewritten=True):
    expected = eager_values(graph, feeds)
    for level in (2, 3):
        planned = optimize(graph, level)
        check_plan(planned, list(graph.output))
        types = [op.type for op in planned.op]
        # rewritten: the Relu gradient reads the pooled gradient, before the pool gradient
        assert (types.index("ReluGrad") < types.index("ChannelsLastMaxPoolGrad")) == rewritten, types
        compiled = CompiledGraph(planned)
        for _ in range(2):  # the second run reuses the pooled buffers
            for name, r in zip(graph.output, compiled(*feeds)):
                # equal values (the sign of a zero gradient may differ: -0.0 == 0.0)
                np.testing.assert_array_equal(r, expected[name], err_msg=f"O{level} {name}")


@pytest.mark.parametrize("pool", [_TILED, _OVERLAPPING], ids=["tiled", "overlapping"])
@pytest.mark.parametrize("ties", ["first", "all"])
@pytest.mark.parametrize("features", ["f", "r"], ids=["relu_input", "relu_output"])
def test_same_gradient(pool, ties, features):
    graph, feeds = _pool_chain(pool, ties, features)
    _check(graph, feeds)


@pytest.mark.parametrize("pool", [_TILED, _OVERLAPPING], ids=["tiled", "overlapping"])
def test_relu_zero_ties_nan_and_non_finite_gradients(pool):
    x = RNG.standard_normal((2, 7, 6, 5)).astype(F)
    x[0, :4, :4] = -1.0  # whole windows of Relu zeros: every position ties
    x[1, 0, 0, :2] = np.nan
    x[1, 2, 3, 1] = 0.0
    x[1, 4, 4, 2] = -0.0
    dy = RNG.standard_normal(_pool_chain(pool, x=x)[1][1].shape).astype(F)
    dy[0, 0, 0, 0] = np.inf
    dy[0, 1, 1, 1] = -np.inf
    dy[1, 1, 1, 3] = np.nan
    dy[1, 0, 0, 0] = np.nan
    graph, feeds = _pool_chain(pool, x=x, dy=dy)
    _check(graph, feeds)


def test_skipped_when_the_pool_gradient_is_fetched():
    graph, feeds = _pool_chain(_TILED, fetch_pool_grad=True)
    _check(graph, feeds, rewritten=False)


def test_skipped_when_the_pooled_input_is_not_a_relu_output():
    graph, feeds = _pool_chain(_TILED)
    # pool Sigmoid(F) instead: its maxima say nothing about F > 0
    for op in graph.op:
        if op.type == "Relu":
            op.type = "Sigmoid"
    expected = eager_values(graph, feeds)
    graph = build_graph(dict(zip(graph.input, feeds)), [(op.type, list(op.input), list(op.output)) for op in graph.op],
                        ["df"], attrs={1: dict(_TILED, ties="first"), 2: dict(_TILED, ties="first")})
    assert expected["df"].any()
    _check(graph, feeds, rewritten=False)


def test_no_match_returns_the_graph_unchanged():
    x = RNG.standard_normal((2, 3)).astype(F)
    graph = build_graph({"x": x}, [("Relu", ["x"], ["y"])], ["y"])
    assert move_relu_grads_before_pool_grads(graph, ["y"]) is graph
