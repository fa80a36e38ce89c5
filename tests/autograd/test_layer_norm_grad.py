"""LayerNormalizationGrad (the fused gradient of LayerNormalization's Y, also used by Group- and
InstanceNormalization), checked against central differences of the forward kernels and against the composition
of engine ops the makers record when the backward is itself differentiated."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from vfw.core import ShapeError, Tensor, autograd, execute, get_schema, run

RNG = np.random.default_rng(5)

LN_CASES = [((4, 6), -1, (6,)), ((2, 3, 4), 1, (3, 4)), ((2, 3, 4), -1, (2, 1, 4)), ((2, 3, 4), 2, (1, 1)),
            ((5,), 0, ()), ((3, 2, 2), 0, (3, 2, 2))]


def engine_grads(op_type, inputs, attrs, create_graph):
    """Gradients of ``<w, op(inputs)[0]>`` to every input, with the backward recorded or not."""
    tensors = [Tensor(a, requires_grad=True) for a in inputs]
    out = execute(op_type, *tensors, **attrs)
    y = out[0] if isinstance(out, tuple) else out
    w = Tensor(np.random.default_rng(0).standard_normal(y.array.shape).astype(y.array.dtype))
    return [g.array for g in autograd.gradient([y], tensors, [w], create_graph=create_graph)]


@pytest.mark.parametrize("shape,axis,scale_shape", LN_CASES)
def test_layer_norm_fused_gradient(shape, axis, scale_shape):
    inputs = [RNG.standard_normal(shape), RNG.standard_normal(scale_shape), RNG.standard_normal(scale_shape)]
    check_gradient("LayerNormalization", inputs, {"axis": axis, "epsilon": 0.1}, outputs=[0])
    for fused, composed in zip(engine_grads("LayerNormalization", inputs, {"axis": axis}, False),
                               engine_grads("LayerNormalization", inputs, {"axis": axis}, True)):
        np.testing.assert_allclose(fused, composed, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op_type,attrs,shape", [("GroupNormalization", {"num_groups": 2}, (3, 4, 5)),
                                                 ("GroupNormalization", {"num_groups": 3}, (2, 6)),
                                                 ("GroupNormalization", {"num_groups": 1}, (2, 3, 2, 2)),
                                                 ("InstanceNormalization", {}, (2, 3, 5)),
                                                 ("InstanceNormalization", {}, (2, 2, 3, 2))])
def test_group_norms_use_the_fused_gradient(op_type, attrs, shape):
    c = shape[1]
    inputs = [RNG.standard_normal(shape), RNG.standard_normal(c), RNG.standard_normal(c)]
    check_gradient(op_type, inputs, attrs)
    for fused, composed in zip(engine_grads(op_type, inputs, attrs, False), engine_grads(op_type, inputs, attrs, True)):
        np.testing.assert_allclose(fused, composed, rtol=1e-10, atol=1e-12)


def test_group_norm_wide_stash_gradient_is_float64():
    # stash_type float64: the forward computes in float64 for float32 X, and so does the gradient.
    inputs = [RNG.standard_normal((2, 4, 3)).astype(np.float32), np.ones(4, np.float32), np.zeros(4, np.float32)]
    attrs = {"num_groups": 2, "stash_type": 11}
    got = engine_grads("GroupNormalization", inputs, attrs, False)
    want = engine_grads("GroupNormalization", [a.astype(np.float64) for a in inputs], attrs, False)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_kernel_formula():
    x, scale, dy = RNG.standard_normal((3, 5)), RNG.standard_normal(5), RNG.standard_normal((3, 5))
    dx, dscale = run("LayerNormalizationGrad", dy, x, scale, epsilon=0.2)
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    inv = 1 / np.sqrt(var + 0.2)
    xhat = (x - mean) * inv
    gs = dy * scale
    want = inv * (gs - gs.mean(axis=1, keepdims=True) - xhat * (gs * xhat).mean(axis=1, keepdims=True))
    np.testing.assert_allclose(dx, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dscale, (dy * xhat).sum(axis=0), rtol=1e-10)


def test_kernel_with_strided_output_gradient():
    # dY arriving as a transpose (e.g. through a batch_first attention block) must give the contiguous result
    x, scale = RNG.standard_normal((4, 3, 5)), RNG.standard_normal(5)
    dy = np.ascontiguousarray(RNG.standard_normal((3, 4, 5))).transpose(1, 0, 2)
    for a, b in zip(run("LayerNormalizationGrad", dy, x, scale), run("LayerNormalizationGrad", dy.copy(), x, scale)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_float32_far_from_zero_keeps_float64_accuracy():
    x = (1e4 + RNG.standard_normal((8, 64))).astype(np.float32)
    dy, scale = RNG.standard_normal(x.shape).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    got = run("LayerNormalizationGrad", dy, x, scale)
    want = run("LayerNormalizationGrad", *(a.astype(np.float64) for a in (dy, x, scale)))
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        assert np.abs(g - w).max() <= 2e-6 * np.abs(w).max()


def test_half_inputs_give_half_gradients():
    x, scale, dy = (RNG.standard_normal(s).astype(np.float16) for s in ((4, 6), (6,), (4, 6)))
    got = run("LayerNormalizationGrad", dy, x, scale)
    want = run("LayerNormalizationGrad", *(a.astype(np.float64) for a in (dy, x, scale)))
    for g, w in zip(got, want):
        assert g.dtype == np.float16
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=3e-3, atol=3e-3)


def test_bad_input_and_declaration():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ShapeError, match=r"LayerNormalizationGrad: dY .* and X .* must have the same shape"):
        run("LayerNormalizationGrad", x[:1], x, np.ones(3, np.float32))
    with pytest.raises(ShapeError, match="LayerNormalizationGrad: Scale"):
        run("LayerNormalizationGrad", x, x, np.ones(2, np.float32))
    assert get_schema("LayerNormalizationGrad").differentiable is False
