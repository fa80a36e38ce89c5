"""Workspace: named tensors, graphs, cached ops, isolation, reset, memory report."""

import threading

import numpy as np
import pytest

from vfw.core import OpInputError, Tensor, Workspace, current_workspace, default_workspace, get_op
from vfw.core.proto import GraphDef


def test_create_feed_fetch_has_delete():
    ws = Workspace("t")
    t = ws.create_tensor("z", (2, 3), np.float64, fill=1.5)
    assert isinstance(t, Tensor)
    np.testing.assert_array_equal(ws.fetch("z"), np.full((2, 3), 1.5))
    value = np.arange(4, dtype=np.int32)
    ws.feed("x", value)
    assert ws.has("x") and ws.fetch("x").dtype == np.int32
    value[0] = 99  # feed copies: later changes to the caller's array do not leak in
    assert ws.fetch("x")[0] == 0
    assert ws.tensor_names() == ["x", "z"]
    ws.delete("x")
    assert not ws.has("x")
    with pytest.raises(OpInputError, match="no tensor named 'x'"):
        ws.fetch("x")


def test_as_default_isolates_resources():
    outer = current_workspace()
    inner = Workspace("inner")
    with inner.as_default() as ws:
        assert current_workspace() is ws is inner
        ws.feed("secret", [1, 2])
        ws.add_graph("g", GraphDef(name="g"))
    assert current_workspace() is outer
    assert not outer.has("secret") and not outer.has_graph("g")
    assert inner.has("secret") and inner.get_graph("g").name == "g"


def test_nested_and_per_thread_defaults():
    a, b = Workspace("a"), Workspace("b")
    with a.as_default():
        with b.as_default():
            assert current_workspace() is b
        assert current_workspace() is a
        seen = []
        thread = threading.Thread(target=lambda: seen.append(current_workspace()))
        thread.start()
        thread.join()
        assert seen == [default_workspace()]


def test_ops_are_cached_per_workspace_and_attributes():
    ws = Workspace()
    with ws.as_default():
        op1 = get_op("Add")
        assert get_op("Add") is op1
    other = Workspace()
    with other.as_default():
        assert get_op("Add") is not op1


def test_reset_frees_everything():
    ws = Workspace()
    ws.create_tensor("a", (10,))
    ws.add_graph("g", GraphDef())
    ws.op("Add")
    ws.reset()
    assert ws.tensor_names() == [] and not ws.has_graph("g")
    assert ws.memory_report()["total"] == 0


def test_memory_report_counts_bytes():
    ws = Workspace()
    ws.create_tensor("a", (10, 10), np.float32)
    ws.feed("b", np.zeros(3, np.int64))
    report = ws.memory_report()
    assert report["by_name"] == {"a": 400, "b": 24}
    assert report["tensors"] == 424 and report["total"] == 424
