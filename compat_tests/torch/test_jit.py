"""torch.jit: traced functions and modules give the eager (and real torch's traced) results.

vfw traces into engine graphs per input signature: the tests check results against eager vfw and
real torch 2.13, that later calls run the graph (the Python body does not run again), that graphs
replay in-place writes and draw fresh random numbers as torch's traced code does, and the
documented fallbacks (eager under autograd, and for code a graph cannot replay).
"""

import warnings

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

from vfw.frontends.torch import jit  # noqa: E402


def arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def trace(lib_jit, fn, example, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return lib_jit.trace(fn, example, **kwargs)


def mlp(lib, seed=0):
    """The same two-layer MLP in ``lib`` (weights from numpy)."""
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Linear(8, 3))
    values = arrays((8, 4), (8,), (3, 8), (3,), seed=seed)
    with lib.no_grad():
        for p, v in zip(model.parameters(), values):
            p.copy_(lib.from_numpy(v))
    return model


def mlp_forward(lib, model):
    return lambda x: lib.tanh(model(x)).softmax(-1)


def counting(lib, runs):
    """A function of two tensors that appends to ``runs`` (``is_tracing()``) each time its body runs."""
    def fn(x, y):
        runs.append(jit.is_tracing() if lib is vt else None)
        return lib.tanh(x @ y) + x.sum(), (x * 2).exp()
    return fn


# -- functions ---------------------------------------------------------------------------------
def test_traced_function_matches_eager_and_torch_and_runs_the_graph():
    x, y = arrays((3, 4), (4, 5))
    runs = []
    traced = trace(jit, counting(vt, runs), (vt.from_numpy(x), vt.from_numpy(y)), check_trace=False)
    assert runs == [True] and not jit.is_tracing()
    torch_traced = trace(real.jit, counting(real, []), (real.from_numpy(x), real.from_numpy(y)))
    for seed in (1, 2):
        a, b = arrays((3, 4), (4, 5), seed=seed)
        got = traced(vt.from_numpy(a), vt.from_numpy(b))
        want = torch_traced(real.from_numpy(a), real.from_numpy(b))
        eager = counting(vt, [])(vt.from_numpy(a), vt.from_numpy(b))
        for g, w, e in zip(got, want, eager):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(g.numpy(), e.numpy())
    assert runs == [True]  # both calls ran the compiled graph
    traced(vt.ones(2, 4), vt.ones(4, 5))  # a new shape is traced again (torch reuses one graph)
    assert runs == [True, True]
    assert isinstance(traced, jit.ScriptFunction) and traced.__name__ == "fn"


def test_gradients_through_a_traced_function_run_eagerly():
    x, y = arrays((3, 4), (4, 5))
    results = []
    for lib, lib_jit in ((vt, jit), (real, real.jit)):
        traced = trace(lib_jit, counting(lib, []), (lib.from_numpy(x), lib.from_numpy(y)), check_trace=False)
        a, b = lib.from_numpy(x).requires_grad_(), lib.from_numpy(y).requires_grad_()
        first, second = traced(a, b)
        (first.sum() + second.pow(2).mean()).backward()
        results.append((first.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_in_place_code_runs_as_a_graph_like_torchs_traced_code():
    def code(lib, runs):
        def fn(x):
            runs.append(1)
            y = x * 2
            y.add_(1)
            y[0] = 5.0
            y[1:].relu_()
            x.mul_(-1)  # the caller's tensor changes on every call
            return y * 3
        return fn

    runs = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", jit.TracerWarning)
        traced = trace(jit, code(vt, runs), vt.ones(3))
    torch_traced = trace(real.jit, code(real, []), real.ones(3))
    for value in (1.0, -2.0, 3.0):
        x, y, z = vt.full((3,), value), real.full((3,), value), vt.full((3,), value)
        with vt.no_grad():
            got = traced(x)
        assert got.tolist() == torch_traced(y).tolist() == code(vt, [])(z).tolist()
        assert x.tolist() == y.tolist() == z.tolist() == [-value] * 3
    assert len(runs) == 1  # the tracing run; the check and the calls ran the graph


@pytest.mark.filterwarnings("ignore:Trace had nondeterministic nodes")
def test_random_code_warns_like_torch_and_draws_torchs_fresh_numbers():
    results = []
    for lib, lib_jit in ((real, real.jit), (vt, jit)):
        def noisy(x, lib=lib):
            return x + lib.rand(3) + lib.nn.functional.dropout(lib.ones(3), 0.5)

        with pytest.warns(lib_jit.TracerWarning, match="does not match"):
            traced = trace(lib_jit, noisy, lib.ones(3))
        lib.manual_seed(4)
        with lib.no_grad():
            results.append([traced(lib.ones(3)).numpy() for _ in range(3)])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert not np.array_equal(results[1][0], results[1][1])


def test_check_inputs_are_compared():
    with warnings.catch_warnings():
        warnings.simplefilter("error", jit.TracerWarning)
        traced = trace(jit, lambda x: x.relu() * 2, vt.ones(2), check_inputs=[(vt.ones(5),), vt.zeros(3)])
    assert traced(vt.tensor([-1.0, 2.0])).tolist() == [0.0, 4.0]


def test_outputs_and_arguments_torch_refuses_or_warns_about():
    for lib, lib_jit in ((real, real.jit), (vt, jit)):
        with pytest.raises(RuntimeError, match=r"Type 'Tuple\[Tensor, int\]' cannot be traced"):
            trace(lib_jit, lambda x, n: x * n, (lib.ones(2), 3))
        with pytest.raises(RuntimeError, match="Encountering a dict at the output"):
            trace(lib_jit, lambda x: {"y": x * 2}, lib.ones(2))
        with pytest.warns(lib_jit.TracerWarning, match="Encountering a list at the output"):
            trace(lib_jit, lambda x: [x * 2], lib.ones(2))
    assert trace(jit, lambda x: {"y": x * 2}, vt.ones(2), strict=False)(vt.ones(2))["y"].tolist() == [2.0, 2.0]
    for lib_jit in (real.jit, jit):
        with pytest.raises(TypeError), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            lib_jit.trace(lambda x: x)


def test_keyword_and_nested_example_inputs():
    def fn(pair, scale):
        return pair[0] * scale + pair[1]

    example = {"pair": (vt.ones(2), vt.ones(2)), "scale": vt.tensor(3.0)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        traced = jit.trace(fn, example_kwarg_inputs=example)
    assert traced(pair=(vt.ones(2), vt.zeros(2)), scale=vt.tensor(2.0)).tolist() == [2.0, 2.0]


def test_trace_and_script_warn_deprecation_like_torch():
    for lib_jit, lib in ((real.jit, real), (jit, vt)):
        with pytest.warns(DeprecationWarning, match="torch.jit.trace` is deprecated") as caught:
            lib_jit.trace(lambda x: x + 1, lib.ones(1))
        with pytest.warns(DeprecationWarning, match="torch.jit.script` is deprecated") as scripted:
            lib_jit.script(lib.nn.Linear(2, 2))
        # attributed to the library, not to the caller: Python's default filters hide it in a user's script
        assert all(w.filename != __file__ for w in [*caught, *scripted])


# -- modules -----------------------------------------------------------------------------------
def test_traced_module_matches_torch_and_shares_state():
    x = arrays((5, 4))[0]
    model, torch_model = mlp(vt), mlp(real)
    traced = trace(jit, model, vt.from_numpy(x))
    torch_traced = trace(real.jit, torch_model, real.from_numpy(x))
    with vt.no_grad(), real.no_grad():
        for batch in (5, 2):
            a = arrays((batch, 4), seed=batch)[0]
            np.testing.assert_allclose(traced(vt.from_numpy(a)).numpy(), torch_traced(real.from_numpy(a)).numpy(),
                                       rtol=1e-5, atol=1e-6)
    assert isinstance(traced, jit.ScriptModule) and isinstance(traced, vt.nn.Module)
    assert list(traced.state_dict()) == list(torch_traced.state_dict())
    assert [p is q for p, q in zip(traced.parameters(), model.parameters())] == [True] * 4
    assert getattr(traced, "0") is model[0]
    assert "original_name=Sequential" in repr(traced)
    traced.eval()
    assert not model.training and not model[1].training and not traced.training
    traced.train()
    assert model.training and model[0].training


def test_traced_module_reads_current_parameters():
    """Training the module after tracing changes what the traced one computes (captures by reference)."""
    model = mlp(vt)
    x = vt.from_numpy(arrays((3, 4))[0])
    traced = trace(jit, model, x)
    optimizer = vt.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(2):
        optimizer.zero_grad()
        traced(x).pow(2).sum().backward()  # gradients flow: grad mode is on and parameters require grad
        optimizer.step()
        with vt.no_grad():
            np.testing.assert_array_equal(traced(x).numpy(), model(x).numpy())


def test_traced_module_training_step_matches_eager_gradients():
    x, target = arrays((6, 4), (6, 3))
    grads = []
    for use_trace in (False, True):
        model = mlp(vt)
        run = trace(jit, model, vt.from_numpy(x)) if use_trace else model
        loss = (run(vt.from_numpy(x)) - vt.from_numpy(target)).pow(2).mean()
        loss.backward()
        grads.append([p.grad.numpy() for p in model.parameters()])
    for g, e in zip(grads[1], grads[0]):
        np.testing.assert_array_equal(g, e)


def test_module_updating_its_buffers_keeps_updating_them():
    """Counters written in place are updated on every call, by the graph, as by torch's traced module."""
    def counter(lib):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("calls", lib.zeros(()))

            def forward(self, x):
                self.calls.add_(1)
                return x * self.calls

        return Counter()

    models, results = [], []
    for lib, lib_jit in ((real, real.jit), (vt, jit)):
        model = counter(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("error", jit.TracerWarning)
            traced = trace(lib_jit, model, lib.ones(2), check_trace=False)
        with lib.no_grad():
            results.append([traced(lib.ones(2)).tolist() for _ in range(2)])
        models.append(model)
    assert results[0] == results[1] == [[2.0, 2.0], [3.0, 3.0]]
    assert models[0].calls.item() == models[1].calls.item() == 3.0


def conv_block(lib):
    """Conv2d, BatchNorm2d, ReLU(inplace=True), Dropout with weights from numpy."""
    model = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3), lib.nn.ReLU(inplace=True),
                              lib.nn.Dropout(0.3))
    rng = np.random.default_rng(2)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def test_traced_conv_batchnorm_relu_dropout_matches_eager_and_torch_call_after_call():
    """In training (fresh dropout masks, running statistics updated) and evaluation, call after call.

    torch's traced module keeps the mode it was traced in, so real torch's eager module is the oracle.
    """
    batches = arrays(*[(4, 2, 6, 6)] * 4, seed=3)
    eager, model, torch_model = conv_block(vt), conv_block(vt), conv_block(real)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jit.TracerWarning)  # dropout: the check run differs, as in torch
        traced = trace(jit, model, vt.from_numpy(batches[0]))
    runs = ((vt, eager), (vt, traced), (real, torch_model))
    with vt.no_grad(), real.no_grad():
        for lib, m in (runs[0], runs[2]):  # what tracing and its check did to the running statistics
            for _ in range(2):
                m(lib.from_numpy(batches[0]))
        for mode in (True, False, True):
            for _, m in runs:
                m.train(mode)
            for x in batches[1:]:
                outputs = []
                for lib, m in runs:
                    lib.manual_seed(9)
                    outputs.append(m(lib.from_numpy(x)).numpy())
                np.testing.assert_array_equal(outputs[1], outputs[0])
                np.testing.assert_allclose(outputs[1], outputs[2], rtol=1e-4, atol=1e-5)
    for buffers in zip(model.buffers(), eager.buffers(), torch_model.buffers()):
        np.testing.assert_array_equal(buffers[0].numpy(), buffers[1].numpy())
        np.testing.assert_allclose(buffers[0].numpy(), buffers[2].numpy(), rtol=1e-5, atol=1e-6)
    assert len(traced._runner.graphs) == 2 and not traced._runner.eager_only  # train and eval graphs


def test_code_a_graph_cannot_replay_warns_and_runs_eagerly():
    model = mlp(vt)
    optimizer = vt.optim.SGD(model.parameters(), lr=0.1)

    def step(x):
        for p in model.parameters():
            p.grad = vt.ones_like(p)
        optimizer.step()  # numpy updates: a graph cannot see them
        return model(x)

    x = vt.from_numpy(arrays((2, 4))[0])
    with pytest.warns(jit.TracerWarning, match="runs eagerly from now on"):
        traced = trace(jit, step, x, check_trace=False)
    before = model[0].bias.detach().clone()
    with vt.no_grad():
        traced(x)
    np.testing.assert_allclose(model[0].bias.detach().numpy(), before.numpy() - 0.1, rtol=1e-6)


def test_trace_module_traces_forward():
    model = mlp(vt)
    x = vt.from_numpy(arrays((3, 4))[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        traced = jit.trace_module(model, {"forward": x})
    with vt.no_grad():
        np.testing.assert_array_equal(traced(x).numpy(), model(x).numpy())
    with pytest.raises(NotImplementedError):
        jit.trace_module(model, {"other": x})


def test_mode_change_is_traced_again():
    """vfw retraces when a submodule's training flag changes (torch keeps the mode it traced)."""
    class Scaled(vt.nn.Module):
        def forward(self, x):
            return x * (2.0 if self.training else 3.0)

    traced = trace(jit, Scaled(), vt.ones(2))
    with vt.no_grad():
        assert traced(vt.ones(2)).tolist() == [2.0, 2.0]
        assert traced.eval()(vt.ones(2)).tolist() == [3.0, 3.0]


# -- the TorchScript-only API ------------------------------------------------------------------
def test_script_and_decorators_leave_code_unchanged():
    def fn(x):
        return x + 1

    model = vt.nn.Linear(2, 2)
    assert jit.script(fn) is fn and jit.script(model) is model
    assert jit.ignore(fn) is fn and jit.ignore(drop=True)(fn) is fn
    assert jit.unused(fn) is fn and jit.export(fn) is fn
    assert jit.annotate(list, [1]) == [1] and jit.Final is real.jit.Final
    assert jit.is_scripting() is False and jit.is_tracing() is False
    with pytest.raises(RuntimeError, match="eval mode"):
        jit.freeze(model)
    assert jit.freeze(model.eval()) is model and jit.optimize_for_inference(model) is model


def test_torchscript_archives_are_refused(tmp_path):
    model = trace(jit, vt.nn.Linear(2, 2), vt.ones(1, 2))
    with pytest.raises(NotImplementedError, match="TorchScript"):
        jit.save(model, tmp_path / "m.pt")
    with pytest.raises(NotImplementedError, match="TorchScript"):
        jit.load(tmp_path / "m.pt")
