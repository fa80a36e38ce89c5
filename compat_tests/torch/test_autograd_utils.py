"""vfw.torch against real torch: torch.autograd.functional, gradcheck, anomaly mode, torch.testing."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, real, vt

X3, Y2 = arrays((3,), (2,), dtype="float64", seed=1)
M23 = arrays((2, 3), dtype="float64", seed=2)


# -- functional ---------------------------------------------------------------------------------------------

def _single(torch, x):
    return x.exp() * x.sum()


def _pair(torch, x, y):
    return (x.sin().sum() * y, x ** 2)


def _scalar(torch, x):
    return (x ** 3).sum() + x.prod()


def _scalar2(torch, x, y):
    return (x ** 2).sum() * y.sin().sum() + (x.sum() * y).sum()


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("case", [
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: _single(torch, a), x, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: _single(torch, a), (x,), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: (_single(torch, a),), x, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a, b: _pair(torch, a, b), (x, y), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: a @ a.t(), m, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: a.sum(), torch.tensor(2.0, dtype=torch.float64)),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a, b: a * 2, (x, y), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: y * 2, x),
    lambda torch, F, cg, x, y, m: F.jacobian(lambda a: a.exp(), x, vectorize=True),
    lambda torch, F, cg, x, y, m: F.hessian(lambda a: _scalar(torch, a), x, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.hessian(lambda a, b: _scalar2(torch, a, b), (x, y), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.hessian(lambda a: (a ** 2).sum() * a[0, 1], m),
    lambda torch, F, cg, x, y, m: F.vjp(lambda a: _single(torch, a), x, y.sum() * x, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.vjp(lambda a: _scalar(torch, a), x, create_graph=cg),
    lambda torch, F, cg, x, y, m: F.vjp(lambda a, b: _pair(torch, a, b), (x, y), (y, x), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jvp(lambda a: _single(torch, a), x, x.cos(), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jvp(lambda a, b: _pair(torch, a, b), (x, y), (x, y), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.jvp(lambda a: a.exp(), torch.tensor([0.5], dtype=torch.float64)),
    lambda torch, F, cg, x, y, m: F.hvp(lambda a: _scalar(torch, a), x, x.cos(), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.hvp(lambda a, b: _scalar2(torch, a, b), (x, y), (x, y), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.vhp(lambda a: _scalar(torch, a), x, x.cos(), create_graph=cg),
    lambda torch, F, cg, x, y, m: F.vhp(lambda a, b: _scalar2(torch, a, b), (x, y), (y.sum() * x, y),
                                        create_graph=cg),
])
def test_functional_values(case, create_graph):
    check(lambda torch, x, y, m: case(torch, torch.autograd.functional, create_graph, x, y, m), X3, Y2, M23)


def test_modules_importable():
    import vfw.torch.autograd.functional as functional
    import vfw.torch.testing as testing
    from vfw.torch.autograd.gradcheck import GradcheckError

    assert functional is vt.autograd.functional and testing is vt.testing
    assert issubclass(GradcheckError, RuntimeError)
    x = vt.tensor([1.0, 2.0], dtype=vt.float64, requires_grad=True)
    assert vt.autograd.gradcheck(lambda a: a.exp(), (x,)) is True  # still callable after the alias import


@pytest.mark.parametrize("create_graph", [False, True])
def test_functional_create_graph_differentiable(create_graph):
    def fn(torch, x):
        x.requires_grad_(True)
        F = torch.autograd.functional
        jac = F.jacobian(lambda a: a ** 3, x, create_graph=create_graph)
        _, v = F.vjp(lambda a: (a ** 3).sum(), x, create_graph=create_graph)
        _, h = F.hvp(lambda a: (a ** 3).sum(), x, x, create_graph=create_graph)
        flags = (jac.requires_grad, v.requires_grad, h.requires_grad)
        if not create_graph:
            return flags
        return flags, torch.autograd.grad(jac.sum() + v.sum() + h.sum(), x)
    check(fn, X3)


def test_functional_outputs_detached():
    def fn(torch, x):
        out, v = torch.autograd.functional.vjp(lambda a: a * 2, x, x)
        return out.requires_grad, v.requires_grad, out.grad_fn is None
    check(fn, X3)


@pytest.mark.parametrize("call", [
    lambda F, torch, x, y: F.jacobian(lambda a: a.exp(), [x]),
    lambda F, torch, x, y: F.jacobian(lambda a: 3, x),
    lambda F, torch, x, y: F.jacobian(lambda a: y * 2, x, strict=True),
    lambda F, torch, x, y: F.jacobian(lambda a, b: a * 2, (x, y), strict=True),
    lambda F, torch, x, y: F.jacobian(lambda a: a.exp(), x, strategy="sideways"),
    lambda F, torch, x, y: F.jacobian(lambda a: a.exp(), x.int()),
    lambda F, torch, x, y: F.vjp(lambda a: a * 2, x),
    lambda F, torch, x, y: F.vjp(lambda a: a.sum(), x, y),
    lambda F, torch, x, y: F.vjp(lambda a: a * 2, x, y),
    lambda F, torch, x, y: F.vjp(lambda a: a * 2, x, (x, x)),
    lambda F, torch, x, y: F.vjp(lambda a, b: a * 2, (x, y), strict=True, v=x),
    lambda F, torch, x, y: F.jvp(lambda a: a * 2, x),
    lambda F, torch, x, y: F.jvp(lambda a, b: a * b.sum(), (x, y), (x, x)),
    lambda F, torch, x, y: F.hessian(lambda a: a * 2, x),
    lambda F, torch, x, y: F.hessian(lambda a: (a.sum(), a.sum()), x),
    lambda F, torch, x, y: F.hvp(lambda a: a ** 2, x, x),
    lambda F, torch, x, y: F.hvp(lambda a: (a ** 2).sum(), x),
    lambda F, torch, x, y: F.vhp(lambda a: (a ** 2).sum(), x, y),
])
def test_functional_errors(call):
    check(lambda torch, x, y: call(torch.autograd.functional, torch, x, y), X3, Y2)


# -- gradcheck ----------------------------------------------------------------------------------------------

def _wrong_square(torch):
    class WrongSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 * g * x
    return WrongSquare


def _right_cube(torch):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x ** 2
    return Cube


@pytest.mark.parametrize("case", [
    lambda torch, x, y: torch.autograd.gradcheck(lambda a: a.sin() * a, (x,)),
    lambda torch, x, y: torch.autograd.gradcheck(lambda a: a.exp(), x),
    lambda torch, x, y: torch.autograd.gradcheck(lambda a, b: (a * b.sum(), b.tanh()), (x, y), eps=1e-6,
                                                 atol=1e-5, rtol=1e-3, nondet_tol=0.0, fast_mode=False),
    lambda torch, x, y: torch.autograd.gradcheck(lambda a, k: a * k, (x, 3)),
    lambda torch, x, y: torch.autograd.gradcheck(_right_cube(torch).apply, (x,)),
    lambda torch, x, y: torch.autograd.gradcheck(_wrong_square(torch).apply, (x,), raise_exception=False),
    lambda torch, x, y: torch.autograd.gradcheck(_wrong_square(torch).apply, (x,)),
    lambda torch, x, y: torch.autograd.gradcheck(lambda a: a.sin(), (x.detach(),)),
    lambda torch, x, y: torch.autograd.gradgradcheck(lambda a: a.sin() * a, (x,)),
    lambda torch, x, y: torch.autograd.gradgradcheck(lambda a, b: (a ** 2 * b.sum()), (x, y)),
    lambda torch, x, y: torch.autograd.gradgradcheck(_right_cube(torch).apply, (x,)),
])
def test_gradcheck(case):
    def fn(torch, x, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return case(torch, x.requires_grad_(True), y.requires_grad_(True))
    check(fn, X3, Y2)


def test_gradcheck_error_class_and_message():
    from vfw.torch.autograd.gradcheck import GradcheckError

    x = vt.tensor([1.0, 2.0], dtype=vt.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as got:
        vt.autograd.gradcheck(_wrong_square(vt).apply, (x,))
    with pytest.raises(RuntimeError) as want:
        real.autograd.gradcheck(_wrong_square(real).apply, (real.tensor([1.0, 2.0], dtype=real.float64,
                                                                         requires_grad=True),))
    assert str(got.value) == str(want.value)
    assert issubclass(GradcheckError, RuntimeError)
    assert x.tolist() == [1.0, 2.0]  # the caller's tensor is left as it was


# -- anomaly mode -------------------------------------------------------------------------------------------

def test_anomaly_flags():
    def fn(torch):
        seen = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.detect_anomaly(check_nan=False):
                seen += [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
        seen += [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
        with torch.autograd.set_detect_anomaly(True):
            seen.append(torch.is_anomaly_enabled())
        seen.append(torch.is_anomaly_enabled())
        torch.autograd.set_detect_anomaly(True)
        seen.append(torch.is_anomaly_enabled())
        torch.autograd.set_detect_anomaly(False)
        seen.append(torch.is_anomaly_enabled())
        return seen
    check(fn)


def _nan_backward(torch, x, how):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            if how == "sqrt":
                (x.sqrt() * 0).sum().backward()
            elif how == "mul":
                (x * float("nan")).sum().backward()
            elif how == "grad":
                torch.autograd.grad((x.sqrt() * 0).sum(), x)
            else:  # forward NaN, finite backward: fine
                (x * 2).sum().backward()
    return x.grad


@pytest.mark.parametrize("how", ["sqrt", "mul", "grad", "fine"])
def test_anomaly_nan_in_backward(how):
    check(lambda torch, x: _nan_backward(torch, x.requires_grad_(True), how), np.array([0.0, 1.0, np.nan]))


@pytest.mark.parametrize("how", ["sqrt", "mul"])
def test_anomaly_message(how):
    x = vt.tensor([0.0, 1.0], requires_grad=True)
    want = {"sqrt": "SqrtBackward0", "mul": "MulBackward0"}[how]
    with pytest.raises(RuntimeError, match=f"^Function '{want}' returned nan values in its 0th output.$"):
        _nan_backward(vt, x, how)
    (x * 1).sum().backward()  # off again: no check, no error


# -- torch.testing ------------------------------------------------------------------------------------------

def _error_of(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001
        kind = type(e).__mro__[[c.__module__ for c in type(e).__mro__].index("builtins")].__name__
        # TypeErrors name the (library-specific) classes of the inputs: the type is compared, not the text.
        return kind, str(e) if kind != "TypeError" else ""
    return None


ASSERT_CASES = [
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.0])),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.000001, 3.0])),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.5, 3.0])),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0, 3.0], dtype=t.float64)),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0], dtype=t.float64), check_dtype=False),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.0])),
    lambda t: t.testing.assert_close(t.tensor([1, 2, 3]), t.tensor([1, 2, 4])),
    lambda t: t.testing.assert_close(t.tensor([1, 2], dtype=t.int32), t.tensor([1, 3], dtype=t.int32)),
    lambda t: t.testing.assert_close(t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor([[1.0, 2.0], [3.0, 5.0]])),
    lambda t: t.testing.assert_close(t.tensor(1.0), t.tensor(2.0)),
    lambda t: t.testing.assert_close(t.tensor(1), t.tensor(2)),
    lambda t: t.testing.assert_close(t.tensor([True]), t.tensor([False])),
    lambda t: t.testing.assert_close(t.tensor([1.0]).double(), t.tensor([1.0 + 1e-8]).double()),
    lambda t: t.testing.assert_close(t.tensor([1.0]).double(), t.tensor([1.0 + 1e-6]).double()),
    lambda t: t.testing.assert_close(t.tensor([1.0]).half(), t.tensor([1.0005]).half()),
    lambda t: t.testing.assert_close(t.tensor([1.0]).half(), t.tensor([1.01]).half()),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.1]), rtol=0.2, atol=0),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.1]), rtol=0.2),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.5]), rtol=0, atol=0),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.1]), msg="custom"),
    lambda t: t.testing.assert_close(t.tensor([float("nan")]), t.tensor([float("nan")])),
    lambda t: t.testing.assert_close(t.tensor([float("nan")]), t.tensor([float("nan")]), equal_nan=True),
    lambda t: t.testing.assert_close(t.tensor([1.0, float("inf")]), t.tensor([1.0, float("inf")])),
    lambda t: t.testing.assert_close(t.tensor([1.0, float("inf")]), t.tensor([1.0, -float("inf")])),
    lambda t: t.testing.assert_close(t.tensor([0.0, 1.0]), t.tensor([1.0, 0.0])),
    lambda t: t.testing.assert_close(t.tensor([]), t.tensor([])),
    lambda t: t.testing.assert_close(t.zeros(2, 3), t.zeros(3, 2).t(), check_stride=True),
    lambda t: t.testing.assert_close(t.zeros(2, 3), t.zeros(3, 2).t().contiguous(), check_stride=True),
    lambda t: t.testing.assert_close(t.tensor([1.0]), 1.0),
    lambda t: t.testing.assert_close(t.tensor([1.0]), [1.0]),
    lambda t: t.testing.assert_close(1.0, 1.0 + 1e-9),
    lambda t: t.testing.assert_close(1.0, 1.1),
    lambda t: t.testing.assert_close(1, 2),
    lambda t: t.testing.assert_close(1, 1.0),
    lambda t: t.testing.assert_close(True, False),
    lambda t: t.testing.assert_close(None, None),
    lambda t: t.testing.assert_close(None, 1),
    lambda t: t.testing.assert_close("a", "a"),
    lambda t: t.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 3.0])),
    lambda t: t.testing.assert_close(np.array([1.0, 2.0]), t.tensor([1.0, 2.0], dtype=t.float64)),
    lambda t: t.testing.assert_close([t.tensor(1.0)], (t.tensor(1.0),)),
    lambda t: t.testing.assert_close([t.tensor(1.0)], [t.tensor(1.0), t.tensor(2.0)]),
    lambda t: t.testing.assert_close([[t.tensor(1.0)]], [[t.tensor(2.0)]]),
    lambda t: t.testing.assert_close({"a": t.tensor(1.0)}, {"a": t.tensor(2.0)}),
    lambda t: t.testing.assert_close({"a": t.tensor(1.0)}, {"b": t.tensor(1.0)}),
    lambda t: t.testing.assert_close({"a": [1, 2]}, {"a": [1, 3]}),
    lambda t: t.testing.assert_close((t.tensor(1.0), t.tensor([1.0, 2.0])), (t.tensor(1.0), t.tensor([1.0, 3.0]))),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.0]), rtol=1e-3),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]).bfloat16(), t.tensor([1.0, 2.1]).bfloat16()),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]).bfloat16(), t.tensor([1.0, 2.01]).bfloat16()),
    lambda t: t.testing.assert_close(t.tensor([1, 2], dtype=t.uint8), t.tensor([2, 1], dtype=t.uint8)),
    lambda t: t.testing.assert_close(t.tensor([1, 2]), t.tensor([1.0, 2.5]), check_dtype=False),
    lambda t: t.testing.assert_close(t.tensor([1, 2]), t.tensor([1.0, 2.0]), check_dtype=False),
    lambda t: t.testing.assert_close(1, 2, msg=lambda m: m + "!!"),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0]), rtol=0.0, atol=0.0),
]


@pytest.mark.parametrize("case", ASSERT_CASES)
def test_assert_close(case):
    assert _error_of(case, vt) == _error_of(case, real)  # same exception type and (full) message


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), ((2, 0),)])
def test_make_tensor(dtype, shape):
    def fn(torch):
        t = torch.testing.make_tensor(*shape, dtype=getattr(torch, dtype), device="cpu")
        lo, hi = (-9, 9) if dtype.startswith("float") else (0, 10) if dtype == "uint8" else (-9, 10)
        in_range = bool(((t.double() >= lo) & (t.double() <= hi)).all()) if dtype != "bool" else True
        return t.dtype, t.shape, in_range
    check(fn)


@pytest.mark.parametrize("kwargs", [
    {"low": 0, "high": 1}, {"low": 2, "high": 1}, {"requires_grad": True},
])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_make_tensor_options(dtype, kwargs):
    def fn(torch):
        t = torch.testing.make_tensor(4, 2, dtype=getattr(torch, dtype), device="cpu", **kwargs)
        lo, hi = kwargs.get("low", -10), kwargs.get("high", 10)
        return t.shape, t.dtype, t.requires_grad, bool(((t.double() >= lo) & (t.double() <= hi)).all())
    check(fn)
