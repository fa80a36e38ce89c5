"""``gradient(..., skip=...)``: ranges of node numbers a tape did not record (while it was paused) are not followed."""

import numpy as np

from vfw.core import Tensor, execute
from vfw.core.autograd import gradient, write_stamp


def test_skipped_ranges_are_not_followed():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    start = write_stamp()
    a = execute("Mul", x, x)  # recorded: d/dx = 2x
    paused_from = write_stamp()
    b = execute("Mul", x, Tensor(np.array([5.0, 5.0])))  # made while paused
    paused_to = write_stamp()
    c = execute("Add", a, b)
    end = write_stamp()
    full = gradient([c], [x], retain_graph=True, first_seq=start, last_seq=end)[0]
    np.testing.assert_allclose(full.array, 2 * x.array + 5.0)
    cut = gradient([c], [x], retain_graph=True, first_seq=start, last_seq=end, skip=[(paused_from, paused_to)])[0]
    np.testing.assert_allclose(cut.array, 2 * x.array)
    assert gradient([b], [x], first_seq=start, last_seq=end, skip=[(paused_from, paused_to)]) == [None]
