"""Smaller torch 2.13 names against real torch: testing.assert_allclose, func.functionalize /
replace_all_batch_norm_modules_, sparse.sampled_addmm / spdiags, onnx symbolic registration and
select_model_mode_for_export, torch.cpu streams, utils.swap_tensors and utils.deterministic."""

import warnings

import numpy as np
import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _error(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("case", [
    ("float32", "float32", 1e-3), ("float32", "float32", 5e-5), ("float64", "float64", 2e-5),
    ("float64", "float64", 1e-6), ("float16", "float16", 5e-3), ("float64", "float16", 5e-4),
    ("int64", "int64", 1),
])
def test_assert_allclose(case):
    actual_dtype, expected_dtype, delta = case

    def run(module):
        actual = module.ones(3, dtype=getattr(module, actual_dtype))
        expected = (module.ones(3, dtype=getattr(module, expected_dtype)) * (1 + delta)).to(
            getattr(module, expected_dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            outcome = _error(lambda: module.testing.assert_allclose(actual, expected))
        return outcome, [(w.category, str(w.message)) for w in caught]

    assert run(vtorch) == run(torch)


def test_assert_allclose_lists_nan_and_message():
    for module in (torch, vtorch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.testing.assert_allclose(module.tensor([1.0, float("nan")]), [1.0, float("nan")])
            with pytest.raises(AssertionError, match="^custom$"):
                module.testing.assert_allclose(module.ones(2), [0, 0], msg="custom")


def test_functionalize_and_batch_norm_replacement():
    def step(module, t):
        out = t.clone()
        out.add_(1).mul_(2)
        t.sub_(1)
        return out.view(-1)

    results = []
    for module in (torch, vtorch):
        x = module.arange(6.0).reshape(2, 3)
        out = module.func.functionalize(step, remove="mutations_and_views")(module, x)
        results.append((out.tolist(), x.tolist()))
    assert results[0] == results[1]
    assert _error(lambda: vtorch.func.functionalize(step, remove="bad")) == \
        _error(lambda: torch.func.functionalize(step, remove="bad"))

    def batch_norm_state(module):
        model = module.nn.Sequential(module.nn.BatchNorm1d(3), module.nn.Linear(3, 2), module.nn.BatchNorm2d(2),
                                     module.nn.InstanceNorm1d(3, track_running_stats=True))
        assert module.func.replace_all_batch_norm_modules_(model) is model
        return [(m.running_mean is None, m.running_var is None, m.num_batches_tracked is None, m.track_running_stats,
                 sorted(m.state_dict())) for m in (model[0], model[2], model[3])]

    assert batch_norm_state(vtorch) == batch_norm_state(torch)


def test_sampled_addmm_values_and_gradients():
    rng = np.random.default_rng(3)
    dense = np.where(rng.random((4, 5)) < 0.5, rng.standard_normal((4, 5)), 0.0)
    m1, m2 = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    outputs = []
    for module in (torch, vtorch):
        a = module.tensor(m1, requires_grad=True)
        b = module.tensor(m2, requires_grad=True)
        result = module.sparse.sampled_addmm(module.tensor(dense).to_sparse_csr(), a, b, beta=0.5, alpha=-2.0)
        assert result.layout == module.sparse_csr
        (result.values() * module.arange(float(result.values().shape[0]), dtype=module.float64)).sum().backward()
        outputs.append((result.to_dense().detach().numpy(), a.grad.numpy(), b.grad.numpy()))
    for got, expected in zip(outputs[1], outputs[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert _error(lambda: vtorch.sparse.sampled_addmm(vtorch.eye(3), vtorch.ones(3, 2), vtorch.ones(2, 3)))[0] == \
        _error(lambda: torch.sparse.sampled_addmm(torch.eye(3), torch.ones(3, 2), torch.ones(2, 3)))[0]


@pytest.mark.parametrize("offsets, shape, layout", [
    ([0, -1], (3, 3), None), ([0, 1], (3, 4), "sparse_csr"), ([0, 1], (2, 4), None), ([2, -3], (4, 3), None),
    ([3, -1], (2, 4), None), ([1], (3, 3), "sparse_coo"),
])
def test_spdiags(offsets, shape, layout):
    diagonals = np.arange(1.0, 1.0 + 3 * len(offsets)).reshape(len(offsets), 3)

    def run(module):
        kwargs = {} if layout is None else {"layout": getattr(module, layout)}
        result = module.sparse.spdiags(module.tensor(diagonals), module.tensor(offsets), shape, **kwargs)
        return str(result.layout), result.to_dense().tolist()

    assert run(vtorch) == run(torch)
    duplicate = lambda module: module.sparse.spdiags(module.tensor(diagonals[:1].repeat(2, 0)),  # noqa: E731
                                                     module.tensor([0, 0]), (3, 3))
    assert _error(lambda: duplicate(vtorch)) == _error(lambda: duplicate(torch))


def test_onnx_symbolic_registration_and_model_mode():
    for name in ("custom::foo", "::foo", "foo", "a::1b"):
        def register(module, name=name):
            module.onnx.register_custom_op_symbolic(name, lambda g, x: x, 9)
            module.onnx.unregister_custom_op_symbolic(name, 9)
        got, expected = _error(lambda: register(vtorch)), _error(lambda: register(torch))
        assert (got is None) == (expected is None) and (got is None or got[1] == expected[1]), name
    assert vtorch.onnx.unregister_custom_op_symbolic("other::bar", 9) is None

    def modes(module):
        model = module.nn.Sequential(module.nn.Linear(2, 2), module.nn.Dropout())
        model.eval()
        model[1].train()
        seen = []
        for mode in (module.onnx.TrainingMode.TRAINING, module.onnx.TrainingMode.EVAL,
                     module.onnx.TrainingMode.PRESERVE):
            with module.onnx.select_model_mode_for_export(model, mode) as entered:
                seen.append((entered, [m.training for m in model.modules()]))
            seen.append([m.training for m in model.modules()])
        seen.append(_error(lambda: module.onnx.select_model_mode_for_export(model, True).__enter__()))
        return seen

    assert modes(vtorch) == modes(torch)


def test_cpu_streams():
    for module in (torch, vtorch):
        cpu = module.cpu
        stream = cpu.Stream()
        assert cpu.current_stream() is cpu.current_stream()
        with cpu.stream(stream) as entered:
            assert entered is None and cpu.current_stream() is stream
        assert cpu.current_stream() is not stream
        context = cpu.StreamContext(stream)
        assert context.__enter__() is None and cpu.current_stream() is stream
        assert not context.__exit__(None, None, None)
        assert (stream.wait_stream(stream), stream.record_event(), cpu.set_device(0), cpu.set_device("cpu")) == \
            (None,) * 4
        event = cpu.Event()
        assert event.query() is True
        assert type(stream).__module__ == "torch.cpu" and type(stream).__name__ == "Stream"


def test_swap_tensors_and_deterministic_flag():
    results = []
    for module in (torch, vtorch):
        a, b = module.ones(2), module.zeros(3)
        a.tag = "a"
        id_a = id(a)
        module.utils.swap_tensors(a, b)
        p, q = module.nn.Parameter(module.ones(2)), module.zeros(2)
        module.utils.swap_tensors(p, q)
        x = module.ones(2, requires_grad=True)
        y, z = x * 2, module.zeros(2)
        module.utils.swap_tensors(y, z)
        z.sum().backward()
        results.append((a.tolist(), b.tolist(), id(a) == id_a, getattr(b, "tag", None), hasattr(a, "tag"),
                        type(p).__name__, type(q).__name__, q.requires_grad, y.requires_grad, x.grad.tolist()))
        flag = module.utils.deterministic
        assert flag.fill_uninitialized_memory is True
        flag.fill_uninitialized_memory = False
        assert flag.fill_uninitialized_memory is False
        flag.fill_uninitialized_memory = True
        results.append(_error(lambda flag=flag: setattr(flag, "fill_uninitialized_memory", 1)))
    assert results[:2] == results[2:]
