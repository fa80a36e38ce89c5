"""Tensor memory/layout methods (nonzero_static, as_strided_(scatter), dim_order, as_subclass, is_set_to,
post-accumulate-grad hooks...), the ``*_copy`` functions, and top-level extras (empty_permuted, cond,
frobenius_norm, deterministic debug mode, removed linalg functions) against real torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

X = arrays((2, 3, 4), seed=3)
M = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]], np.float32)

COPY_CASES = [
    ("alias", lambda t, x: t.alias_copy(x)),
    ("as_strided", lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 1)),
    ("diagonal", lambda t, x: t.diagonal_copy(x, 1, 1, 2)),
    ("expand", lambda t, x: t.expand_copy(x[:, :1], (2, 3, 4))),
    ("permute", lambda t, x: t.permute_copy(x, (2, 0, 1))),
    ("select", lambda t, x: t.select_copy(x, 1, -1)),
    ("slice", lambda t, x: t.slice_copy(x, 2, 1, None, 2)),
    ("slice_default", lambda t, x: t.slice_copy(x)),
    ("split", lambda t, x: t.split_copy(x, 2, 2)),
    ("split_with_sizes", lambda t, x: t.split_with_sizes_copy(x, [1, 2], 1)),
    ("squeeze", lambda t, x: t.squeeze_copy(x[:1, :, None])),
    ("squeeze_dims", lambda t, x: t.squeeze_copy(x[:1, :, None], (0, 2))),
    ("t", lambda t, x: t.t_copy(x[0])),
    ("transpose", lambda t, x: t.transpose_copy(x, 0, 2)),
    ("unbind", lambda t, x: t.unbind_copy(x, 1)),
    ("unfold", lambda t, x: t.unfold_copy(x, 2, 2, 1)),
    ("unsqueeze", lambda t, x: t.unsqueeze_copy(x, -1)),
    ("view", lambda t, x: t.view_copy(x, (6, 4))),
    ("unsafe_split", lambda t, x: t.unsafe_split(x, 1)),
    ("unsafe_chunk", lambda t, x: t.unsafe_chunk(x, 2, 2)),
    ("unsafe_split_with_sizes", lambda t, x: t.unsafe_split_with_sizes(x, [2, 1], 1)),
]


@pytest.mark.parametrize("case", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copy_variants(case):
    check_grad(case[1], X)


def test_copy_variants_errors():
    check(lambda t, x: t.view_copy(x.transpose(0, 1), (6, 4)), X)
    check(lambda t, x: t.select_copy(x, 0, 5), X)
    check(lambda t, x: t.permute_copy(x, (0, 1)), X)


def test_copy_variants_copy_contiguously():
    for lib in (real, vt):
        x = lib.from_numpy(X.copy())
        out = lib.permute_copy(x, (2, 0, 1))
        assert out.stride() == (6, 3, 1) and out.data_ptr() != x.data_ptr()
        assert lib.view_copy(x, lib.int32).dtype == lib.int32
        assert lib.alias_copy(x).data_ptr() != x.data_ptr()
    assert not vt.detach_copy(vt.ones(2, requires_grad=True)).requires_grad


NONZERO_CASES = [
    ("pad", lambda t, m: t.nonzero_static(m, size=5)),
    ("truncate", lambda t, m: m.nonzero_static(size=2, fill_value=7)),
    ("empty", lambda t, m: t.nonzero_static(m, size=0)),
    ("scalar", lambda t, m: t.nonzero_static(m[0, 1], size=2)),
    ("negative", lambda t, m: t.nonzero_static(m, size=-1)),
]


@pytest.mark.parametrize("case", NONZERO_CASES, ids=[c[0] for c in NONZERO_CASES])
def test_nonzero_static(case):
    check(case[1], M)


def _strided_scatter(t, base, src, size, stride, offset=None):
    return t.as_strided_scatter(base * 1, src * 2, size, stride, offset)


def test_as_strided_scatter_values_and_src_gradient():
    check(lambda t, b, s: t.as_strided_scatter(b, s, (2, 2), (1, 2), 1), np.zeros(6, np.float32),
          np.ones((2, 2), np.float32))
    check(lambda t, b, s: b.as_strided_scatter(s, (2,), (4,)), np.zeros((3, 3), np.float32), np.ones(2, np.float32))
    check(lambda t, b, s: b.t().as_strided_scatter(s, (2,), (1,)), np.zeros((3, 3), np.float32),
          np.arange(2, dtype=np.float32))
    check(lambda t, b, s: b.as_strided_scatter(s, (2,), (4,)), np.zeros((3, 3), np.float32), np.ones(3, np.float32))
    src = arrays((2, 2), seed=5)
    grads = []
    for lib in (real, vt):
        s = lib.from_numpy(src.copy()).requires_grad_()
        out = lib.as_strided_scatter(lib.zeros(6), s, (2, 2), (1, 2), 1)
        (out * lib.arange(6.0)).sum().backward()
        grads.append(s.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_as_strided_scatter_input_gradient_by_finite_differences():
    # torch 2.13's own input gradient fails its gradcheck (it sends the gradient to the overwritten positions
    # only): vfw's is checked against central differences of the function itself.
    start = np.arange(6, dtype=np.float64)
    weights = np.linspace(1, 2, 6)

    def loss(values):
        out = vt.as_strided_scatter(vt.from_numpy(values), vt.ones(2, 2, dtype=vt.float64), (2, 2), (1, 2), 1)
        return float((out * vt.from_numpy(weights)).sum())

    base = vt.from_numpy(start.copy()).requires_grad_()
    out = vt.as_strided_scatter(base, vt.ones(2, 2, dtype=vt.float64), (2, 2), (1, 2), 1)
    (out * vt.from_numpy(weights)).sum().backward()
    step = 1e-6
    numeric = [(loss(start + step * e) - loss(start - step * e)) / (2 * step) for e in np.eye(6)]
    np.testing.assert_allclose(base.grad.numpy(), numeric, atol=1e-8)
    assert base.grad.numpy()[1:5].tolist() == [0.0] * 4


def test_as_strided_in_place():
    def fn(t, a):
        b = a.clone()
        r = b.as_strided_((3, 2), (1, 3), 1)
        return r is b, b.shape, b.stride(), b.storage_offset(), b
    check(fn, np.arange(12, dtype=np.float32))


def test_new_empty_strided():
    for lib in (real, vt):
        a = lib.arange(12.0)
        e = a.new_empty_strided((2, 3), (1, 2))
        assert (e.shape, e.stride(), e.dtype) == (lib.Size([2, 3]), (1, 2), lib.float32)
        assert a.new_empty_strided((2, 3), (3, 1), dtype=lib.int32).dtype == lib.int32
        assert a.new_empty_strided((2,), (1,), requires_grad=True).requires_grad


def _strided_view(lib, shape, strides):
    return lib.zeros(64).as_strided(shape, strides)


DIM_ORDER_LAYOUTS = [
    ((2, 3, 4), (12, 4, 1)), ((4, 2, 3), (1, 12, 4)), ((4, 2, 3), (0, 3, 1)), ((2, 4, 3), (3, 0, 1)),
    ((1, 2, 3), (6, 3, 1)), ((2, 1, 3), (3, 3, 1)), ((2, 3, 1), (3, 1, 1)), ((1, 3), (1, 1)), ((0, 3), (3, 1)),
    ((2, 3, 2), (12, 4, 2)), ((2, 2), (1, 4)), ((3, 2, 4), (1, 3, 0)), ((5, 3), (1, 0)), ((2, 2, 2, 3), (12, 1, 6, 2)),
]


@pytest.mark.parametrize("layout", DIM_ORDER_LAYOUTS, ids=[str(c) for c in DIM_ORDER_LAYOUTS])
@pytest.mark.parametrize("ambiguity_check", [False, True, "contiguous", "both"])
def test_dim_order(layout, ambiguity_check):
    def fn(t):
        formats = {"contiguous": [t.contiguous_format], "both": [t.contiguous_format, t.channels_last]}
        return _strided_view(t, *layout).dim_order(ambiguity_check=formats.get(ambiguity_check, ambiguity_check))
    check(fn)


def test_dim_order_bad_argument():
    check(lambda t: t.zeros(2, 3).dim_order(ambiguity_check=5))
    check(lambda t: t.zeros(()).dim_order())


def test_as_subclass_shares_memory_and_history():
    for lib in (real, vt):
        class Sub(lib.Tensor):
            pass
        p = lib.ones(3, requires_grad=True)
        q = (p * 2).as_subclass(Sub)
        assert type(q) is Sub and q.requires_grad and q.data_ptr() != p.data_ptr()
        q.sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2, 2])
        a = lib.arange(3.0)
        s = a.as_subclass(Sub)
        assert type(s) is Sub and s.data_ptr() == a.data_ptr() and not s.requires_grad
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            a.as_subclass(int)


def test_dense_answers_and_pointers():
    for lib in (real, vt):
        x = lib.from_numpy(X.copy())
        assert (x.dense_dim(), x.sparse_dim(), x.to_dense() is x) == (3, 0, True)
        assert x.to_dense(dtype=lib.float64).dtype == lib.float64
        assert x.const_data_ptr() == x.data_ptr()
        assert x.is_set_to(x.detach()) and x[1:].is_set_to(x[1:])
        assert not x[1:].is_set_to(x[:1]) and not x.view(6, 4).is_set_to(x) and not x.is_set_to(x.clone())
        with pytest.raises(TypeError):
            x.is_set_to(3)
        with pytest.raises(RuntimeError, match="accelerator"):
            x.pin_memory()
        assert not x.is_pinned()


def test_prelu_hardshrink_methods():
    check_grad(lambda t, x, w: x.prelu(w), X, np.array([0.25, -0.5, 2.0], np.float32)[:, None, None].repeat(1, 0)
               .reshape(3))
    check_grad(lambda t, x: x.hardshrink(), X)
    check_grad(lambda t, x: x.hardshrink(1.5), X)


def test_post_accumulate_grad_hook():
    seen = {}
    for lib in (real, vt):
        log = []
        p = lib.ones(3, requires_grad=True)
        handle = p.register_post_accumulate_grad_hook(lambda t, log=log: log.append(t.grad.clone().numpy()))
        (p * 2).sum().backward()
        (p * 3).sum().backward()
        lib.autograd.grad((p * 2).sum(), p)  # grad() accumulates nothing: no call
        (p * 2).sum().backward(inputs=[p])
        handle.remove()
        (p * 2).sum().backward()
        q = lib.ones(2, requires_grad=True)
        q.register_hook(lambda g: g * 10)
        q.register_post_accumulate_grad_hook(lambda t, log=log: log.append(t.grad.clone().numpy()))
        (q * 2).sum().backward()
        seen[lib] = log
        with pytest.raises(RuntimeError, match="non-leaf"):
            (p * 2).register_post_accumulate_grad_hook(print)
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.ones(2).register_post_accumulate_grad_hook(print)
    assert len(seen[real]) == len(seen[vt]) == 4
    for want, got in zip(seen[real], seen[vt]):
        np.testing.assert_array_equal(got, want)


def test_empty_permuted():
    for lib in (real, vt):
        assert lib.empty_permuted((2, 3, 4), (2, 0, 1)).stride() == (3, 1, 6)
        e = lib.empty_permuted((2, 3), (1, 0), dtype=lib.int64, requires_grad=False)
        assert (e.stride(), e.dtype) == ((1, 2), lib.int64)
    for bad in [(1,), (0, 0), (1, 2)]:
        check(lambda t, bad=bad: t.empty_permuted((2, 3), bad))


COND_CASES = [
    ("tensor_true", lambda t, x: t.cond(t.tensor(True), lambda v: v + 1, lambda v: v - 1, (x,))),
    ("python_false", lambda t, x: t.cond(False, lambda v: v + 1, lambda v: v - 1, (x,))),
    ("int", lambda t, x: t.cond(1, lambda v: v + 1, lambda v: v - 1, [x])),
    ("tuple_out", lambda t, x: t.cond(True, lambda v: (v + 1, v), lambda v: (v - 1, v), (x,))),
    ("no_operands", lambda t, x: t.cond(True, lambda: x * 2, lambda: x)),
]


@pytest.mark.parametrize("case", COND_CASES, ids=[c[0] for c in COND_CASES])
def test_cond(case):
    check_grad(case[1], X[0])


def test_cond_bad_predicate():
    check(lambda t, x: t.cond(t.tensor([True, False]), lambda v: v, lambda v: v, (x,)), X[0])


FROBENIUS_CASES = [
    ("dim_keepdim", lambda t, x: t.frobenius_norm(x, (1,), True)),
    ("int_dim", lambda t, x: t.frobenius_norm(x, 1)),
    ("two_dims", lambda t, x: t.frobenius_norm(x, (0, 2))),
    ("three_dims", lambda t, x: t.frobenius_norm(x, (0, 1, 1))),
    ("integer", lambda t, x: t.frobenius_norm(x.long(), (0, 1))),
    ("no_dim", lambda t, x: t.frobenius_norm(x)),
]


@pytest.mark.parametrize("case", FROBENIUS_CASES, ids=[c[0] for c in FROBENIUS_CASES])
def test_frobenius_norm(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_grad(case[1], X) if case[0] not in ("integer", "three_dims", "no_dim") else check(case[1], X)


def test_deterministic_debug_mode():
    for lib in (real, vt):
        try:
            states = []
            for mode in ("error", 1, "default", 2, 0, "warn"):
                lib.set_deterministic_debug_mode(mode)
                states.append((lib.get_deterministic_debug_mode(), lib.are_deterministic_algorithms_enabled(),
                               lib.is_deterministic_algorithms_warn_only_enabled()))
            assert states == [(2, True, False), (1, True, True), (0, False, False), (2, True, False),
                              (0, False, False), (1, True, True)]
            with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got foo"):
                lib.set_deterministic_debug_mode("foo")
            with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 5"):
                lib.set_deterministic_debug_mode(5)
            with pytest.raises(TypeError, match="must be str or int"):
                lib.set_deterministic_debug_mode(1.0)
            assert lib.init_num_threads() is None
        finally:
            lib.set_deterministic_debug_mode(0)


@pytest.mark.parametrize("name", ["symeig", "solve", "eig", "lstsq"])
def test_removed_linalg_functions(name):
    two_args = name in ("solve", "lstsq")
    messages = []
    for lib in (real, vt):
        x = lib.ones(3, 3)
        with pytest.raises(RuntimeError) as function_error:
            getattr(lib, name)(*((x, x) if two_args else (x,)))
        with pytest.raises(RuntimeError) as method_error:
            getattr(x, name)(*((x,) if two_args else ()))
        messages.append((str(function_error.value), str(method_error.value)))
    assert messages[1] == messages[0]
