"""The ``__torch_function__`` protocol, ``torch.overrides`` and ``torch._C.DisableTorchFunction*`` against torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, assert_same, to_numpy


def _logging_class(torch):
    class Logged(torch.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})
    return Logged


def _run_logged(torch):
    logged = _logging_class(torch)
    x = torch.tensor([1.0, -2.0, 3.0]).as_subclass(logged)
    results = [x + 1, x / 2, x % 2, -x, x < 1, x ** 2, abs(x), x @ x, torch.nn.functional.relu(x),
               torch.cat([x, x]), x.sum(), torch.mean(x), torch.matmul(x, x), x.exp(), torch.where(x > 0, x, 0.0)]
    y = x.clone()
    y.add_(1)
    y *= 2
    results.append(y)
    return logged, results


def test_subclass_sees_functions_methods_and_operators_as_torch():
    (real_cls, want), (vfw_cls, got) = (_run_logged(lib) for lib in LIBS)
    assert vfw_cls.calls == real_cls.calls
    assert [type(r).__name__ for r in got] == [type(r).__name__ for r in want]
    for w, g in zip(want, got):
        assert_same(to_numpy(w), to_numpy(g))


def _unit_class(torch):
    class Metres(torch.Tensor):
        """A unit-carrying tensor that refuses to add to plain numbers."""

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func.__name__ == "add" and not all(isinstance(a, cls) for a in args):
                raise TypeError("cannot add metres to a plain value")
            return super().__torch_function__(func, types, args, kwargs or {})
    return Metres


@pytest.mark.parametrize("case", ["operator", "function"])
def test_subclass_can_refuse(case):
    for torch in LIBS:
        metres = _unit_class(torch)
        x = torch.ones(2).as_subclass(metres)
        assert type(x + x) is metres
        # torch turns a handler's TypeError in an operator into NotImplemented: Python's own error follows
        with pytest.raises(TypeError, match="unsupported operand" if case == "operator" else "metres"):
            x + torch.ones(2) if case == "operator" else torch.add(x, 1)


def _plain_handler_results(torch):
    class Scalarish:
        """Not a tensor: answers every torch function with its name."""

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("handled", func.__name__, len(args))

    class Refusing:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    out = [torch.add(Scalarish(), 1), torch.sum(Scalarish()), torch.nn.functional.relu(Scalarish())]
    with pytest.raises(TypeError) as info:
        torch.add(Refusing(), 1)
    return out, str(info.value).replace("tensor subclass", "")


def test_non_tensor_types_with_torch_function():
    assert _plain_handler_results(LIBS[0]) == _plain_handler_results(LIBS[1])


def _mode_log(torch):
    from_mode = []

    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            from_mode.append(func.__name__)
            return func(*args, **(kwargs or {}))
    x = torch.tensor([1.0, 2.0])
    with Mode():
        y = torch.relu(x * 2).sum()
        z = x.mean()
    x + 1  # outside: not seen
    return from_mode, y.item(), z.item()


def test_torch_function_mode():
    assert _mode_log(LIBS[0]) == _mode_log(LIBS[1])


def _disabled_types(torch):
    logged = _logging_class(torch)
    x = torch.ones(2).as_subclass(logged)
    with torch._C.DisableTorchFunctionSubclass():
        a = type(torch.add(x, 1)).__name__
    with torch._C.DisableTorchFunction():
        b = type(x + 1).__name__
    with torch.DisableTorchFunctionSubclass():
        c = type(x.mul(2)).__name__
    return a, b, c, logged.calls, type(x + 1).__name__


def test_disable_torch_function():
    assert _disabled_types(LIBS[0]) == _disabled_types(LIBS[1])


def _helpers(torch):
    logged = _logging_class(torch)
    x = torch.ones(2)
    sub = x.as_subclass(logged)
    overrides = torch.overrides
    handled = overrides.handle_torch_function(torch.add, (sub,), sub, 1)
    return (overrides.has_torch_function((x,)), overrides.has_torch_function((x, sub)),
            overrides.has_torch_function_unary(sub), overrides.has_torch_function_variadic(x, 2),
            overrides.is_tensor_like(x), overrides.is_tensor_like(np.ones(2)), type(handled).__name__,
            handled.tolist(), logged.calls)


def test_overrides_helpers():
    assert _helpers(LIBS[0]) == _helpers(LIBS[1])


def test_gradient_through_subclass_matches_torch():
    grads = []
    for torch in LIBS:
        logged = _logging_class(torch)
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (x.as_subclass(logged) * x).sin().sum()
        y.backward()
        grads.append((type(y).__name__, x.grad.tolist()))
    assert grads[0][0] == grads[1][0]
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)
