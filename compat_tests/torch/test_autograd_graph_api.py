"""torch.autograd.graph's Node / GradientEdge / get_gradient_edge / register_multi_grad_hook /
allow_mutation_on_saved_tensors against real torch 2.13."""

import numpy as np
import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _leaves(module):
    values = ([0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [3.0, 1.0, 0.0])
    return [module.tensor(v, requires_grad=True) for v in values]


def _as_lists(grads):
    return [None if g is None else g.tolist() for g in grads]


@pytest.mark.parametrize("mode", ["all", "any"])
def test_multi_grad_hook_calls(mode):
    def record(module):
        a, b, c = _leaves(module)
        calls = []
        if mode == "all":
            fn = lambda grads: calls.append(_as_lists(grads))  # noqa: E731
        else:
            fn = lambda grad: calls.append(grad.tolist())  # noqa: E731
        handle = module.autograd.graph.register_multi_grad_hook((a, b, c), fn, mode=mode)
        (a * 2).sum().backward()
        (a * 2 + b * b).sum().backward()
        (c * 0 + 1).sum().backward() if mode == "all" else None
        handle.remove()
        (a * 5).sum().backward()
        return calls, a.grad.tolist()

    (got_calls, got_grad), (expected_calls, expected_grad) = record(vtorch), record(torch)
    assert got_grad == expected_grad
    if mode == "any":  # which gradient comes first in a pass follows the engine's order: one call per pass
        assert len(got_calls) == len(expected_calls) == 2 and got_calls[0] == expected_calls[0]
        assert got_calls[1] in ([2.0, 2.0, 2.0], [3.0, 0.5, -1.0])
    else:
        assert got_calls == expected_calls


def test_multi_grad_hook_bad_mode():
    a, b, _ = _leaves(vtorch)
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got foo"):
        vtorch.autograd.graph.register_multi_grad_hook((a, b), lambda g: None, mode="foo")


def test_node_and_gradient_edges():
    for module in (torch, vtorch):
        graph = module.autograd.graph
        a = module.tensor([1.0, 2.0], requires_grad=True)
        y = a * 2
        assert isinstance(y.grad_fn, graph.Node) and issubclass(type(y.grad_fn), graph.Node)
        assert not isinstance(a, graph.Node)
        edge = graph.get_gradient_edge(y)
        assert isinstance(edge, tuple) and edge._fields == ("node", "output_nr", "ownership_token")
        assert edge.node == y.grad_fn and edge.output_nr == 0 and edge.ownership_token is None
        leaf_edge = graph.get_gradient_edge(a)
        assert leaf_edge.node.name() == "torch::autograd::AccumulateGrad" and leaf_edge.output_nr == 0
        assert isinstance(leaf_edge.node, graph.Node)
        assert type(edge).__name__ == "GradientEdge"
    with pytest.raises(RuntimeError) as expected:
        torch.autograd.graph.get_gradient_edge(torch.ones(2))
    with pytest.raises(RuntimeError) as got:
        vtorch.autograd.graph.get_gradient_edge(vtorch.ones(2))
    assert str(got.value) == str(expected.value)


def test_allow_mutation_context():
    for module in (torch, vtorch):
        graph = module.autograd.graph
        x = module.tensor([0.1, 0.5], requires_grad=True)
        with graph.allow_mutation_on_saved_tensors() as context:
            assert type(context).__name__ == "_AllowMutationOnSavedContext"
            y = (x * 3).sum()
            y.backward()
            with pytest.raises(RuntimeError, match="allow_mutation_on_saved_tensors contexts cannot be nested"):
                with graph.allow_mutation_on_saved_tensors():
                    pass
        np.testing.assert_allclose(x.grad.tolist(), [3.0, 3.0])
        with graph.allow_mutation_on_saved_tensors():  # usable again after the block
            pass
