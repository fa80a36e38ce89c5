"""torch.fx: symbolic tracing, graph text, generated code, rewrites and interpreters against real torch 2.13."""

import numpy as np
import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _scaled_sum(x, k):
    # Traced through unless wrapped: wrap() makes it one call_function node
    return (x * k).sum()


torch.fx.wrap("_scaled_sum")
vtorch.fx.wrap("_scaled_sum")


def _models(T):
    """The same models written against torch module ``T`` (real torch or vfw.torch)."""
    nn = T.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(T.relu(self.fc1(x)))

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.block = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
            self.fc = nn.Linear(4 * 4 * 4 * 2, 5)
            self.scale = nn.Parameter(T.ones(1))

        def forward(self, x):
            y = T.relu(self.conv(x))
            y = self.block(y) + y
            y = T.cat([y * self.scale, y], dim=1)
            y = y.view(y.size(0), -1)
            return self.fc(y).sum(dim=1, keepdim=True) - 1

    return {"mlp": MLP, "cnn": CNN}


INPUT_SHAPES = {"mlp": (2, 4), "cnn": (2, 3, 4, 4)}


def _pair(name):
    """Real and vfw model with the same weights, and a shared input."""
    real = _models(torch)[name]()
    ours = _models(vtorch)[name]()
    ours.load_state_dict({k: vtorch.tensor(v.detach().numpy()) for k, v in real.state_dict().items()})
    x = np.random.default_rng(0).standard_normal(INPUT_SHAPES[name]).astype(np.float32)
    return real, ours, x


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_trace_text_and_run(name):
    real, ours, x = _pair(name)
    real_gm, our_gm = torch.fx.symbolic_trace(real), vtorch.fx.symbolic_trace(ours)
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code
    assert type(our_gm).__name__ == type(real_gm).__name__
    assert [(n.op, n.name, len(n.users)) for n in our_gm.graph.nodes] == \
        [(n.op, n.name, len(n.users)) for n in real_gm.graph.nodes]
    expected = real_gm(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(our_gm(vtorch.tensor(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert sorted(our_gm.state_dict()) == sorted(real_gm.state_dict())
    assert [n for n, _ in our_gm.named_modules()] == [n for n, _ in real_gm.named_modules()]
    assert our_gm.print_readable(print_output=False) == real_gm.print_readable(print_output=False)


def _free_function(T):
    F = T.nn.functional

    def f(x, y):
        z = x @ y.t()
        z = F.gelu(z) * 2 + x.shape[0]
        n = z.size(1)
        return {"out": -z[:, :n].clamp(min=0.0), "parts": [T.sigmoid(z), x.mean(dim=0)]}
    return f


def test_function_operators_getattr_and_structures():
    real_gm, our_gm = torch.fx.symbolic_trace(_free_function(torch)), vtorch.fx.symbolic_trace(_free_function(vtorch))
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code
    rng = np.random.default_rng(1)
    x, y = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    expected = real_gm(torch.from_numpy(x), torch.from_numpy(y))
    got = our_gm(vtorch.tensor(x), vtorch.tensor(y))
    np.testing.assert_allclose(got["out"].numpy(), expected["out"].numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(got["parts"], expected["parts"]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def _rewrite_relu_to_gelu(T, gm):
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target == T.relu:
            node.target = T.nn.functional.gelu
    gm.recompile()
    return gm


def test_rewrite_pass_replaces_relu_with_gelu():
    real, ours, x = _pair("cnn")
    real_gm = _rewrite_relu_to_gelu(torch, torch.fx.symbolic_trace(real))
    our_gm = _rewrite_relu_to_gelu(vtorch, vtorch.fx.symbolic_trace(ours))
    assert our_gm.code == real_gm.code
    assert "gelu" in our_gm.code
    expected = real_gm(torch.from_numpy(x)).detach().numpy()
    assert not np.allclose(expected, real(torch.from_numpy(x)).detach().numpy())
    np.testing.assert_allclose(our_gm(vtorch.tensor(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


def _edit_graph(T, gm):
    """Insert a sigmoid after fc1, rewire its users, then remove a dead node."""
    graph = gm.graph
    fc1 = next(n for n in graph.nodes if n.target == "fc1")
    with graph.inserting_after(fc1):
        sig = graph.call_function(T.sigmoid, (fc1,))
    fc1.replace_all_uses_with(sig)
    sig.replace_input_with(sig, fc1)
    with graph.inserting_before(sig):
        dead = graph.call_method("neg", (fc1,))
    assert len(dead.users) == 0
    assert graph.eliminate_dead_code() is True
    graph.lint()
    gm.recompile()
    return gm


def test_graph_editing_api():
    real, ours, x = _pair("mlp")
    real_gm = _edit_graph(torch, torch.fx.symbolic_trace(real))
    our_gm = _edit_graph(vtorch, vtorch.fx.symbolic_trace(ours))
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code
    np.testing.assert_allclose(our_gm(vtorch.tensor(x)).detach().numpy(),
                               real_gm(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_erase_node_with_users_raises():
    _, ours, _ = _pair("mlp")
    gm = vtorch.fx.symbolic_trace(ours)
    fc1 = next(n for n in gm.graph.nodes if n.target == "fc1")
    with pytest.raises(RuntimeError, match="still had 1 users"):
        gm.graph.erase_node(fc1)


def test_control_flow_raises_trace_error():
    def branchy(T):
        def f(x):
            if x.sum() > 0:
                return x
            return -x
        return f

    with pytest.raises(torch.fx.proxy.TraceError) as real_error:
        torch.fx.symbolic_trace(branchy(torch))
    with pytest.raises(vtorch.fx.proxy.TraceError) as our_error:
        vtorch.fx.symbolic_trace(branchy(vtorch))
    assert str(our_error.value) == str(real_error.value)
    with pytest.raises(RuntimeError, match="'len' is not supported in symbolic tracing"):
        vtorch.fx.symbolic_trace(lambda x: len(x))


def test_custom_leaf_module():
    class LeafTracer(torch.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, torch.nn.Sequential) or super().is_leaf_module(m, qualname)

    class OurLeafTracer(vtorch.fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return isinstance(m, vtorch.nn.Sequential) or super().is_leaf_module(m, qualname)

    real, ours, _ = _pair("cnn")
    real_graph, our_graph = LeafTracer().trace(real), OurLeafTracer().trace(ours)
    assert str(our_graph) == str(real_graph)


def _double_interpreter(base):
    class Doubler(base):
        def call_function(self, target, args, kwargs):
            return super().call_function(target, args, kwargs) * 2
    return Doubler


def test_interpreter_transformer_and_shape_prop():
    real, ours, x = _pair("mlp")
    real_gm, our_gm = torch.fx.symbolic_trace(real), vtorch.fx.symbolic_trace(ours)
    expected = _double_interpreter(torch.fx.Interpreter)(real_gm).run(torch.from_numpy(x)).detach().numpy()
    got = _double_interpreter(vtorch.fx.Interpreter)(our_gm).run(vtorch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)

    real_new, our_new = torch.fx.Transformer(real_gm).transform(), vtorch.fx.Transformer(our_gm).transform()
    assert our_new.code == real_new.code
    np.testing.assert_allclose(our_new(vtorch.tensor(x)).detach().numpy(),
                               real_new(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)

    from torch.fx.passes.shape_prop import ShapeProp as RealShapeProp
    from vfw.torch.fx.passes.shape_prop import ShapeProp

    RealShapeProp(real_gm).propagate(torch.from_numpy(x))
    ShapeProp(our_gm).propagate(vtorch.tensor(x))
    for ours_node, real_node in zip(our_gm.graph.nodes, real_gm.graph.nodes):
        real_meta = real_node.meta.get("tensor_meta")
        our_meta = ours_node.meta.get("tensor_meta")
        assert (our_meta is None) == (real_meta is None)
        if real_meta is not None:
            assert tuple(our_meta.shape) == tuple(real_meta.shape)
            assert str(our_meta.dtype) == str(real_meta.dtype)
            assert our_meta.stride == real_meta.stride


def test_replace_pattern():
    def pattern(T):
        return lambda a, b: T.relu(a + b)

    def replacement(T):
        return lambda a, b: T.sigmoid(a - b)

    def model(T):
        return lambda x, y: pattern(T)(x, y) * pattern(T)(y, x)

    results = []
    for T in (torch, vtorch):
        gm = T.fx.symbolic_trace(model(T))
        matches = T.fx.replace_pattern(gm, pattern(T), replacement(T))
        results.append((len(matches), gm.code))
    assert results[0] == results[1]


def _functional_calls(T):
    F = T.nn.functional

    def f(x, t):
        a = F.dropout(F.relu(x), 0.2)
        b = F.max_pool2d(F.softmax(a, 1), 2)
        c = F.leaky_relu(F.silu(F.layer_norm(F.adaptive_avg_pool2d(b, 1), (1,))), 0.1)
        loss = F.cross_entropy(F.log_softmax(c, dim=1).flatten(1), t)
        d = F.conv2d(x, x) + F.linear(x, x) + F.gelu(x) + T.sigmoid(x) + F.avg_pool2d(x, 2) + T.flatten(x, 1)
        return loss, F.normalize(x), F.pad(x, (1, 1)), F.interpolate(x, scale_factor=2), d
    return f


def test_functional_calls_record_torch_arguments():
    # torch's Python-level functionals record their defaults as keywords; C-level ones print under torch._C._nn
    real_gm, our_gm = torch.fx.symbolic_trace(_functional_calls(torch)), vtorch.fx.symbolic_trace(
        _functional_calls(vtorch))
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code


def _negating_transformer(T):
    class Negate(T.fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target == T.relu:
                return T.neg(args[0])
            return super().call_function(target, args, kwargs)
    return Negate


def test_transformer_override_calls_torch_functions():
    real, ours, x = _pair("mlp")
    real_gm = _negating_transformer(torch)(torch.fx.symbolic_trace(real)).transform()
    our_gm = _negating_transformer(vtorch)(vtorch.fx.symbolic_trace(ours)).transform()
    assert our_gm.code == real_gm.code
    np.testing.assert_allclose(our_gm(vtorch.tensor(x)).detach().numpy(),
                               real_gm(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_wrap_records_a_call_function_node():
    def f(T):
        return lambda x: _scaled_sum(x, 2) + 1

    real_gm, our_gm = torch.fx.symbolic_trace(f(torch)), vtorch.fx.symbolic_trace(f(vtorch))
    assert str(our_gm.graph) == str(real_gm.graph)
    assert our_gm.code == real_gm.code
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(our_gm(vtorch.tensor(x)).numpy(), real_gm(torch.from_numpy(x)).numpy())
