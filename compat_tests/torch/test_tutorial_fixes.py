"""What the pytorch.org tutorial programs (compat_tests/programs/torch_tutorials) found, against real torch:
``torch.accelerator``, ``grad_fn.next_functions`` (leaves' ``AccumulateGrad``, composites such as ``mse_loss``),
indexing with a ``range``, in-place writes into results torch saved for backward, and the RNN layers' node names."""

import pytest

from compat_tests.torch.harness import real, vt

BOTH = [real, vt]


@pytest.mark.parametrize("torch", BOTH, ids=["real", "vfw"])
def test_accelerator_queries_answer_no_accelerator(torch):
    assert torch.accelerator.is_available() is False
    assert torch.accelerator.current_accelerator() is None
    assert torch.accelerator.current_accelerator(check_available=True) is None
    assert torch.accelerator.device_count() == 0
    for needs_device in ("current_device_index", "synchronize", "memory_allocated", "empty_cache"):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
            getattr(torch.accelerator, needs_device)()


def _graph_names(torch, build):
    """The names of a grad_fn graph, depth first, with each entry's output slot."""
    torch.manual_seed(0)
    root = build(torch)

    def walk(fn, slot, depth):
        if fn is None:
            return [(depth, None, slot)]
        found = [(depth, fn.name(), slot)]
        for next_fn, next_slot in fn.next_functions:
            found += walk(next_fn, next_slot, depth + 1)
        return found
    return walk(root.grad_fn, 0, 0)


GRAPHS = {
    "leaf times constant": lambda t: t.ones(3, requires_grad=True) * t.ones(3),
    "scalar leaf broadcast": lambda t: t.tensor(2.0, requires_grad=True) * t.ones(3),
    "sum of a leaf": lambda t: (t.ones(3, requires_grad=True) + 1).sum(),
    "mse_loss after relu": lambda t: t.nn.MSELoss()(t.randn(3, 2, requires_grad=True).relu(), t.randn(3, 2)),
    "tanh layer": lambda t: (t.randn(2, 4) @ t.randn(3, 4, requires_grad=True).t()
                             + t.zeros(3, requires_grad=True)).tanh().sum(),
    "bce with logits": lambda t: t.nn.functional.binary_cross_entropy_with_logits(
        t.ones(2, 5) @ t.randn(5, 3, requires_grad=True) + t.randn(3, requires_grad=True), t.zeros(2, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_next_functions_walk_matches_torch(name):
    assert _graph_names(vt, GRAPHS[name]) == _graph_names(real, GRAPHS[name])


def test_accumulate_grad_holds_its_leaf():
    for torch in BOTH:
        w = torch.ones(2, requires_grad=True)
        node = (w * 2).grad_fn.next_functions[0][0]
        assert type(node).__name__ == "AccumulateGrad"
        assert node.variable is w and node.next_functions == ()
        assert node == (w + 1).grad_fn.next_functions[0][0]


@pytest.mark.parametrize("key", ["range(3)", "(range(3), [0, 1, 2])", "range(0, 3, 2)", "(slice(None), range(1, 3))",
                                 "range(0)", "(range(2), 1)"])
def test_range_indices_read_and_write_as_torch(key):
    results = []
    for torch in BOTH:
        x = torch.arange(12.).reshape(3, 4).requires_grad_()
        y = x * 1
        picked = y[eval(key)]
        picked.sum().backward()
        z = torch.arange(12).reshape(3, 4)
        z[eval(key)] = -1
        results.append((picked.tolist(), x.grad.tolist(), z.tolist(), type(picked.grad_fn).__name__))
    assert results[1] == results[0]
    for torch in BOTH:
        with pytest.raises(IndexError, match="out of bounds"):
            torch.zeros(3)[range(5)]


IN_PLACE_AFTER = {
    "sigmoid": lambda x: x.sigmoid(), "tanh": lambda x: x.tanh(), "exp": lambda x: x.exp(),
    "expm1": lambda x: x.expm1(), "sqrt": lambda x: x.sqrt(), "reciprocal": lambda x: x.reciprocal(),
    "tan": lambda x: x.tan(), "softmax": lambda x: x.softmax(0), "log_softmax": lambda x: x.log_softmax(0),
    "rsqrt": lambda x: x.rsqrt(), "div": lambda x: 1 / x, "mul": lambda x: x * 2, "pow": lambda x: x.pow(0.5),
    "linear": lambda x: x @ x, "relu": lambda x: x.relu(), "relu_": lambda x: x.relu_(),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE_AFTER))
def test_backward_refuses_results_written_in_place_where_torch_does(name):
    outcomes = []
    for torch in BOTH:
        torch.manual_seed(0)
        leaf = torch.rand(3, requires_grad=True)
        y = IN_PLACE_AFTER[name](leaf + 1)
        y.mul_(2)
        try:
            y.sum().backward()
            outcomes.append(leaf.grad.tolist())
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error)
            outcomes.append("raised")
    assert outcomes[1] == pytest.approx(outcomes[0]) if outcomes[0] != "raised" else outcomes[1] == "raised"


@pytest.mark.parametrize("name", sorted(IN_PLACE_AFTER))
def test_backward_after_the_input_is_written_in_place_as_torch(name):
    # ops that save their result (exp, tanh, relu...) let their input change afterwards; products refuse it
    outcomes = []
    for torch in BOTH:
        torch.manual_seed(0)
        leaf = torch.rand(3, requires_grad=True)
        x = leaf - 0.5
        y = IN_PLACE_AFTER[name](x.clone() if name == "relu_" else x)
        x.mul_(-3)
        try:
            y.sum().backward()
            outcomes.append(leaf.grad.tolist())
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error)
            outcomes.append("raised")
    assert outcomes[1] == pytest.approx(outcomes[0], nan_ok=True) if outcomes[0] != "raised" \
        else outcomes[1] == "raised"


RNN_CONFIGS = [("LSTM", {}), ("LSTM", {"num_layers": 2}), ("LSTM", {"bidirectional": True}),
               ("LSTM", {"batch_first": True}), ("LSTM", {"proj_size": 2}), ("LSTM", {"dtype": "float64"}),
               ("GRU", {}), ("GRU", {"bidirectional": True}), ("GRU", {"batch_first": True, "num_layers": 2}),
               ("RNN", {}), ("RNN", {"batch_first": True}), ("RNN", {"num_layers": 2, "bidirectional": True})]


@pytest.mark.parametrize("kind, options", RNN_CONFIGS, ids=[f"{k}-{o}" for k, o in RNN_CONFIGS])
def test_rnn_results_carry_torchs_node_names(kind, options):
    names = []
    for torch in BOTH:
        torch.manual_seed(0)
        kwargs = dict(options, dtype=getattr(torch, options.get("dtype", "float32")))
        layer = getattr(torch.nn, kind)(3, 4, **kwargs)
        output, states = layer(torch.randn(5, 2, 3, dtype=kwargs["dtype"]))
        states = states if isinstance(states, tuple) else (states,)
        names.append([output.grad_fn.name()] + [s.grad_fn.name() for s in states])
    assert names[1] == names[0]
