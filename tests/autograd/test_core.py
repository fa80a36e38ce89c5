"""Autograd mechanics: recording, VJPs, accumulation, release, modes, tapes, custom gradients."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core.autograd import GraphReleasedError, custom_gradient, gradient, no_grad, stop_gradient
from vfw.core.autograd_tape import GradientTape

RNG = np.random.default_rng(0)


def t(shape, requires_grad=True, dtype=np.float64):
    return Tensor(RNG.standard_normal(shape).astype(dtype), requires_grad=requires_grad)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))])
def test_binary_gradients_with_broadcasting(op, shapes):
    a = RNG.standard_normal(shapes[0])
    b = RNG.standard_normal(shapes[1]) + (3.0 if op == "Div" else 0.0)
    check_gradient(op, [a, b])


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
def test_third_order(op):
    check_higher_order(op, [RNG.standard_normal((2, 3)), RNG.standard_normal((3,))], order=3)


def test_second_order_div():
    check_higher_order("Div", [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3)) + 3], order=2)


def test_outputs_record_nodes_only_when_an_input_requires_grad():
    x, c = t(3), t(3, requires_grad=False)
    assert execute("Mul", c, c).grad_node is None
    y = execute("Mul", x, c)
    assert y.requires_grad and y.grad_node is not None and y.grad_slot == 0
    with no_grad():
        assert execute("Mul", x, c).grad_node is None


def test_fan_out_gradients_are_summed():
    x = t((2, 2))
    y = execute("Add", execute("Mul", x, x), x)  # d/dx = 2x + 1
    (g,) = gradient(y, [x])
    np.testing.assert_allclose(g.array, 2 * x.array + 1)


def test_several_targets_and_sources_with_output_grads():
    x, w = t((3,)), t((3,))
    y1, y2 = execute("Mul", x, w), execute("Add", x, x)
    v1, v2 = Tensor(np.arange(3.0)), Tensor(np.ones(3))
    gx, gw = gradient([y1, y2], [x, w], [v1, v2])
    np.testing.assert_allclose(gx.array, w.array * v1.array + 2)
    np.testing.assert_allclose(gw.array, x.array * v1.array)


def test_unconnected_and_integer_sources_give_none():
    x, unused = t(2), t(2)
    n = Tensor(np.arange(2), requires_grad=True)
    y = execute("Mul", x, x)
    assert execute("Add", n, n).grad_node is None  # integer outputs never require grad
    assert gradient(y, [unused, n], retain_graph=True) == [None, None]


def test_backward_twice_needs_retain_graph():
    x = t(3)
    y = execute("Mul", x, x)
    gradient(y, [x], retain_graph=True)
    gradient(y, [x])
    with pytest.raises(GraphReleasedError, match="second time"):
        gradient(y, [x])
    with pytest.raises(RuntimeError):
        gradient(y, [x])


def test_gradient_with_respect_to_an_intermediate():
    x = t(3)
    h = execute("Mul", x, x)
    y = execute("Mul", h, h)
    gh, gx = gradient(y, [h, x])
    np.testing.assert_allclose(gh.array, 2 * h.array)
    np.testing.assert_allclose(gx.array, 4 * x.array ** 3)


def test_create_graph_gives_differentiable_gradients():
    x = t(4)
    y = execute("Mul", execute("Mul", x, x), x)  # x^3
    (g,) = gradient(y, [x], create_graph=True)
    assert g.requires_grad
    (gg,) = gradient(g, [x])
    np.testing.assert_allclose(gg.array, 6 * x.array)


def test_stop_gradient():
    x = t(3)
    y = execute("Mul", stop_gradient(x), x)
    (g,) = gradient(y, [x])
    np.testing.assert_allclose(g.array, x.array)


def test_custom_gradient():
    @custom_gradient
    def clipped_identity(x):
        def grad(g):
            return execute("Mul", g, Tensor(np.full(g.shape, 0.5)))

        return Tensor.wrap(x.array.copy()), grad

    x = t(3)
    y = execute("Mul", clipped_identity(x), Tensor(np.full(3, 2.0)))
    (g,) = gradient(y, [x])
    np.testing.assert_allclose(g.array, np.ones(3))


def test_tape_watch_and_persistence():
    x = t(3, requires_grad=False)
    with GradientTape() as tape:
        tape.watch(x)
        y = execute("Mul", x, x)
    assert not x.requires_grad  # watching lasts while the tape is open
    (g,) = tape.gradient(y, [x])
    np.testing.assert_allclose(g.array, 2 * x.array)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, [x])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = execute("Mul", x, x)
    tape.gradient(y, [x])
    np.testing.assert_allclose(tape.gradient(y, [x])[0].array, 2 * x.array)


def test_tape_only_follows_ops_recorded_while_open():
    x = t(3)
    h = execute("Mul", x, x)  # before the tape: h is a leaf for it
    with GradientTape() as tape:
        y = execute("Mul", h, x)
    (gx,) = tape.gradient(y, [x])
    np.testing.assert_allclose(gx.array, h.array)


def test_nested_tapes_give_second_derivatives():
    x = t(3, requires_grad=False)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = execute("Mul", execute("Mul", x, x), x)
        (g,) = inner.gradient(y, [x])
    (gg,) = outer.gradient(g, [x])
    np.testing.assert_allclose(g.array, 3 * x.array ** 2)
    np.testing.assert_allclose(gg.array, 6 * x.array)


def test_grad_mode_switches():
    assert autograd.is_grad_enabled()
    with autograd.set_grad_enabled(False):
        assert not autograd.is_grad_enabled()
        with autograd.enable_grad():
            assert autograd.is_grad_enabled()
    assert autograd.is_grad_enabled()


def test_deep_graphs_do_not_recurse():
    # 5,000 chained ops: far deeper than Python's recursion limit.
    x = t(3)
    y = x
    for _ in range(5000):
        y = execute("Mul", y, Tensor(np.full(3, 1.0001)))
    (g,) = gradient(y, [x])
    np.testing.assert_allclose(g.array, np.full(3, 1.0001 ** 5000))


def test_gradient_to_an_intermediate_after_its_upstream_graph_was_freed():
    # As in torch: the freed part is only an error when a gradient has to go through it.
    x = t(3)
    h = execute("Mul", x, x)
    gradient(execute("Mul", h, h), [x])  # frees h's node
    (gh,) = gradient(execute("Mul", h, Tensor(np.full(3, 2.0))), [h])
    np.testing.assert_allclose(gh.array, np.full(3, 2.0))
    with pytest.raises(GraphReleasedError):
        gradient(execute("Mul", h, Tensor(np.full(3, 2.0))), [x])


def test_node_hooks_replace_output_gradients():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = execute("Mul", x, x)
    seen = []
    y.grad_node.add_hook(0, lambda g: seen.append(g.array.copy()))  # returning None keeps the gradient
    y.grad_node.add_hook(0, lambda g: execute("Mul", g, np.array(3.0)))
    (gx,) = gradient(execute("ReduceSum", y, keepdims=0), [x])
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_array_equal(gx.array, 3 * 2 * x.array)


def test_nodes_refuse_inputs_and_outputs_written_after_recording():
    class Versioned(Tensor):  # a frontend tensor with an in-place version counter
        __slots__ = ("_version_counter",)

    x = Versioned(np.array([1.0, 2.0]), requires_grad=True)
    y = execute("Mul", x, x)
    y.grad_node.check_inputs = (0, 1)
    (gx,) = gradient(y, [x], [Tensor(np.ones(2))], retain_graph=True)
    np.testing.assert_array_equal(gx.array, 2 * x.array)
    x._version_counter = [1, autograd.write_stamp()]  # what a frontend's in-place write records
    with pytest.raises(autograd.SavedTensorModifiedError, match="modified by an inplace operation") as info:
        gradient(y, [x], [Tensor(np.ones(2))], retain_graph=True)
    assert isinstance(info.value, RuntimeError)
    z = execute("Exp", Tensor(np.array([0.5]), requires_grad=True))
    z.grad_node.mark_written(0)  # Exp's gradient reads its output
    with pytest.raises(autograd.SavedTensorModifiedError, match="output 0 of ExpBackward"):
        gradient(z, [z.grad_node.inputs[0]], [Tensor(np.ones(1))])


def test_leaf_gradients_cover_each_grad_requiring_leaf_once():
    a = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = Tensor(np.array([3.0, 5.0]), requires_grad=True)
    c = Tensor(np.array([7.0, 11.0]))
    y = execute("Add", execute("Mul", a, b), execute("Mul", a, c))  # dy/da = b + c, dy/db = a
    got = {id(leaf): g.array for leaf, g in autograd.leaf_gradients([y], [Tensor(np.ones(2))])}
    assert set(got) == {id(a), id(b)}
    np.testing.assert_array_equal(got[id(a)], b.array + c.array)
    np.testing.assert_array_equal(got[id(b)], a.array)
    ((leaf, g),) = autograd.leaf_gradients([a], [Tensor(np.ones(2))])
    assert leaf is a and np.array_equal(g.array, np.ones(2))
    assert autograd.leaf_gradients([c], [Tensor(np.ones(2))]) == []


def test_edges_keep_the_routes_taken_at_record_time():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    a = execute("Mul", x, np.array(2.0))
    b = execute("Mul", a, a)  # d sum(b) / dx = 8x
    c = execute("Add", a, np.array(1.0))
    a.grad_node, a.grad_slot = c.grad_node, c.grad_slot  # what a frontend's in-place a.add_(1) does
    (gx,) = gradient(b, [x], [Tensor(np.ones(2))])
    np.testing.assert_allclose(gx.array, 8 * x.array)


def test_released_nodes_keep_their_edges_and_refuse_a_second_backward():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    loss = execute("ReduceSum", execute("Mul", x, x), keepdims=0)
    (gx,) = gradient(loss, [x])
    np.testing.assert_allclose(gx.array, 2 * x.array)
    with pytest.raises(autograd.GraphReleasedError, match="second time"):
        gradient(loss, [x])
    with pytest.raises(autograd.GraphReleasedError, match="second time"):
        autograd.leaf_gradients([loss])
