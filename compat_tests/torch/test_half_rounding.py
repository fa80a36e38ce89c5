"""float16 / bfloat16 results of functions made of several steps, against real torch 2.13: torch's CPU kernels
compute them in float32 and round once (silu, rsqrt, deg2rad, rad2deg; linear with a bias over a contiguous input,
one addmm), so every element must agree bit for bit."""

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

UNARY = {
    "silu": lambda lib, x: lib.nn.functional.silu(x),
    "silu_inplace": lambda lib, x: lib.nn.functional.silu(x.clone(), inplace=True),
    "silu_module": lambda lib, x: lib.nn.SiLU()(x),
    "rsqrt": lambda lib, x: x.abs().rsqrt(),
    "rsqrt_": lambda lib, x: x.abs().rsqrt_(),
    "deg2rad": lambda lib, x: lib.deg2rad(x),
    "rad2deg": lambda lib, x: x.rad2deg(),
}


def _values(lib, dtype_name):
    lib.manual_seed(0)
    return (lib.randn(4096) * 3).to(getattr(lib, dtype_name))


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_rounded_once(fn, dtype_name):
    want = UNARY[fn](real, _values(real, dtype_name))
    got = UNARY[fn](vt, _values(vt, dtype_name))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_silu_gradient(dtype_name):
    def run(lib):
        x = _values(lib, dtype_name)[:512].requires_grad_()
        y = lib.nn.functional.silu(x)
        y.float().pow(2).sum().backward()
        return y.detach().float().numpy(), x.grad.float().numpy()
    for g, w in zip(run(vt), run(real)):
        np.testing.assert_allclose(g, w, rtol=1e-2, atol=1e-3)  # one bf16 ulp: torch's backward kernel is fused


INPUTS = {"1d": lambda lib: lib.randn(8), "2d": lambda lib: lib.randn(16, 8), "3d": lambda lib: lib.randn(4, 4, 8),
          "4d": lambda lib: lib.randn(2, 2, 4, 8), "3d_transposed": lambda lib: lib.randn(4, 8, 4).transpose(1, 2)}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", sorted(INPUTS))
@pytest.mark.parametrize("grad", [False, True])
def test_linear_with_bias(shape, dtype_name, grad):
    def run(lib):
        lib.manual_seed(5)
        d = getattr(lib, dtype_name)
        w, b, x = lib.randn(32, 8).to(d), lib.randn(32).to(d), INPUTS[shape](lib).to(d)
        if grad:
            x.requires_grad_()
        y = lib.nn.functional.linear(x, w, b)
        return y.detach().float().numpy()
    np.testing.assert_array_equal(run(vt), run(real))


def test_linear_under_autocast_no_grad():
    def run(lib):
        lib.manual_seed(5)
        layer = lib.nn.Linear(8, 32)
        with lib.no_grad(), lib.autocast("cpu", dtype=lib.bfloat16):
            y = layer(lib.randn(16, 8))
        return str(y.dtype), y.float().numpy()
    got, want = run(vt), run(real)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])


SCALED = {
    "mul": lambda lib, x: x * 3.3, "rmul": lambda lib, x: 0.37 * x, "div": lambda lib, x: x / 3.3,
    "rdiv": lambda lib, x: 3.3 / x, "mul_0d": lambda lib, x: x * lib.tensor(3.3), "div_0d_double":
    lambda lib, x: x / lib.tensor(3.3, dtype=lib.float64), "torch.mul": lambda lib, x: lib.mul(x, 1e-3),
    "torch.div": lambda lib, x: lib.div(x, 7.1), "mul_": lambda lib, x: x.clone().mul_(3.3),
    "imul": lambda lib, x: x.clone().__imul__(0.1), "itruediv": lambda lib, x: x.clone().__itruediv__(3.3),
    "add": lambda lib, x: x + 3.3, "rsub": lambda lib, x: 0.1 - x,
    "lerp": lambda lib, x: x.lerp(x * 2, 0.3), "lerp_far": lambda lib, x: x.lerp(x * 3, 0.7),
}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", sorted(SCALED))
def test_scalar_products_round_as_torch(fn, dtype_name):
    # torch multiplies/divides half-precision tensors in float32 by the scalar as given (not rounded to half first)
    want = SCALED[fn](real, _values(real, dtype_name))
    got = SCALED[fn](vt, _values(vt, dtype_name))
    assert got.dtype == getattr(vt, dtype_name)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_scalar_product_gradient(dtype_name):
    grads = []
    for lib in (real, vt):
        x = _values(lib, dtype_name).requires_grad_()
        (x * 3.3 / 0.7).sum().backward()
        grads.append(x.grad.float().numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def _normal(lib, dtype_name, *shape):
    lib.manual_seed(0)
    return (lib.randn(*shape) * 3 + 1).to(getattr(lib, dtype_name))


STEPPED = {  # torch's CPU kernels: 3-d attention in float32, bfloat16 x**3 and x**-2 rounded after each product
    "log_softmax_middle": lambda lib, x: lib.log_softmax(x, 1),
    "log_softmax_first": lambda lib, x: x.log_softmax(0),
    "sdpa_3d": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(x, x * 0.5, x),
    "sdpa_3d_causal": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(x, x * 0.5, x, is_causal=True),
    "sdpa_3d_bool_mask": lambda lib, x: lib.nn.functional.scaled_dot_product_attention(
        x, x * 0.5, x, attn_mask=x[0, :, :1] > x[1, :, 0]),
    "cube": lambda lib, x: x ** 3, "cube_pow": lambda lib, x: lib.pow(x, 3.0),
    "cube_": lambda lib, x: x.clone().pow_(3),
    "inverse_square": lambda lib, x: x ** -2, "inverse_cube": lambda lib, x: x ** -3,
}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", sorted(STEPPED))
def test_stepped_rounding_as_torch(fn, dtype_name):
    shape = (8, 25, 24)  # 25 keys: no power of two, so no count divides exactly
    want = STEPPED[fn](real, _normal(real, dtype_name, *shape))
    got = STEPPED[fn](vt, _normal(vt, dtype_name, *shape))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.detach().float().numpy(), want.detach().float().numpy())


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", ["sdpa_3d", "cube"])
def test_stepped_rounding_gradient(fn, dtype_name):
    def run(lib):
        x = _normal(lib, dtype_name, 8, 25, 24).requires_grad_()
        y = STEPPED[fn](lib, x)
        y.float().sum().backward()
        return y.detach().float().numpy(), x.grad.float().numpy()
    (got, got_grad), (want, want_grad) = run(vt), run(real)
    np.testing.assert_array_equal(got, want)
    scale = np.abs(want_grad).max()
    # torch's backward kernels round their own steps; within a few units of the half dtype's precision
    np.testing.assert_allclose(got_grad, want_grad, rtol=2e-2, atol=2e-2 * scale)


# -- torch's stored half steps: log_softmax (last dim), logsumexp, softmax (other dims), batch_norm training ---
# (function, shape, dim): shapes with and without full groups of 32 inner positions.  numpy's float32 exp can
# differ from torch's by an ulp, which moves about one element in a thousand across a half rounding tie: these
# inputs have no such element.
SOFTMAX_LIKE = {
    "log_softmax_last": (lambda lib, x, d: lib.log_softmax(x, d), (8, 25, 24), -1),
    "log_softmax_long_row": (lambda lib, x, d: x.log_softmax(d), (3, 5000), 1),
    "log_softmax_short_row": (lambda lib, x, d: lib.nn.functional.log_softmax(x, d), (2, 7, 3), 2),
    "log_softmax_1d": (lambda lib, x, d: lib.log_softmax(x, d), (4096,), 0),
    "logsumexp_last": (lambda lib, x, d: lib.logsumexp(x, d), (8, 25, 24), -1),
    "logsumexp_middle": (lambda lib, x, d: x.logsumexp(d, keepdim=True), (8, 16, 32), 1),
    "logsumexp_dims": (lambda lib, x, d: lib.logsumexp(x, d), (4, 8, 5, 5), (0, 2)),
    "softmax_middle": (lambda lib, x, d: lib.softmax(x, d), (4, 8, 5, 5), 1),
    "softmax_first": (lambda lib, x, d: x.softmax(d), (2, 7, 3), 0),
    "softmax_vector_and_tail": (lambda lib, x, d: lib.nn.functional.softmax(x, d), (4, 40, 40), 1),
    "softmax_vectors_split": (lambda lib, x, d: lib.softmax(x, d), (3, 6, 48), 1),
    "cross_entropy_none": (lambda lib, x, d: lib.nn.functional.cross_entropy(
        x, lib.arange(x.shape[0]) % x.shape[1], reduction="none"), (64, 64), None),
    "cross_entropy_probabilities": (lambda lib, x, d: lib.nn.functional.cross_entropy(
        x, lib.softmax(x.float() * 0.5, 1).to(x.dtype), reduction="none"), (16, 24), None),
}


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", sorted(SOFTMAX_LIKE))
def test_softmax_family_steps_as_torch(fn, dtype_name, threads):
    # torch's non-last-dim softmax splits its positions between threads: both libraries get the same count
    f, shape, dim = SOFTMAX_LIKE[fn]
    saved = real.get_num_threads(), vt.get_num_threads()
    real.set_num_threads(threads)
    vt.set_num_threads(threads)
    try:
        want = f(real, _normal(real, dtype_name, *shape), dim)
        got = f(vt, _normal(vt, dtype_name, *shape), dim)
    finally:
        real.set_num_threads(saved[0])
        vt.set_num_threads(saved[1])
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


def test_logsumexp_of_minus_infinity_rows():
    def run(lib):
        x = lib.tensor([[-float("inf")] * 3, [1.0, float("inf"), 2.0], [0.5, -1.0, 3.0]]).half()
        return lib.logsumexp(x, 1).float().numpy()
    np.testing.assert_array_equal(run(vt), run(real))


BATCH_NORM_SHAPES = [(8, 25, 24), (4, 8, 5, 5), (2, 3, 4, 5, 6), (3, 40, 70)]  # counts 192, 100, 240, 210


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_training_steps_as_torch(shape, dtype_name, affine):
    def run(lib):
        x = _normal(lib, dtype_name, *shape)
        c = shape[1]
        w, b = ((lib.randn(c).to(x.dtype), lib.randn(c).to(x.dtype)) if affine else (None, None))
        return lib.nn.functional.batch_norm(x, None, None, w, b, training=True).float().numpy()
    np.testing.assert_array_equal(run(vt), run(real))


@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_float16_running_statistics(shape):
    def run(lib):
        x = _normal(lib, "float16", *shape)
        mean, var = lib.zeros(shape[1], dtype=x.dtype), lib.ones(shape[1], dtype=x.dtype)
        y = lib.nn.functional.batch_norm(x, mean, var, training=True)
        return y.float().numpy(), mean.float().numpy(), var.float().numpy()
    for got, want in zip(run(vt), run(real)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
def test_batch_norm_module_training(dtype_name):
    def run(lib):
        lib.manual_seed(3)
        layer = lib.nn.BatchNorm2d(8).to(getattr(lib, dtype_name))
        return layer(_normal(lib, dtype_name, 4, 8, 5, 5)).detach().float().numpy()
    np.testing.assert_array_equal(run(vt), run(real))


HALF_STEP_GRADIENTS = {
    "log_softmax": lambda lib, x: lib.log_softmax(x, -1),
    "logsumexp": lambda lib, x: lib.logsumexp(x, (0, 2)),
    "softmax_middle": lambda lib, x: lib.softmax(x, 1),
    "batch_norm": lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x.reshape(-1, 24), lib.arange(200) % 24,
                                                                    reduction="none"),
}


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float16"])
@pytest.mark.parametrize("fn", sorted(HALF_STEP_GRADIENTS))
def test_half_steps_gradient(fn, dtype_name):
    def run(lib):
        x = _normal(lib, dtype_name, 8, 25, 24).requires_grad_()
        y = HALF_STEP_GRADIENTS[fn](lib, x)
        lib.manual_seed(1)
        (y.float() * lib.randn(y.shape)).sum().backward()
        return y.detach().float().numpy(), x.grad.float().numpy()
    (got, got_grad), (want, want_grad) = run(vt), run(real)
    np.testing.assert_array_equal(got, want)
    scale = np.abs(want_grad).max()
    # torch's backward kernels round their own steps; within a few units of the half dtype's precision
    np.testing.assert_allclose(got_grad, want_grad, rtol=2e-2, atol=2e-2 * scale)
