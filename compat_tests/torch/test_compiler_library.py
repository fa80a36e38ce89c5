"""torch.compiler, torch._dynamo and torch.library (custom ops) against torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, real, vt


def test_is_compiling_outside_inside_and_disabled():
    # (torch's answer inside a compiled function is checked against real torch.compile below)
    assert real.compiler.is_compiling() is False and vt.compiler.is_compiling() is False

    @vt.compiler.disable
    def eager_part():
        return vt.compiler.is_compiling()

    @vt.compile
    def compiled(x):
        return x + (2 if vt.compiler.is_compiling() else 1), eager_part(), vt._dynamo.is_compiling(), \
            vt.compiler.is_dynamo_compiling(), vt.compiler.is_exporting()
    out = compiled(vt.ones(1))
    assert out[0].tolist() == [3.0] and out[1:] == (False, True, True, False)
    assert vt.compiler.is_compiling() is False
    with vt.compiler.set_stance("force_eager"):
        assert compiled(vt.ones(1))[0].tolist() == [2.0]


def test_real_torch_compile_sees_is_compiling():
    @real.compile(backend="eager")
    def compiled(x):
        return x + (2 if real.compiler.is_compiling() else 1)
    assert compiled(real.ones(1)).tolist() == vt.compile(
        lambda x: x + (2 if vt.compiler.is_compiling() else 1))(vt.ones(1)).tolist()


def _compiler_api(torch):
    def f():
        return 1
    disabled = torch.compiler.disable(f)
    with pytest.raises(RuntimeError, match="context manager"):
        with torch.compiler.disable():
            pass
    return (disabled(), disabled.__name__, disabled is f, torch.compiler.reset(), torch.compiler.allow_in_graph(f) is f,
            torch.compiler.assume_constant_result(f) is f, f._dynamo_marked_constant, torch.compiler.list_backends(),
            torch._dynamo.reset())


def test_compiler_api():
    assert _compiler_api(real) == _compiler_api(vt)


def _dynamo_config(torch):
    config = torch._dynamo.config
    values = [config.suppress_errors, config.cache_size_limit, config.recompile_limit, config.verbose,
              config.capture_scalar_outputs, config.automatic_dynamic_shapes]
    with pytest.raises(AttributeError, match="does not exist"):
        config.not_a_setting  # noqa: B018  (the read raises)
    with pytest.raises(AttributeError, match="does not exist"):
        config.not_a_setting = 1
    with config.patch(suppress_errors=True, cache_size_limit=3):
        values += [config.suppress_errors, config.cache_size_limit]
    values += [config.suppress_errors, config.cache_size_limit]
    x = torch.ones(2, 3)
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.mark_static(x, 1)
    return values, x._dynamo_dynamic_indices, x._dynamo_static_indices


def test_dynamo_config_and_marks():
    assert _dynamo_config(real) == _dynamo_config(vt)


_COUNT = iter(range(10 ** 6))


def _define_sin(torch, with_autograd):
    name = f"vfwtest::mysin{next(_COUNT)}"

    @torch.library.custom_op(name, mutates_args=())
    def mysin(x: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        return (x * scale).sin()

    @mysin.register_fake
    def _(x, scale=1.0):
        return torch.empty_like(x)
    if with_autograd:
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.scale = inputs[1]

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.scale * (x * ctx.scale).cos(), None
        mysin.register_autograd(backward, setup_context=setup_context)
    return name, mysin


def test_custom_op_values_and_gradients():
    data = np.array([0.5, -1.0, 2.0], np.float32)
    results = []
    for torch in LIBS:
        name, mysin = _define_sin(torch, with_autograd=True)
        namespace, op_name = name.split("::")
        x = torch.tensor(data, requires_grad=True)
        y = mysin(x, scale=2.0) + getattr(getattr(torch.ops, namespace), op_name)(x, 0.5)
        y.sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), repr(mysin).split("(")[0], mysin(x.detach()).requires_grad))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)
    assert results[0][2:] == results[1][2:]


def _custom_op_errors(torch):
    errors = []
    _, mysin = _define_sin(torch, with_autograd=False)
    x = torch.ones(2, requires_grad=True)
    y = mysin(x)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    errors.append(str(info.value).split("mysin")[0])
    with pytest.raises(ValueError):
        torch.library.custom_op("no_namespace", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError, match="must have a type annotation"):
        torch.library.custom_op("vfwtest::unannotated", mutates_args=())(lambda x: x)
    with pytest.raises(TypeError):
        torch.library.custom_op("vfwtest::nomutates")
    same = torch.library.custom_op(f"vfwtest::alias{next(_COUNT)}", mutates_args=())

    @same
    def returns_input(x: torch.Tensor) -> torch.Tensor:
        return x
    with pytest.raises(RuntimeError, match="must not also be an input"):
        returns_input(torch.ones(2))
    with pytest.raises(AttributeError):
        torch.ops.vfwtest.not_defined  # noqa: B018
    return errors


def test_custom_op_errors():
    assert _custom_op_errors(real) == _custom_op_errors(vt)


def _mutating_and_tuple_ops(torch):
    n = next(_COUNT)

    @torch.library.custom_op(f"vfwtest::addin{n}", mutates_args=("x",))
    def add_into(x: torch.Tensor, y: torch.Tensor) -> None:
        x.add_(y)

    @torch.library.custom_op(f"vfwtest::pair{n}", mutates_args=(), device_types="cpu")
    def pair(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * 2, x + 1

    @pair.register_kernel("cpu")
    def _(x):
        return x * 3, x - 1
    a = torch.zeros(2)
    returned = add_into(a, torch.ones(2))
    p, q = pair(torch.ones(2))
    return returned, a.tolist(), p.tolist(), q.tolist()


def test_mutating_ops_and_kernels():
    assert _mutating_and_tuple_ops(real) == _mutating_and_tuple_ops(vt)


def _library_define_impl(torch, namespace):
    lib = torch.library.Library(namespace, "DEF")
    name = lib.define("scaled(Tensor x, float a) -> Tensor")
    lib.impl("scaled", lambda x, a: x * a, "CPU")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        torch.library.Library(namespace, "DEF")
    with pytest.raises(ValueError, match="Unsupported kind"):
        torch.library.Library(namespace, "NOPE")
    out = getattr(torch.ops, namespace).scaled(torch.ones(2), 3.0)
    return name, out.tolist(), repr(lib)


def test_library_define_impl():
    n = next(_COUNT)
    assert _library_define_impl(real, f"vfwlib{n}") == _library_define_impl(vt, f"vfwlib{n}")


def _compiled_module(torch):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
            self.scale = 2.0

        def forward(self, x):
            return self.body(x) * (self.scale if torch.compiler.is_compiling() else -1.0)

    torch.manual_seed(0)
    net = Net()
    seen = []
    net.register_forward_hook(lambda module, args, out: seen.append(type(module).__name__))
    compiled = torch.compile(net, backend="eager")
    x = torch.arange(4.0).reshape(2, 2)
    y = compiled(x).detach().numpy().copy()
    compiled.eval()
    compiled.extra = 5  # written to the original
    try:
        compiled.load_state_dict(net.state_dict())
        refused = None
    except RuntimeError as e:
        refused = str(e)
    return (repr(compiled), type(compiled).__name__, type(compiled).__module__, list(compiled.state_dict()),
            [name for name, _ in compiled.named_parameters()], [type(m).__name__ for m in compiled.modules()],
            compiled._orig_mod is net, net.training, compiled.training, net.extra, compiled.scale,
            isinstance(compiled, type(net)), seen, refused, y, torch.compile(net, disable=True) is net)


def test_compile_wraps_a_module_as_an_optimized_module():
    ours, theirs = _compiled_module(vt), _compiled_module(real)
    np.testing.assert_allclose(ours[-2], theirs[-2], rtol=1e-6)
    assert ours[:-2] + ours[-1:] == theirs[:-2] + theirs[-1:]
