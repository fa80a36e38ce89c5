"""The backward fast paths of leaf_gradients: one-pass traversal to the leaves, and the full-sum gradient view.

The one-pass traversal (``_reachable_to_leaves``) must agree with the general ``_reachable`` (nodes, their
order, ``needs_input_grad`` and the order leaves are found in) and step aside where a node leads to no
differentiable leaf.  The full reduction's gradient, built without the Expand op when nothing records, must
be the value Expand gives, and stay recorded under ``create_graph``.
"""

import numpy as np

from vfw.core import Tensor, autograd, execute

RNG = np.random.default_rng(3)


def _leaf(shape, dtype=np.float64, requires_grad=True):
    return Tensor(RNG.standard_normal(shape).astype(dtype), requires_grad=requires_grad)


def _diamond():
    """Two leaves, a constant, a two-output op whose outputs are used twice, and a full reduction."""
    a, b = _leaf((3, 4)), _leaf((4,))
    c = _leaf((3, 2), requires_grad=False)
    ab = execute("Mul", a, b)
    left, right = execute("Split", ab, np.array([2, 2], np.int64), axis=1)
    mixed = execute("Add", execute("Relu", left), execute("Mul", right, c))
    loss = execute("ReduceSum", execute("Sub", mixed, execute("Mul", left, right)), keepdims=0)
    return loss, (a, b, c)


def _diamond_value(a, b, c):
    ab = a * b
    left, right = ab[:, :2], ab[:, 2:]
    return np.sum(np.maximum(left, 0) + right * c - left * right)


def _generic(targets):
    leaves = {}
    nodes = autograd._reachable(targets, (), 0, float("inf"), leaves)
    return nodes, [n.needs_input_grad for n in nodes], list(leaves)


def test_one_pass_traversal_matches_the_general_one():
    loss, _ = _diamond()
    nodes, needs, leaves = _generic([loss])
    fast_leaves = {}
    fast = autograd._reachable_to_leaves([loss], fast_leaves)
    assert fast == nodes
    assert [n.needs_input_grad for n in fast] == needs
    assert list(fast_leaves) == leaves


def test_one_pass_traversal_gives_the_finite_difference_gradients():
    loss, (a, b, c) = _diamond()
    got = {id(leaf): g.array for leaf, g in autograd.leaf_gradients([loss])}
    assert set(got) == {id(a), id(b)}
    eps = 1e-6
    for k, leaf in enumerate((a, b)):
        numeric = np.zeros_like(leaf.array)
        for idx in np.ndindex(leaf.array.shape):
            values = [[a.array.copy(), b.array.copy()] for _ in range(2)]
            values[0][k][idx] += eps
            values[1][k][idx] -= eps
            numeric[idx] = (_diamond_value(*values[0], c.array) - _diamond_value(*values[1], c.array)) / (2 * eps)
        np.testing.assert_allclose(got[id(leaf)], numeric, rtol=1e-6, atol=1e-6)


def test_a_node_leading_only_to_an_integer_leaf_is_left_to_the_general_traversal():
    ints = Tensor(np.arange(6, dtype=np.int64).reshape(2, 3))
    ints.requires_grad = True  # (engine tensors allow it; such a leaf is no source)
    x = _leaf((2, 3))
    y = execute("Add", execute("Cast", ints, to=11), x)
    loss = execute("ReduceSum", y, keepdims=0)
    assert autograd._reachable_to_leaves([loss], {}) is None
    pairs = autograd.leaf_gradients([loss])
    assert [leaf for leaf, _ in pairs] == [x]
    np.testing.assert_array_equal(pairs[0][1].array, np.ones((2, 3)))


def test_full_sum_gradient_is_the_expand_view():
    x = _leaf((2, 3, 4), np.float32)
    loss = execute("ReduceSum", x, keepdims=0)
    ((_, g),) = autograd.leaf_gradients([loss], [Tensor(np.asarray(2.5, np.float32))])
    expected = execute("Expand", Tensor(np.asarray(2.5, np.float32)), np.array([2, 3, 4], np.int64)).array
    assert g.array.dtype == np.float32 and g.array.shape == (2, 3, 4)
    np.testing.assert_array_equal(g.array, expected)
    assert not g.array.flags.writeable


def test_full_sum_gradient_is_recorded_under_create_graph():
    # d/dx sum((d/dx sum(x * x)) * x) = d/dx sum(2 x * x) = 4 x: the inner sum's gradient must stay recorded.
    x = _leaf((3,))
    inner = execute("ReduceSum", execute("Mul", x, x), keepdims=0)
    (g,) = autograd.gradient([inner], [x], create_graph=True)
    assert g.requires_grad
    outer = execute("ReduceSum", execute("Mul", g, x), keepdims=0)
    (gg,) = autograd.gradient([outer], [x])
    np.testing.assert_allclose(gg.array, 4 * x.array)


def test_seeded_full_sum_gradients_are_ones_and_read_only():
    # The implicit seed of a scalar target (no output gradient given) takes the cached view of ones.
    x, y = _leaf((2, 5), np.float32), _leaf((5,), np.float32)
    loss = execute("Add", execute("ReduceSum", x, keepdims=0), execute("ReduceSum", y, keepdims=0))
    for _ in range(2):  # the second backward reads the cache
        grads = {id(leaf): g.array for leaf, g in autograd.leaf_gradients([loss], retain_graph=True)}
        for leaf in (x, y):
            g = grads[id(leaf)]
            assert g.shape == leaf.array.shape and g.dtype == np.float32 and not g.flags.writeable
            np.testing.assert_array_equal(g, np.ones(leaf.array.shape, np.float32))
