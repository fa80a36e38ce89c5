"""Concat into preallocated blocks (O3): producers write straight into the Concat's output.

Every plan is checked by ``check_plan`` (byte ranges of live values never overlap, except in place or as a
Concat's block at its place), and every run against op-by-op execution with fresh arrays, bit for bit.
"""

import numpy as np
import pytest

from tests.graph.test_buffers import build_graph, check_plan, eager_values
from vfw.core.errors import VfwError
from vfw.core.graph import CompiledGraph, load_graph, save_graph, validate_graph
from vfw.core.graph.executor import ConcatIntoBlocks
from vfw.core.graph.passes import optimize
from vfw.core.registry import make_op

F = np.float32
RNG = np.random.default_rng(0)


def _offsets(graph):
    """``{value: byte offset}`` of the values the plan places at a nonzero offset of their buffer."""
    found = {}
    for op in graph.op:
        given = next((list(a.ints.values) for a in op.arg if a.name == "buffer_offset"), None)
        found.update((n, at) for n, at in zip(op.output, given or ()) if at)
    return found


def _run_and_check(graph, feeds, runs=2):
    """Plan ``graph`` at O3, check the plan, run it ``runs`` times against eager; return (planned, compiled)."""
    planned = optimize(graph, 3)
    check_plan(planned, list(graph.output))
    compiled = CompiledGraph(planned)
    expected = eager_values(graph, feeds)
    for _ in range(runs):
        frozen = [f.copy() for f in feeds]
        results = compiled(*feeds)
        for name, r in zip(graph.output, results):
            np.testing.assert_array_equal(r, expected[name], err_msg=name)
        for f, g in zip(feeds, frozen):
            np.testing.assert_array_equal(f, g)
    return planned, compiled


def _assembled(compiled):
    return [k for k in compiled._kernels if isinstance(k, ConcatIntoBlocks)]


def _fire(batch=1, reread=None):
    """squeezenet's fire module: two branches from one value, each an in-place chain, concatenated along channels.

    ``reread``: a branch value also read after the Concat (by an Add with the Concat's first channels).
    """
    x = RNG.standard_normal((batch, 3, 5, 4)).astype(F)
    consts = {"c1": RNG.standard_normal((1, 3, 1, 1)).astype(F), "c2": RNG.standard_normal((1, 3, 1, 1)).astype(F)}
    ops = [("Mul", ["x", "c1"], ["s"]), ("Sigmoid", ["s"], ["a0"]), ("Add", ["a0", "c2"], ["a"]),
           ("Mul", ["x", "c2"], ["b0"]), ("Relu", ["b0"], ["b"]), ("Concat", ["a", "b"], ["cat"]),
           ("Relu", ["cat"], ["r"]), ("Tanh", ["r"], ["y"])]
    attrs = {5: {"axis": 1}}
    if reread:
        ops[-1:] = [("Slice", ["r", "st", "en", "ax"], ["head"]), ("Add", ["head", reread], ["y"])]
        consts.update(st=np.asarray([0]), en=np.asarray([3]), ax=np.asarray([1]))
    return build_graph({"x": x}, ops, ["y"], consts, attrs), [x]


def test_branches_are_computed_in_the_concat_output():
    graph, feeds = _fire()
    planned, compiled = _run_and_check(graph, feeds)
    assert _offsets(planned) == {"b0": 3 * 5 * 4 * 4, "b": 3 * 5 * 4 * 4}  # b's chain sits after a's block
    assert len(_assembled(compiled)) == 1


def test_no_copy_when_the_producers_wrote_the_blocks(monkeypatch):
    graph, feeds = _fire()
    compiled = _run_and_check(graph, feeds)[1]
    copies = []
    real = np.copyto
    monkeypatch.setattr(np, "copyto", lambda *a, **k: copies.append(1) or real(*a, **k))
    compiled(*feeds)
    assert not copies


@pytest.mark.parametrize("reread", ["a", "b"])
def test_a_branch_read_after_the_concat_keeps_its_own_buffer(reread):
    # The Relu over the Concat runs in place: a branch placed in it would be overwritten before its last read.
    graph, feeds = _fire(reread=reread)
    planned = _run_and_check(graph, feeds)[0]
    assert reread not in _offsets(planned) and not any(name.startswith(reread) for name in _offsets(planned))


def test_batches_over_one_are_not_blocks():
    graph, feeds = _fire(batch=2)  # a branch is then strided in the output: not a contiguous block
    planned, compiled = _run_and_check(graph, feeds)
    assert not _offsets(planned) and not _assembled(compiled)


def test_repeated_input_is_placed_once_and_graph_inputs_are_copied():
    x = RNG.standard_normal((1, 2, 3)).astype(F)
    ops = [("Exp", ["x"], ["a"]), ("Concat", ["a", "x", "a"], ["cat"]), ("Neg", ["cat"], ["y"])]
    graph = build_graph({"x": x}, ops, ["y"], attrs={1: {"axis": -2}})
    planned, compiled = _run_and_check(graph, [x])
    assert len(_assembled(compiled)) == 1 and not _offsets(planned)  # a is the first block


def test_nested_concats_share_one_buffer():
    """densenet's blocks: each layer concatenates the previous concatenation with a new value."""
    x = RNG.standard_normal((1, 2, 3, 3)).astype(F)
    ops, prev = [("Exp", ["x"], ["f0"])], "f0"
    for k in range(1, 4):
        ops += [("Sigmoid", [prev], [f"n{k}"]), ("Concat", [prev, f"n{k}"], [f"c{k}"])]
        prev = f"c{k}"
    ops.append(("Neg", [prev], ["y"]))
    attrs = {k: {"axis": 1} for k, op in enumerate(ops) if op[0] == "Concat"}
    graph = build_graph({"x": x}, ops, ["y"], attrs=attrs)
    planned, compiled = _run_and_check(graph, [x])
    # c3 = [c2, n3] = [[c1, n2], n3] = [[[f0, n1], n2], n3]: every value a block of the last Concat's buffer
    block = 2 * 9 * 4
    assert _offsets(planned) == {"n1": block, "n2": 2 * block, "n3": 4 * block}
    assert len({b for op in planned.op for a in op.arg if a.name == "buffer" for b in a.ints.values} - {-1}) == 1
    assert len(_assembled(compiled)) == 3


def test_blocks_are_not_shared_with_values_live_meanwhile():
    """Values computed between the blocks and the Concat (and dead before it) must not reuse the blocks' bytes."""
    x = RNG.standard_normal((1, 4, 6)).astype(F)
    ops = [("Exp", ["x"], ["a"]), ("Sigmoid", ["x"], ["t0"]), ("Tanh", ["t0"], ["t1"]), ("Mul", ["t1", "x"], ["t2"]),
           ("Neg", ["x"], ["t3"]), ("Add", ["t2", "t3"], ["b"]), ("Concat", ["a", "b"], ["cat"]),
           ("Sigmoid", ["cat"], ["y"])]
    graph = build_graph({"x": x}, ops, ["y"], attrs={6: {"axis": 1}})
    _run_and_check(graph, [x], runs=3)


def test_concat_into_blocks_copies_what_is_not_in_place_and_keeps_concat_errors():
    kernel = make_op("Concat", {"axis": 1}).kernel
    whole = np.zeros((1, 5, 2), F)
    blocks = [whole[:, :2], whole[:, 2:]]
    assemble = ConcatIntoBlocks(kernel, blocks, whole)
    a, b = RNG.standard_normal((1, 2, 2)).astype(F), RNG.standard_normal((1, 3, 2)).astype(F)
    blocks[1][...] = b
    result = assemble(a, blocks[1], out=whole)
    assert result is whole
    np.testing.assert_array_equal(result, np.concatenate([a, b], axis=1))
    with pytest.raises(VfwError, match="Concat"):
        assemble(a, np.zeros((1, 3, 3), F), out=whole)


def test_saved_plan_with_blocks_loads_and_bad_offsets_are_refused(tmp_path):
    graph, feeds = _fire()
    planned = optimize(graph, 3)
    save_graph(planned, tmp_path / "g.pb")
    loaded = load_graph(tmp_path / "g.pb")
    assert _offsets(loaded) == _offsets(planned)
    np.testing.assert_array_equal(CompiledGraph(loaded)(*feeds)[0], eager_values(graph, feeds)["y"])
    bad = next(op for op in planned.op if op.output[0] == "b")
    next(a for a in bad.arg if a.name == "buffer_offset").ints.values[0] = -4
    with pytest.raises(VfwError, match="buffer_offset"):
        validate_graph(planned)
