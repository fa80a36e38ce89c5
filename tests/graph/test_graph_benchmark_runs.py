"""The graph-mode benchmark runs (smoke test: nothing is timed here, benchmarks are not tests)."""

import numpy as np
import pytest

from benchmarks import graph_mode


def test_table_has_a_row_per_case_and_level():
    header, rows = graph_mode.run_benchmark(rounds=1)
    assert len(rows) == 2 * len(graph_mode.LEVELS)
    assert all(len(row) == len(header) for row in rows)
    for level in graph_mode.LEVELS:
        assert sum(row[0].endswith(f"O{level}") for row in rows) == 2


@pytest.mark.parametrize("level", graph_mode.LEVELS)
def test_traced_chain_computes_what_eager_does(level):
    # The timed graph must do the work of the eager function, not something cheaper.
    chain, x = graph_mode.chain_function(np.random.default_rng(0), length=8)
    compiled = graph_mode.traced(chain, (x,), level)
    assert compiled.tracing_count == 1
    np.testing.assert_array_equal(compiled(x).array, chain(x).array)


@pytest.mark.parametrize("level", [0, 3])
def test_traced_mlp_step_trains_as_eager_does(level):
    eager_step, eager_args, eager_params = graph_mode.mlp_step_function(np.random.default_rng(0), batch=8)
    step, args, params = graph_mode.mlp_step_function(np.random.default_rng(0), batch=8)
    compiled = graph_mode.traced(step, args, level)  # two steps: the tracing run and one graph run
    for _ in range(2):
        eager_step(*eager_args)
    before = [p.array.copy() for p in params]
    loss, eager_loss = compiled(*args), eager_step(*eager_args)
    assert all(not np.array_equal(b, p.array) for b, p in zip(before, params))  # the updates reached the state
    np.testing.assert_array_equal(loss.array, eager_loss.array)
    for p, q in zip(params, eager_params):
        np.testing.assert_array_equal(p.array, q.array)
