"""Tensors with ``copy_on_write`` (a tf.Variable's storage) are never written in place: ``assign`` and graph state
updates give them new arrays, so arrays read from them earlier keep their values."""

import numpy as np
import pytest

from vfw.core import Tensor, execute
from vfw.core.graph import assign, function


class Storage(Tensor):
    __slots__ = ()
    copy_on_write = True


def test_eager_assign_rebinds_instead_of_writing():
    for cls, in_place in ((Tensor, True), (Storage, False)):
        target = cls(np.zeros(3))
        before = target.array
        assign(target, np.ones(3))
        assert (target.array is before) is in_place
        np.testing.assert_array_equal(target.array, np.ones(3))
        np.testing.assert_array_equal(before, np.ones(3) if in_place else np.zeros(3))


@pytest.mark.parametrize("level", [0, 3])
def test_graph_state_updates_rebind(level):
    state = Storage(np.zeros(2))
    step = function(lambda x: assign(state, execute("Add", state, x)), opt_level=level)
    x = Tensor(np.array([1.0, 2.0]))
    seen = []
    for _ in range(3):
        step(x)
        seen.append(state.array)  # the arrays handed out are never overwritten afterwards
    np.testing.assert_array_equal(np.stack(seen), [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    assert len({id(a) for a in seen}) == 3
