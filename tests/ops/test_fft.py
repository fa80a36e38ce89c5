"""Engine FFT ops and complex helpers against numpy; their gradients against central differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_loss_gradient
from vfw.core import Tensor, autograd, execute, run
from vfw.core import dtypes as dt
from vfw.core.errors import DTypeError, OpAttributeError

RNG = np.random.default_rng(0)


def _complex(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("inverse", [0, 1])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fft_matches_numpy(dtype, inverse, norm):
    x = _complex((3, 6, 5), dtype)
    for axes, lengths in (([-1], None), ([0, 2], None), ([1], [4]), ([2, 1], [8, 3])):
        got = run("FFT", x, axes=axes, lengths=lengths, inverse=inverse, norm=norm)
        want = (np.fft.ifftn if inverse else np.fft.fftn)(x.astype(np.complex128), s=lengths, axes=axes, norm=norm)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.complex64 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_rfft_irfft_match_numpy(norm):
    x = RNG.standard_normal((4, 7, 6))
    for axes, lengths in (([-1], None), ([0, 1], None), ([2], [9]), ([1, 2], [5, 4])):
        np.testing.assert_allclose(run("RFFT", x, axes=axes, lengths=lengths, norm=norm),
                                   np.fft.rfftn(x, s=lengths, axes=axes, norm=norm), rtol=1e-12, atol=1e-12)
    z = _complex((4, 7, 5))
    for axes, lengths in (([-1], None), ([0, 2], None), ([2], [9]), ([2], [5]), ([1, 2], [3, 10])):
        np.testing.assert_allclose(run("IRFFT", z, axes=axes, lengths=lengths, norm=norm),
                                   np.fft.irfftn(z, s=lengths, axes=axes, norm=norm), rtol=1e-12, atol=1e-12)
    assert run("RFFT", x.astype(np.float32), axes=[1]).dtype == np.complex64
    assert run("IRFFT", z.astype(np.complex64), axes=[1]).dtype == np.float32


def test_complex_helpers_match_numpy():
    z = _complex((3, 4), np.complex64)
    np.testing.assert_array_equal(run("Real", z), z.real)
    np.testing.assert_array_equal(run("Imag", z), z.imag)
    np.testing.assert_array_equal(run("Conj", z), np.conj(z))
    np.testing.assert_allclose(run("ComplexAbs", z), np.abs(z), rtol=1e-6)
    np.testing.assert_allclose(run("Angle", z), np.angle(z), rtol=1e-6)
    made = run("ComplexMake", z.real.copy(), np.float32(2.5))
    assert made.dtype == np.complex64
    np.testing.assert_array_equal(made, z.real + 2.5j)
    assert run("Real", z).dtype == np.float32 and run("Real", z).base is None  # fresh memory, not a view


def test_complex_arithmetic_shape_ops_and_casts():
    a, b = _complex((2, 3)), _complex((3,))
    np.testing.assert_allclose(run("Mul", a, b), a * b)
    np.testing.assert_allclose(run("Div", a, b), a / b)
    np.testing.assert_allclose(run("MatMul", a, _complex((3, 2))).shape, (2, 2))
    np.testing.assert_allclose(run("ReduceSum", a, np.array([1])), a.sum(1, keepdims=True))
    np.testing.assert_array_equal(run("Transpose", a, perm=[1, 0]), a.T)
    np.testing.assert_array_equal(run("Concat", a, a, axis=0), np.concatenate([a, a]))
    with pytest.raises(DTypeError, match="imaginary"):  # never a silent loss of the imaginary part
        run("Cast", a, to=dt.float64)
    np.testing.assert_array_equal(run("Cast", a, to=dt.complex64), a.astype(np.complex64))
    np.testing.assert_array_equal(run("Cast", np.array([1, 2], np.int64), to=dt.complex64), [1, 2])
    assert dt.as_dtype(14) == dt.complex64 and dt.onnx_code(dt.complex128) == 15


def test_real_only_ops_refuse_complex():
    with pytest.raises(DTypeError, match="complex64"):
        run("Erf", _complex((2,), np.complex64))
    with pytest.raises(DTypeError):
        run("RFFT", _complex((4,)), axes=[0])
    with pytest.raises(OpAttributeError, match="lengths"):
        run("FFT", _complex((4,)), axes=[0], lengths=[2, 2])
    with pytest.raises(OpAttributeError, match="positive"):
        run("FFT", _complex((4,)), axes=[0], lengths=[0])


# -- gradients: real leaves through complex intermediates to a real loss -------------------------
def _check(loss, shapes, rtol=1e-6, atol=1e-8):
    """Engine gradient of the real scalar ``loss(*leaves)`` w.r.t. real float64 leaves vs central differences."""
    check_loss_gradient(loss, shapes, RNG, rtol=rtol, atol=atol)


def _sum(t):
    return execute("ReduceSum", t, keepdims=0)


def _make(re, im):
    return execute("ComplexMake", re, im)


# a fixed complex weight, so the loss depends on real and imaginary parts unevenly
_W = _complex((4, 6))


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("inverse", [0, 1])
def test_fft_gradient(norm, inverse):
    for axes, lengths in (([1], None), ([0, 1], None), ([1], [4]), ([0, 1], [5, 8])):
        def loss(re, im, axes=axes, lengths=lengths):
            y = execute("FFT", _make(re, im), axes=axes, lengths=lengths, inverse=inverse, norm=norm)
            w = np.resize(_W, y.array.shape)
            return _sum(execute("Add", execute("ComplexAbs", y), execute("Real", execute("Mul", y, w))))
        _check(loss, [(4, 6), (4, 6)])


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_rfft_gradient(norm):
    for axes, lengths in (([1], None), ([0, 1], None), ([1], [9]), ([0, 1], [3, 4]), ([1], [5])):
        def loss(x, axes=axes, lengths=lengths):
            y = execute("RFFT", x, axes=axes, lengths=lengths, norm=norm)
            w = np.resize(_W, y.array.shape)
            return _sum(execute("Imag", execute("Mul", y, w)))
        _check(loss, [(4, 6)])


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_irfft_gradient(norm):
    for axes, lengths in (([1], None), ([0, 1], None), ([1], [7]), ([1], [12]), ([0, 1], [6, 5]), ([1], [3])):
        def loss(re, im, axes=axes, lengths=lengths):
            y = execute("IRFFT", _make(re, im), axes=axes, lengths=lengths, norm=norm)
            return _sum(execute("Mul", y, np.resize(_W.real, y.array.shape)))
        _check(loss, [(4, 6), (4, 6)])


def test_complex_helper_and_arithmetic_gradients():
    b = _complex((3,))

    def loss(re, im, re2):
        z = _make(re, im)
        q = execute("Div", execute("Mul", z, b), execute("Add", _make(re2, re2), b))
        parts = execute("Add", execute("Angle", q), execute("ComplexAbs", execute("Conj", q)))
        mm = execute("MatMul", execute("Reshape", z, np.array([3, 1])), execute("Reshape", q, np.array([1, 3])))
        return _sum(execute("Add", _sum(parts), _sum(execute("Imag", mm))))
    _check(loss, [(3,), (3,), (3,)], rtol=1e-5)


@pytest.mark.parametrize("opt_level", [0, 1, 3])
def test_traced_training_step_with_complex_values(opt_level, tmp_path):
    """Graph mode carries complex intermediates (value infos, buffer pools) and their backward; a saved
    graph keeps a complex initializer."""
    from vfw.core.graph import function, load_graph, save_graph

    w = _complex((5,))

    def step(x):
        spectrum = execute("Mul", execute("RFFT", x, axes=[1]), w)
        loss = execute("Add", _sum(execute("ComplexAbs", spectrum)), _sum(execute("IRFFT", spectrum, axes=[1])))
        return loss, autograd.gradient([loss], [x])[0]

    x = Tensor(RNG.standard_normal((3, 8)), requires_grad=True)
    traced = function(step, opt_level=opt_level)
    for _ in range(2):
        got, want = traced(x), step(x)
        np.testing.assert_allclose(got[0].array, want[0].array, rtol=1e-12)
        np.testing.assert_allclose(got[1].array, want[1].array, rtol=1e-12)
    inference = function(lambda x: execute("Mul", execute("FFT", x, axes=[0]), w), opt_level=opt_level)
    z = Tensor(_complex((5,)))
    concrete = inference.get_concrete_function(z)
    concrete.save(tmp_path / "fft.pb")
    assert any(t.data_type == 15 for t in load_graph(tmp_path / "fft.pb").initializer)
    save_graph(load_graph(tmp_path / "fft.pb"), tmp_path / "again.pb")
    np.testing.assert_allclose(inference(z).array, np.fft.fft(z.array) * w, rtol=1e-12)
