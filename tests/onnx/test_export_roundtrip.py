"""Round trips: models exported by vfw import back into vfw with the same results, and an imported model wrapped
as a vfw.torch module trains (gradients as real torch's) and exports again."""

import io

import numpy as np
import pytest
import vfw.torch as vt

import vfw.onnx_io as oi
from vfw.onnx_io._torch_module import OnnxModule

torch = pytest.importorskip("torch")


def _pair(make):
    torch.manual_seed(0)
    theirs = make(torch).eval()
    ours = make(vt).eval()
    ours.load_state_dict({k: vt.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


def _exported(model, x, **kwargs):
    """The ONNX bytes of ``model`` (batch dim dynamic); ``do_constant_folding=False`` keeps every parameter an
    initializer of its own name (folding rewrites recurrent weights into ONNX's layouts)."""
    f = io.BytesIO()
    vt.onnx.export(model, (vt.from_numpy(x),), f, input_names=["x"], dynamic_axes={"x": {0: "batch"}}, dynamo=False,
                   **kwargs)
    return f.getvalue()


def _classifier(t):
    return t.nn.Sequential(t.nn.Conv1d(2, 4, 3, padding=1), t.nn.BatchNorm1d(4), t.nn.Tanh(), t.nn.Flatten(),
                           t.nn.Linear(4 * 5, 3))


def _recurrent(t):
    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = t.nn.GRU(5, 4, batch_first=True, bidirectional=True)
            self.head = t.nn.Linear(8, 2)

        def forward(self, x):
            return self.head(self.gru(x)[0].mean(1))
    return Net()


@pytest.mark.parametrize("make, shape", [(_classifier, (3, 2, 5)), (_recurrent, (3, 6, 5))])
def test_export_then_import_gives_torch_results(make, shape):
    theirs, ours = _pair(make)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    imported = oi.load(_exported(ours, x))
    for batch in (shape[0], 7):
        xs = np.random.default_rng(batch).standard_normal((batch,) + shape[1:]).astype(np.float32)
        with torch.no_grad():
            want = theirs(torch.from_numpy(xs)).numpy()
        np.testing.assert_allclose(imported(xs), want, rtol=1e-5, atol=1e-6)
        report = oi.check(_exported(ours, x), [xs], verbose=False)
        assert report.ok, report


def test_wrapped_module_has_the_exported_state_dict_and_torch_gradients():
    theirs, ours = _pair(_classifier)
    x = np.random.default_rng(1).standard_normal((4, 2, 5)).astype(np.float32)
    target = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    module = oi.to_torch_module(_exported(ours, x))
    assert isinstance(module, vt.nn.Module) and isinstance(module, OnnxModule)
    mine = module.state_dict()
    assert set(mine) == set(theirs.state_dict())
    loss = ((module(vt.from_numpy(x)) - vt.from_numpy(target)) ** 2).mean()
    loss.backward()
    want = ((theirs(torch.from_numpy(x)) - torch.from_numpy(target)) ** 2).mean()
    want.backward()
    np.testing.assert_allclose(loss.item(), want.item(), rtol=1e-6)
    params = dict(module.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(params[name].grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    buffers = dict(module.named_buffers())
    assert not any(b.requires_grad for b in buffers.values())
    assert all(p.requires_grad for p in params.values())


def _conv_bn_relu6(t):
    return t.nn.Sequential(t.nn.Conv2d(3, 4, 3), t.nn.BatchNorm2d(4), t.nn.ReLU6())


def test_wrapped_module_loads_the_original_state_dict_with_batch_norm_counts():
    # load_state_dict(original.state_dict()) as users write it: num_batches_tracked included, strict
    torch.manual_seed(5)
    theirs = _conv_bn_relu6(torch)
    with torch.no_grad():  # running statistics and a count that are not the fresh module's
        theirs(torch.randn(8, 3, 6, 6) * 3)
    theirs.eval()
    x = np.random.default_rng(6).standard_normal((2, 3, 6, 6)).astype(np.float32)
    module = oi.to_torch_module(_exported(_conv_bn_relu6(vt).eval(), x))  # other weights than theirs
    module.load_state_dict({k: vt.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()})
    with torch.no_grad():
        want = theirs(torch.from_numpy(x)).numpy()
    with vt.no_grad():
        np.testing.assert_allclose(module(vt.from_numpy(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    assert list(module.state_dict()["1.num_batches_tracked"].shape) == []
    assert module.state_dict()["1.num_batches_tracked"].item() == theirs.state_dict()["1.num_batches_tracked"].item()
    ours = _conv_bn_relu6(vt).eval()
    ours.load_state_dict(module.state_dict())  # and back, strict
    with vt.no_grad():
        np.testing.assert_allclose(ours(vt.from_numpy(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    extra = dict(theirs.state_dict(), **{"1.unrelated": torch.zeros(1)})
    with pytest.raises(RuntimeError) as theirs_error:
        _conv_bn_relu6(torch).load_state_dict(extra)
    with pytest.raises(RuntimeError, match='Unexpected key.*"1.unrelated"') as ours_error:
        module.load_state_dict({k: vt.from_numpy(v.numpy().copy()) for k, v in extra.items()})
    assert "Unexpected key" in str(theirs_error.value) and "Unexpected key" in str(ours_error.value)


def test_fine_tuning_matches_torch_and_exports_again():
    theirs, ours = _pair(_recurrent)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    y = rng.standard_normal((4, 2)).astype(np.float32)
    module = oi.to_torch_module(_exported(ours, x, do_constant_folding=False))
    params = dict(module.named_parameters())
    assert set(params) == {n for n, _ in theirs.named_parameters()}
    opt_ours = vt.optim.Adam(module.parameters(), lr=0.01)
    opt_theirs = torch.optim.Adam(theirs.parameters(), lr=0.01)
    for _ in range(3):
        for opt, net, lib in ((opt_ours, module, vt), (opt_theirs, theirs, torch)):
            opt.zero_grad()
            loss = ((net(lib.from_numpy(x)) - lib.from_numpy(y)) ** 2).mean()
            loss.backward()
            opt.step()
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(params[name].detach().numpy(), p.detach().numpy(), rtol=1e-4, atol=1e-5)
    again = _exported(module, x)
    with torch.no_grad():
        want = theirs(torch.from_numpy(x)).numpy()
    assert oi.check(again, [x], verbose=False).ok
    np.testing.assert_allclose(oi.load(again)(x), want, rtol=1e-4, atol=1e-5)
    ours.load_state_dict(module.state_dict())  # the names are the original model's
    with vt.no_grad():
        np.testing.assert_allclose(ours(vt.from_numpy(x)).numpy(), want, rtol=1e-4, atol=1e-5)


def test_wrapped_module_inputs_by_name_and_errors():
    _, ours = _pair(lambda t: t.nn.Linear(3, 2))
    module = oi.to_torch_module(oi.load(_exported(ours, np.ones((2, 3), np.float32))))
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(module(x=x).detach().numpy(), module(vt.from_numpy(x)).detach().numpy())
    with pytest.raises(TypeError, match=r"takes 1 input\(s\) \(x\), got 2"):
        module(x, x)
    with pytest.raises(TypeError, match="missing"):
        module(y=x)
    assert "inputs=['x']" in repr(module)


def test_odd_initializer_names_are_kept_where_possible():
    import onnx
    from onnx import helper, numpy_helper

    weights = {"a.b": np.ones(2, np.float32), "a": np.full(2, 2, np.float32), ".c": np.full(2, 3, np.float32),
               "onnx::w/1": np.full(2, 4, np.float32), "steps": np.array([1, 2], np.int64)}
    nodes = [helper.make_node("Add", ["x", n], [f"s{k}"]) if n != "steps" else
             helper.make_node("Cast", [n], [f"s{k}"], to=1) for k, n in enumerate(weights)]
    nodes.append(helper.make_node("Sum", [f"s{k}" for k in range(len(weights))], ["y"]))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, [2])],
                              [helper.make_tensor_value_info("y", 1, [2])],
                              [numpy_helper.from_array(v, k) for k, v in weights.items()])
    model = oi.to_torch_module(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
    onnx.checker.check_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
    names = set(model.state_dict())  # float initializers: parameters; others: buffers outside the state dict
    assert {"a.b", "onnx::w/1"} <= names and len(names) == 4
    assert dict(model.named_buffers())["steps"].dtype == vt.int64
    np.testing.assert_array_equal(model(np.zeros(2, np.float32)).detach().numpy(), [11, 12])


def test_keras_layer_wrapping_trains_like_torch_and_exports_again():
    import vfw.tensorflow as tf

    theirs, ours = _pair(_classifier)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 2, 5)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    layer = oi.to_keras_layer(_exported(ours, x, do_constant_folding=False), name="imported")
    inputs = tf.keras.Input((2, 5))
    model = tf.keras.Model(inputs, layer(inputs))
    trainable = dict(zip(layer.initializer_names, layer.weights))
    names = [n for n, _ in theirs.named_parameters()]
    # Batch norm's running statistics are weights Keras does not train, as in torch.
    assert {n for n, w in trainable.items() if w.trainable} == set(names)
    assert {"1.running_mean", "1.running_var"} <= {n for n, w in trainable.items() if not w.trainable}
    for _ in range(2):  # two SGD steps on torch's parameters in both frameworks, the gradients compared on the way
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, [trainable[n] for n in names])
        theirs.zero_grad()
        want = ((theirs(torch.from_numpy(x)) - torch.from_numpy(y)) ** 2).mean()
        want.backward()
        np.testing.assert_allclose(loss.numpy(), want.item(), rtol=1e-5)
        params = dict(theirs.named_parameters())
        for name, g in zip(names, grads):
            np.testing.assert_allclose(g.numpy(), params[name].grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
            trainable[name].assign_sub(0.1 * g)
        with torch.no_grad():
            for p in theirs.parameters():
                p -= 0.1 * p.grad
    again = oi.export(model)
    assert {t.name for t in again.graph.initializer} >= {f"imported/{n.replace('.', '_')}" for n in names}
    with torch.no_grad():
        want = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(oi.load(again)(x), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="takes 1 input"):
        layer([x, x])
