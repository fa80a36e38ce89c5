"""Remaining everyday torch names against real torch 2.13: the ``sym_*`` helpers and ``SymInt``/``SymFloat``/
``SymBool``; ``fork``/``wait`` (also ``torch.jit``'s), ``is_distributed``, ``set_anomaly_enabled``,
``get_device_module``, ``compiled_with_cxx11_abi``; ``native_dropout``/``native_norm``/``native_group_norm``/
``norm_except_dim``/``slice_inverse``/``as_strided_``, the sparse-part and complex-view ``*_copy`` functions,
``special.airy_ai``; ``F.linear_cross_entropy``/``nn.LinearCrossEntropyLoss``/``nn.Container``; the Tensor methods of
other devices and of sparse layouts on dense tensors."""

import warnings

import numpy as np
import pytest
import vfw.torch as vtorch

from compat_tests.torch.harness import check_grad

torch = pytest.importorskip("torch")

LIBS = (torch, vtorch)


def _outcome(call):
    """``("ok", value)`` or ``(exception type name, message)``; torch's dispatcher errors ("Could not run ... with
    arguments from the '...' backend.") up to the backend, the rest lists torch's dispatch keys."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except Exception as error:  # noqa: BLE001 - the error itself is what is compared
            message = str(error)
            if message.startswith("Could not run"):
                message = message[:message.index(" backend.") + len(" backend.")]
            return type(error).__name__, message


def _same_outcome(fn, compare=lambda want, got: want == got):
    want, got = _outcome(lambda: fn(torch)), _outcome(lambda: fn(vtorch))
    assert want[0] == got[0], (want, got)
    if want[0] == "ok":
        assert compare(want[1], got[1]), (want, got)
    else:
        assert want[1] == got[1], (want, got)


def _numbers_equal(want, got):
    return type(want) is type(got) and (want == got or want != want and got != got)


# -- 1. symbolic-shape helpers ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda t: t.sym_int(3.7), lambda t: t.sym_int(-3.7), lambda t: t.sym_int(True), lambda t: t.sym_int("a"),
    lambda t: t.sym_int(t.tensor(2.5)), lambda t: t.sym_int(t.tensor([1, 2])),
    lambda t: t.sym_float(3), lambda t: t.sym_float(t.tensor(3)), lambda t: t.sym_float("1.5"),
    lambda t: t.sym_max(2, 3.0), lambda t: t.sym_max(2, 3), lambda t: t.sym_max(3.0, 2), lambda t: t.sym_max(True, 2),
    lambda t: t.sym_max(np.int64(4), 2), lambda t: t.sym_min(2, 3.0), lambda t: t.sym_min(5, 3),
    lambda t: t.sym_min(t.tensor(2), 3), lambda t: t.sym_max(1.0, t.tensor(3.0)),
    lambda t: t.sym_not(True), lambda t: t.sym_not(0), lambda t: t.sym_not(t.tensor(True)),
    lambda t: t.sym_not(t.tensor([True, False])),
    lambda t: t.sym_ite(True, 1, 2), lambda t: t.sym_ite(False, 1, 2), lambda t: t.sym_ite(1, 1, 2),
    lambda t: t.sym_ite(True, 1, 2.0), lambda t: t.sym_ite(t.tensor(True), 1, 2),
    lambda t: t.sym_sqrt(4), lambda t: t.sym_sqrt(2.0), lambda t: t.sym_sqrt(-1.0), lambda t: t.sym_sqrt(t.tensor(4.0)),
    lambda t: t.sym_sum([1, 2, 3]), lambda t: t.sym_sum(1, 2), lambda t: t.sym_sum([1, 2.5]), lambda t: t.sym_sum([]),
    lambda t: isinstance(3, t.SymInt), lambda t: isinstance(3.0, t.SymFloat), lambda t: isinstance(True, t.SymBool),
    lambda t: isinstance(t.ones(2).shape[0], t.SymInt),
])
def test_sym_helpers(call):
    _same_outcome(call, _numbers_equal)


@pytest.mark.parametrize("name", ["sym_constrain_range", "sym_constrain_range_for_size"])
@pytest.mark.parametrize("args", [
    (5,), (5, 0, 10), (5, 6), (5, None, 4), (5, 10, 2), (5, 2.5), (5, None, 2.5), (-1,), (0,), (1, None, 2),
    (1, None, 1), (3, 5, 4), (3, 4, 4), (-1, -3), (-4, -3), ("a",), (None,), (5.5, 6), (True, 0),
])
def test_sym_constrain_range(name, args):
    def call(t):
        size, bounds = args[0], dict(zip(("min", "max"), args[1:]))
        return getattr(t, name)(size, **bounds)

    _same_outcome(call)


@pytest.mark.parametrize("name", ["sym_constrain_range", "sym_constrain_range_for_size"])
def test_sym_constrain_range_tensors(name):
    _same_outcome(lambda t: getattr(t, name)(t.tensor(5), min=6))
    _same_outcome(lambda t: getattr(t, name)(t.tensor(5), min=1))
    _same_outcome(lambda t: getattr(t, name)(t.tensor([1, 2]), min=1))


# -- 2. runtime helpers ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("module_name", ["", "jit"])
def test_fork_wait(module_name):
    for lib in LIBS:
        api = getattr(lib, module_name) if module_name else lib
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            future = api.fork(lambda x, y=0: x * 2 + y, lib.tensor([1.0, 2.0]), y=1)
            assert future.done() and future.value().tolist() == [3.0, 5.0]
            assert api.wait(future).tolist() == [3.0, 5.0]
        messages = [(w.category, str(w.message)) for w in caught]
        expected = [(DeprecationWarning, f"`torch.jit.{what}` is deprecated. Please use `torch.compile` instead.")
                    for what in ("fork", "wait")] if module_name else []
        assert messages == expected
    # eager torch runs the function inside fork: its exception comes from fork itself
    _same_outcome(lambda t: t.fork(lambda: 1 / 0))
    _same_outcome(lambda t: t.wait(3))
    assert isinstance(vtorch.fork(int), vtorch.futures.Future)


def test_is_distributed_and_abi():
    _same_outcome(lambda t: t.is_distributed(t.zeros(2)))
    _same_outcome(lambda t: t.zeros(2).is_distributed())
    _same_outcome(lambda t: t.is_distributed(3))
    _same_outcome(lambda t: t.compiled_with_cxx11_abi())


def test_set_anomaly_enabled():
    for lib in LIBS:
        try:
            lib.set_anomaly_enabled(True)
            assert lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
            lib.set_anomaly_enabled(False, False)
            assert not lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        finally:
            lib.set_anomaly_enabled(False, True)


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:0", "mps", "xpu", "meta", 3, None])
def test_get_device_module(device):
    def call(t):
        module = t.get_device_module(device)
        return module.__name__.split(".")[-1]

    _same_outcome(call)
    _same_outcome(lambda t: t.get_device_module(t.device("cpu")).__name__.split(".")[-1])
    assert vtorch.get_device_module("cpu") is vtorch.cpu


# -- 3. numerics ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 1.0])
def test_native_dropout_seeded(dtype, p):
    x = np.random.default_rng(0).standard_normal((6, 7)).astype(dtype)
    results = []
    for lib in LIBS:
        lib.manual_seed(7)
        out, mask = lib.native_dropout(lib.from_numpy(x), p, True)
        assert mask.dtype == lib.bool and str(out.dtype) == f"torch.{dtype}"
        results.append((out.numpy(), mask.numpy()))
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=0)


def test_native_dropout_eval_and_errors():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for lib in LIBS:
        out, mask = lib.native_dropout(lib.from_numpy(x), 0.5, False)
        np.testing.assert_array_equal(out.numpy(), x)
        assert mask.dtype == lib.bool and mask.all()
    for call in (lambda t: t.native_dropout(t.ones(3), 1.5, True), lambda t: t.native_dropout(t.ones(3), -0.5, True),
                 lambda t: t.native_dropout(t.ones(3, dtype=t.int32), 0.5, True),
                 lambda t: t.native_dropout(t.ones(3, dtype=t.int32), 0.5, False)[1].tolist()):
        _same_outcome(call)
    check_grad(lambda t, a: t.native_dropout(a, 0.0, True)[0], np.ones((2, 3), np.float32))

@pytest.mark.parametrize("train", [True, None])
def test_native_dropout_gradient(train):
    results = []
    for lib in LIBS:
        a = lib.ones(4, 5, requires_grad=True)
        lib.manual_seed(3)
        out, _ = lib.native_dropout(a, 0.25, train)
        out.sum().backward()
        results.append((out.detach().numpy(), a.grad.numpy()))
    # torch scales the gradient by 1 / (1 - p) for train=True, not for train=None
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda t, s: t.native_norm(s), lambda t, s: t.native_norm(s, 1), lambda t, s: t.native_norm(s, 3),
    lambda t, s: t.native_norm(s, 0), lambda t, s: t.native_norm(s, float("inf")),
    lambda t, s: t.native_norm(s, 2, [], False, None), lambda t, s: t.native_norm(s, 2, [-1, 0], False, None),
    lambda t, s: t.native_norm(s, 2, [1], False, None), lambda t, s: t.native_norm(s, 2, [0, 1], True, None),
    lambda t, s: t.native_norm(s, 2, [0, 1], False, t.float64), lambda t, s: t.native_norm(s.to_dense()),
    lambda t, s: t.native_norm(s.to(t.int64)),
])
def test_native_norm(call):
    dense = np.array([[0.0, -3.0, 0.0], [4.0, 0.0, 1.5]], np.float32)
    _same_outcome(lambda t: call(t, t.from_numpy(dense).to_sparse()).item(),
                  lambda want, got: np.isclose(want, got, rtol=1e-6))


@pytest.mark.parametrize("shape,group", [((2, 4, 3), 2), ((3, 6, 2, 2), 3), ((2, 4), 4)])
@pytest.mark.parametrize("affine", [False, True])
def test_native_group_norm(shape, group, affine):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    c = shape[1]
    params = (rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)) if affine else ()
    hxw = int(np.prod(shape[2:]))

    def fn(t, a, *wb):
        weight, bias = wb if wb else (None, None)
        return t.native_group_norm(a, weight, bias, shape[0], c, hxw, group, 1e-5)

    check_grad(fn, x, *params, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda t, g: t.native_group_norm(g, None, None, 2, 4, 3, 3, 1e-5),
    lambda t, g: t.native_group_norm(g, None, None, 2, 4, 4, 2, 1e-5),
    lambda t, g: t.native_group_norm(g, t.ones(3), None, 2, 4, 3, 2, 1e-5),
    lambda t, g: t.native_group_norm(g, None, t.ones(5), 2, 4, 3, 2, 1e-5),
    lambda t, g: t.native_group_norm(g.int(), None, None, 2, 4, 3, 2, 1e-5),
    lambda t, g: [r.dtype == t.float64 for r in t.native_group_norm(g.double(), None, None, 2, 4, 3, 2, 1e-5)],
])
def test_native_group_norm_errors(call):
    _same_outcome(lambda t: call(t, t.arange(24.0).reshape(2, 4, 3)))


@pytest.mark.parametrize("pow_, dim", [(2, 0), (2, 1), (2, -1), (1, 0), (3, 1), (0, 0), (2, 2), (2, -2)])
def test_norm_except_dim(pow_, dim):
    x = np.random.default_rng(2).standard_normal((3, 4, 2))
    check_grad(lambda t, a: t.norm_except_dim(a, pow_, dim), x)


@pytest.mark.parametrize("call", [
    lambda t: t.norm_except_dim(t.ones(2, 3)), lambda t: t.norm_except_dim(t.ones(2, 3), 2, 5),
    lambda t: t.norm_except_dim(t.ones(2, dtype=t.int32)), lambda t: t.norm_except_dim(t.tensor(3.0)),
    lambda t: t.norm_except_dim(t.ones(2), float("inf"), 0), lambda t: t.norm_except_dim(t.tensor(3.0), 2, -1),
])
def test_norm_except_dim_edges(call):
    _same_outcome(lambda t: call(t).tolist())


_AIRY_POINTS = [-40.3, -12.7, -8.5, -6.2, -5.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 5.9, 6.5, 10.0, 25.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_airy_ai_values(dtype):
    x = np.array(_AIRY_POINTS, dtype)
    want = torch.special.airy_ai(torch.from_numpy(x))
    got = vtorch.special.airy_ai(vtorch.from_numpy(x))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=0)


@pytest.mark.parametrize("call", [
    lambda t: t.special.airy_ai(t.tensor([float("inf"), -float("inf"), float("nan"), 100.0, -100.0],
                                         dtype=t.float64)).tolist(),
    lambda t: t.special.airy_ai(t.tensor([1, 2])).tolist(), lambda t: t.special.airy_ai(t.tensor([True])).tolist(),
    lambda t: t.special.airy_ai(2.0), lambda t: t.special.airy_ai(t.ones(1, dtype=t.float16)),
    lambda t: t.special.airy_ai(t.ones(1, dtype=t.bfloat16)), lambda t: t.special.airy_ai(t.ones(1, dtype=t.complex64)),
    lambda t: t.special.airy_ai(t.ones(2, requires_grad=True)).requires_grad,
])
def test_airy_ai_edges(call):
    _same_outcome(call, lambda want, got: np.allclose(want, got, rtol=1e-6, atol=0, equal_nan=True))


def test_as_strided_and_slice_inverse():
    for lib in LIBS:
        y = lib.arange(6.0)
        result = lib.as_strided_(y, (2, 2), (1, 2), 1)
        assert result is y and y.tolist() == [[1.0, 3.0], [2.0, 4.0]] and y.stride() == (1, 2)
    for start_slice, src_rows in ((slice(3, 7), 10), (slice(1, 5), 6)):
        results = []
        for lib in LIBS:
            base = lib.arange(40.0)
            view = base[10:30].view(4, 5)[1:3]
            src = lib.zeros(src_rows, 5)[start_slice]
            r = lib.slice_inverse(view, src, 0, 1, 3, 1)
            method = view.slice_inverse(src, 0, 1, 3, 1)
            results.append((r.tolist(), r.stride(), r.storage_offset(), method.tolist()))
        assert results[0] == results[1]


@pytest.mark.parametrize("call", [
    lambda t, x: t.values_copy(x.to_sparse_csr()), lambda t, x: t.crow_indices_copy(x.to_sparse_csr()),
    lambda t, x: t.col_indices_copy(x.to_sparse_csr()), lambda t, x: t.values_copy(x), lambda t, x: t.indices_copy(x),
    lambda t, x: t.values_copy(x.to_sparse()), lambda t, x: t.indices_copy(x.to_sparse()),
    lambda t, x: t.crow_indices_copy(x), lambda t, x: t.ccol_indices_copy(x.to_sparse_csr()),
    lambda t, x: t.row_indices_copy(x), lambda t, x: t.view_as_real_copy(t.complex(x, -x)),
    lambda t, x: t.view_as_complex_copy(x[:, :2].contiguous()), lambda t, x: t.view_as_real_copy(x),
])
def test_copy_variants(call):
    dense = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]], np.float32)

    def fn(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(t, t.from_numpy(dense))
        return result.tolist(), str(result.dtype)

    _same_outcome(fn)


def test_copy_variants_are_fresh_and_differentiable():
    z = vtorch.tensor([1 + 2j, 3 - 1j])
    copied = vtorch.view_as_real_copy(z)
    copied[0, 0] = 9.0
    assert z.tolist() == [1 + 2j, 3 - 1j]
    _same_outcome(lambda t: t.view_as_complex_copy(t.ones(2, 2, requires_grad=True)))
    grads = []
    for lib in LIBS:
        leaf = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        (lib.view_as_real_copy(leaf) * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        grads.append(leaf.grad.tolist())
    assert grads[0] == grads[1]


# -- 4. linear_cross_entropy --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    dict(out=(), batched=True, probs=False), dict(out=(), batched=False, probs=False),
    dict(out=(3,), batched=True, probs=False), dict(out=(2, 3), batched=True, probs=True),
    dict(out=(), batched=True, probs=True), dict(out=(), batched=True, probs=False, ignore_index=1),
])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("extras", [dict(), dict(bias=True, weight=True, label_smoothing=0.2)])
def test_linear_cross_entropy(case, reduction, extras):
    rng = np.random.default_rng(3)
    n, in_features, classes = 4, 5, 6
    input_shape = (n, in_features) if case["batched"] else (in_features,)
    x = rng.standard_normal(input_shape).astype(np.float32)
    w = rng.standard_normal((classes, *case["out"], in_features)).astype(np.float32)
    arrays = [x, w]
    if extras.get("bias"):
        arrays.append(rng.standard_normal((classes, *case["out"])).astype(np.float32))
    batch = (n,) if case["batched"] else ()
    if case["probs"]:
        logits = rng.standard_normal((*batch, classes, *case["out"]))
        target = (np.exp(logits) / np.exp(logits).sum(axis=len(batch), keepdims=True)).astype(np.float32)
    else:
        target = rng.integers(0, classes, (*batch, *case["out"]))
    class_weight = rng.uniform(0.5, 2.0, classes).astype(np.float32) if extras.get("weight") else None

    def fn(t, a, weight, *bias):
        return t.nn.functional.linear_cross_entropy(
            a, weight, t.from_numpy(target), linear_bias=bias[0] if bias else None,
            weight=None if class_weight is None else t.from_numpy(class_weight), reduction=reduction,
            ignore_index=case.get("ignore_index"), label_smoothing=extras.get("label_smoothing", 0.0))

    check_grad(fn, *arrays, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 2, 3), t.ones(4, 3), t.zeros(2, dtype=t.long)),
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4), t.zeros(2, dtype=t.long)),
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4, 2), t.zeros(2, dtype=t.long)),
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4, 3), t.zeros(2, dtype=t.long),
                                                   linear_bias=t.ones(3)),
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(3), t.ones(4, 2, 3), t.zeros(2, dtype=t.long)),
    lambda t: t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4, 3), t.ones(2, 4) / 4, ignore_index=0),
])
def test_linear_cross_entropy_errors(call):
    _same_outcome(call)


def test_linear_cross_entropy_bad_target_type():
    # the message is cross_entropy's own (vfw words it differently); the exception type is torch's
    def call(t):
        return t.nn.functional.linear_cross_entropy(t.ones(2, 3), t.ones(4, 3), t.tensor([0, 7]))

    want, got = _outcome(lambda: call(torch)), _outcome(lambda: call(vtorch))
    assert want[0] == got[0] == "IndexError"


def test_linear_cross_entropy_module():
    results = []
    for lib in LIBS:
        lib.manual_seed(0)
        loss = lib.nn.LinearCrossEntropyLoss(5, 6, out_features=(2, 3), bias=True, label_smoothing=0.1)
        shapes = [(name, tuple(p.shape)) for name, p in loss.named_parameters()]
        x = lib.from_numpy(np.random.default_rng(4).standard_normal((4, 5)).astype(np.float32))
        target = lib.from_numpy(np.random.default_rng(5).integers(0, 6, (4, 2, 3)))
        value = loss(x, target)
        value.backward()
        results.append((repr(loss), shapes, value.item(), loss.linear.weight.grad.numpy()))
    assert results[0][:2] == results[1][:2]
    np.testing.assert_allclose(results[1][2], results[0][2], rtol=1e-5)
    np.testing.assert_allclose(results[1][3], results[0][3], rtol=1e-4, atol=1e-6)
    _same_outcome(lambda t: t.nn.LinearCrossEntropyLoss(5, 6, weight=t.ones(5)))
    _same_outcome(lambda t: t.nn.LinearCrossEntropyLoss(5, 6, label_smoothing=1.5))


def test_container():
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            container = lib.nn.Container(first=lib.nn.Linear(2, 3), second=lib.nn.ReLU())
        assert [(w.category, str(w.message)) for w in caught] == [
            (FutureWarning, "`nn.Container` is deprecated. All of its functionality is now implemented in "
                            "`nn.Module`. Subclass that instead.")]
        assert [name for name, _ in container.named_children()] == ["first", "second"]
        assert isinstance(container, lib.nn.Module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(vtorch.nn.Container(a=vtorch.nn.ReLU())) == repr(torch.nn.Container(a=torch.nn.ReLU()))


# -- 5. Tensor methods ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["xpu", "ipu", "mtia"])
def test_tensor_device_methods(method):
    _same_outcome(lambda t: getattr(t.ones(2), method)())
    _same_outcome(lambda t: getattr(t.ones(2), method)(non_blocking=True))


@pytest.mark.parametrize("method", ["coalesce", "is_coalesced", "indices", "values", "crow_indices", "col_indices",
                                    "ccol_indices", "row_indices"])
@pytest.mark.parametrize("layout", ["dense", "coo", "csr"])
def test_tensor_methods_by_layout(method, layout):
    def call(t):
        x = t.tensor([[0.0, 1.0], [2.0, 0.0]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = {"dense": x, "coo": x.to_sparse(), "csr": x.to_sparse_csr()}[layout]
            result = getattr(x, method)()
        return result if isinstance(result, bool) else result.tolist()

    _same_outcome(call)


@pytest.mark.parametrize("stream", [None, 3])
def test_record_stream(stream):
    _same_outcome(lambda t: t.ones(2).record_stream(stream))
