"""Fixes found by the round-18 programs (``compat_tests/programs/torch_more18``): adaptive average pooling (and
``interpolate(mode="area")``) to torch's bits and node names, interpolate's scale_factor message, jacobian's
forward-mode strategy, and scaled_dot_product_attention taking a mask with ``is_causal`` where torch's CPU flash
kernel runs; each against real torch 2.13."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

from compat_tests.torch.harness import check_outcome  # noqa: E402


# -- adaptive average pooling ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape, size", [
    ((4, 8, 5, 5), 2), ((2, 3, 7, 9), (3, 4)), ((1, 4, 10, 6), (4, 5)), ((4, 8, 6, 6), (2, 3)),
    ((2, 3, 14, 14), 5), ((2, 3, 4, 4), (6, 6)), ((2, 3, 7, 7), 7), ((3, 5, 5), (2, None)), ((2, 3, 9), 4),
    ((2, 2, 4, 5, 6), (3, 2, 4)), ((2, 3, 12, 8), (4, 2))])
def test_adaptive_avg_pool_gives_torchs_bits(shape, size):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32) * 3
    nd = 3 if len(shape) == 5 else 2 if isinstance(size, tuple) and len(size) == 2 or len(shape) == 4 else 1
    name = f"adaptive_avg_pool{nd}d"
    results = []
    for lib in (torch, vt):
        xt = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, name)(xt, size)
        (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
        results.append((y.detach().numpy(), xt.grad.numpy(), y.grad_fn.name()))
    (want, want_grad, want_name), (got, got_grad, got_name) = results
    np.testing.assert_array_equal(got, want)  # summed in torch's order, divided as torch divides
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6, atol=1e-5)
    assert got_name == want_name


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_adaptive_avg_pool_other_float_dtypes(dtype):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 5)).astype(np.float32)
    got, want = (lib.nn.functional.adaptive_avg_pool2d(lib.tensor(x).to(getattr(lib, dtype)), (3, 2)).float().numpy()
                 for lib in (vt, torch))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.interpolate(lib.arange(150.0).reshape(2, 3, 5, 5), scale_factor=0.5, mode="area"),
    lambda lib: lib.nn.functional.interpolate(lib.arange(48.0).reshape(2, 3, 8), size=5, mode="area"),
    lambda lib: lib.nn.AdaptiveAvgPool2d((3, 5))(lib.arange(128.0).reshape(2, 1, 8, 8) / 7),
    lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 5, 5), 0),
    lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 5, 5, dtype=lib.int64), 2),
], ids=["area_halving", "area_1d", "module_uneven", "zero_size", "integer_input"])
def test_adaptive_avg_pool_reprs(fn):
    check_outcome(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 5, 5, requires_grad=True), 1),
    lambda lib: lib.nn.functional.adaptive_avg_pool3d(lib.ones(3, 4, 5, 6, requires_grad=True), 1),
    lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.ones(2, 3, 5, requires_grad=True), 1),
    lambda lib: lib.nn.AdaptiveAvgPool2d((None, 2))(lib.ones(2, 3, 5, 5, requires_grad=True)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 5, 5, requires_grad=True), size=1, mode="area"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 5, requires_grad=True), size=3, mode="area"),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 5, 5, requires_grad=True), scale_factor=0.3,
                                              mode="area"),
], ids=["global_2d", "global_3d_unbatched", "global_1d", "keep_dim", "area_to_one", "area_1d", "area_scaled"])
def test_adaptive_avg_pool_node_names(fn):
    assert fn(vt).grad_fn.name() == fn(torch).grad_fn.name()


def test_area_interpolation_exports_to_onnx_as_before():
    """ONNX export keeps the AveragePool / GlobalAveragePool form (not the gather that matches torch's bits)."""
    import io

    import onnx

    buffer = io.BytesIO()
    vt.onnx.export(vt.nn.Sequential(vt.nn.Conv2d(3, 4, 3), vt.nn.AdaptiveAvgPool2d(1)), (vt.randn(1, 3, 8, 8),),
                   buffer)
    ops = {n.op_type for n in onnx.load_from_string(buffer.getvalue()).graph.node}
    assert "GlobalAveragePool" in ops and "Gather" not in ops


# -- interpolate -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 4, 4), scale_factor=(2, 2, 2)),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 4, 4), scale_factor=[2.0]),
    lambda lib: lib.nn.functional.interpolate(lib.ones(2, 3, 4, 4), size=(3, 3, 3)),
], ids=["tuple", "list", "size"])
def test_interpolate_dimension_mismatch_messages(fn):
    check_outcome(fn)


# -- jacobian(strategy="forward-mode") ---------------------------------------------------------------------
def _f(lib):
    return lambda x: lib.tanh(x * 2) * x.sum()


@pytest.mark.parametrize("kwargs", [dict(), dict(strict=True), dict(create_graph=True),
                                    dict(strict=True, vectorize=True, create_graph=True),
                                    dict(strict=True, vectorize=True)], ids=str)
def test_forward_mode_jacobian_refusals(kwargs):
    check_outcome(lambda lib: lib.autograd.functional.jacobian(_f(lib), lib.tensor([0.3, -0.7, 1.1]),
                                                               strategy="forward-mode", **kwargs))


def _structure(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree).__name__, [_structure(t) for t in tree]
    return tuple(tree.shape)


@pytest.mark.parametrize("make", [
    lambda lib: (lambda x: lib.tanh(x * 2) * x.sum(), lib.tensor([0.3, -0.7, 1.1])),
    lambda lib: (lambda x, y: x.exp() * y.sum(), (lib.tensor([0.3, -0.7]), lib.tensor([1.0, 2.0, 0.5]))),
    lambda lib: (lambda x: (x.sin(), x.prod()), lib.tensor([0.3, -0.7, 1.1])),
    lambda lib: (lambda x: (x.sin(),), (lib.tensor([0.3, -0.7, 1.1]),)),
    lambda lib: (lambda x, y: (x * y.sum(), (x.exp() * y.mean()).sum()), (lib.tensor([0.3, 0.7]),
                                                                          lib.tensor([1.0, 2.0, 0.5]))),
], ids=["tensor", "tuple_in", "tuple_out", "tuples_of_one", "tuples"])
def test_forward_mode_jacobian_values_and_nesting(make):
    got = vt.autograd.functional.jacobian(*make(vt), vectorize=True, strategy="forward-mode")
    want = torch.autograd.functional.jacobian(*make(torch), vectorize=True, strategy="forward-mode")
    assert _structure(got) == _structure(want)
    flat_got = np.concatenate([t.numpy().ravel() for t in _leaves(got)])
    flat_want = np.concatenate([t.numpy().ravel() for t in _leaves(want)])
    np.testing.assert_allclose(flat_got, flat_want, rtol=1e-6, atol=1e-7)


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for t in tree for leaf in _leaves(t)]
    return [tree.detach()]


def test_hessian_with_forward_mode_outer_jacobian():
    def make(lib):
        return lambda x, y: (x.pow(3) * y).sum() + (x * y.exp()).prod(), (lib.tensor([0.3, -0.7]),
                                                                           lib.tensor([1.0, 0.5]))
    got = vt.autograd.functional.hessian(*make(vt), vectorize=True, outer_jacobian_strategy="forward-mode")
    want = torch.autograd.functional.hessian(*make(torch), vectorize=True, outer_jacobian_strategy="forward-mode")
    assert _structure(got) == _structure(want)
    np.testing.assert_allclose(np.concatenate([t.numpy().ravel() for t in _leaves(got)]),
                               np.concatenate([t.numpy().ravel() for t in _leaves(want)]), rtol=1e-6)


# -- scaled_dot_product_attention: attn_mask with is_causal ------------------------------------------------
def _qkv(lib, shape=(2, 2, 5, 4)):
    g = np.random.default_rng(7)
    return [lib.tensor(g.standard_normal(shape).astype(np.float32)) for _ in range(3)]


_KEEP = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)


@pytest.mark.parametrize("mask, kwargs", [
    (lambda lib: lib.tensor(_KEEP).view(2, 1, 1, 5), {}),
    (lambda lib: lib.tensor(_KEEP[:1]), {}),
    (lambda lib: lib.tensor(np.tril(np.ones((5, 5), bool), -1)), {}),  # fully masked first query: zeros
    (lambda lib: lib.linspace(-1, 1, 25).reshape(5, 5), {}),
    (lambda lib: lib.linspace(-1, 1, 50).reshape(1, 2, 5, 5), dict(scale=0.3)),
], ids=["key_padding", "row", "strict_lower", "float", "float_4d_scaled"])
def test_mask_with_is_causal_on_the_flash_kernel(mask, kwargs):
    results = []
    for lib in (torch, vt):
        q, k, v = _qkv(lib)
        q.requires_grad_()
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask(lib), is_causal=True, **kwargs)
        y.pow(2).sum().backward()
        results.append((y.detach().numpy(), q.grad.numpy(), y.grad_fn.name()))
    (want, want_grad, want_name), (got, got_grad, got_name) = results
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)
    assert got_name == want_name


@pytest.mark.parametrize("fn", [
    lambda lib: lib.nn.functional.scaled_dot_product_attention(*[t[0] for t in _qkv(lib)],
                                                               attn_mask=lib.ones(5, 5, dtype=lib.bool),
                                                               is_causal=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(*_qkv(lib), attn_mask=lib.ones(2, 5, 5, dtype=lib.bool),
                                                               is_causal=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(*_qkv(lib), attn_mask=lib.ones(5, 6, dtype=lib.bool),
                                                               is_causal=True),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(*_qkv(lib), attn_mask=lib.ones(5, 5, dtype=lib.bool),
                                                               is_causal=True, dropout_p=0.2),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(*_qkv(lib), attn_mask=lib.ones(5, 5, dtype=lib.int64),
                                                               is_causal=True),
], ids=["3d_inputs", "3d_mask", "mask_shape", "dropout", "integer_mask"])
def test_mask_with_is_causal_refused_off_the_flash_kernel(fn):
    check_outcome(fn)


@pytest.mark.parametrize("make", [
    lambda lib, q: lib.nn.functional.scaled_dot_product_attention(q, q, q),
    lambda lib, q: lib.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.2),
    lambda lib, q: lib.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.1),
    lambda lib, q: lib.nn.functional.scaled_dot_product_attention(q[0], q[0], q[0]),
    lambda lib, q: lib.nn.functional.scaled_dot_product_attention(q.double(), q.double(), q.double()),
], ids=["plain", "causal", "dropout", "3d", "double"])
def test_attention_node_names(make):
    names = []
    for lib in (torch, vt):
        q = lib.ones(1, 2, 4, 3, requires_grad=True)
        names.append(make(lib, q).grad_fn.name())
    assert names[0] == names[1]


# -- functional_call with tied weights ----------------------------------------------------------------------
def _tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2, bias=False)
            self.b = self.a
            self.register_buffer("z", lib.ones(1))
            self.register_buffer("z2", self.z)

        def forward(self, x):
            return self.b(self.a(x)) * self.z2

    lib.manual_seed(0)
    return Tied()


@pytest.mark.parametrize("values, kwargs", [
    (lambda lib, e: {"a.weight": e, "b.weight": e}, {}),
    (lambda lib, e: {"a.weight": e, "b.weight": e.clone()}, {}),
    (lambda lib, e: {"b.weight": e, "a.weight": e * 2, **dict.fromkeys(("z", "z2"), lib.ones(1))}, {}),
    (lambda lib, e: {"z2": lib.ones(1), "z": lib.ones(1)}, {}),
    (lambda lib, e: {"a.weight": e * 2, "b.weight": e}, dict(tie_weights=False)),
    (lambda lib, e: {"b.weight": e * 3}, {}),
], ids=["same_tensor", "two_tensors", "one_of_two_groups", "buffers", "untied", "one_name"])
def test_functional_call_refuses_two_values_for_tied_names(values, kwargs):
    check_outcome(lambda lib: lib.func.functional_call(_tied(lib), values(lib, lib.eye(2)), (lib.ones(1, 2),),
                                                       **kwargs))
