"""torch.fft against real torch 2.13: values, dtypes, shapes, errors and gradients."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, arrays, assert_same, check, check_grad, to_numpy

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 8)).astype(np.float32)
X3 = RNG.standard_normal((2, 5, 6))
Z = (RNG.standard_normal((3, 5)) + 1j * RNG.standard_normal((3, 5))).astype(np.complex64)
Z3 = RNG.standard_normal((2, 4, 5)) + 1j * RNG.standard_normal((2, 4, 5))
NORMS = [None, "backward", "ortho", "forward"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
def test_one_dim_transforms_of_real_input(name, norm):
    for kwargs in ({}, {"n": 5}, {"n": 11}, {"dim": 0}, {"n": 4, "dim": -2}):
        check(lambda t, x, kw=kwargs: getattr(t.fft, name)(x, norm=norm, **kw), X, rtol=1e-5, atol=1e-5)
        check(lambda t, x, kw=kwargs: getattr(t.fft, name)(x, norm=norm, **kw), X.astype(np.float64), rtol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
def test_one_dim_transforms_of_complex_input(name, norm):
    for kwargs in ({}, {"n": 3}, {"n": 9}, {"dim": 0}, {"n": 4, "dim": 0}):
        check(lambda t, z, kw=kwargs: getattr(t.fft, name)(z, norm=norm, **kw), Z, rtol=1e-5, atol=1e-5)
        check(lambda t, z, kw=kwargs: getattr(t.fft, name)(z, norm=norm, **kw), Z.astype(np.complex128), rtol=1e-12)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "ihfft2", "ihfftn"])
def test_multi_dim_transforms_of_real_input(name):
    for kwargs in ({}, {"s": (3, 4)}, {"dim": (0, 2)}, {"s": (7, -1), "dim": (2, 0)}, {"norm": "ortho"}):
        check(lambda t, x, kw=kwargs: getattr(t.fft, name)(x, **kw), X3, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "irfft2", "irfftn", "hfft2", "hfftn"])
def test_multi_dim_transforms_of_complex_input(name):
    for kwargs in ({}, {"s": (3, 4)}, {"dim": (0, 2)}, {"s": (6, 3), "dim": (2, 1)}, {"norm": "forward"}):
        check(lambda t, z, kw=kwargs: getattr(t.fft, name)(z, **kw), Z3, rtol=1e-12, atol=1e-12)


def test_input_dtypes():
    ints = np.arange(6, dtype=np.int64)
    for fn in (lambda t, x: t.fft.fft(x), lambda t, x: t.fft.rfft(x), lambda t, x: t.fft.hfft(x),
               lambda t, x: t.fft.irfft(x), lambda t, x: t.fft.ihfft(x)):
        check(fn, ints)
        check(fn, ints.astype(np.bool_))


@pytest.mark.parametrize("fn", [
    lambda t, x: t.fft.fft(x.half()),  # torch: unsupported on the CPU
    lambda t, x: t.fft.fft(x.bfloat16()),
    lambda t, x: t.fft.fft(x, n=0),
    lambda t, x: t.fft.fft(x, dim=2),
    lambda t, x: t.fft.fft(x, norm="bad"),
    lambda t, x: t.fft.rfft(t.fft.fft(x)),
    lambda t, x: t.fft.irfft(x[:, :1]),
    lambda t, x: t.fft.fftn(x, s=(1, 2, 3)),
    lambda t, x: t.fft.fftn(x, s=(2, 3), dim=(0,)),
    lambda t, x: t.fft.fft2(x, dim=(0, 0)),
    lambda t, x: t.fft.fft("x"),
])
def test_errors(fn):
    check(fn, X)


def test_frequencies_and_shifts():
    for n in (1, 5, 8):
        check(lambda t, n=n: t.fft.fftfreq(n))
        check(lambda t, n=n: t.fft.rfftfreq(n, d=0.3, dtype=t.float64))
        check(lambda t, n=n: t.fft.fftfreq(n, 2.5, requires_grad=True))
    check(lambda t, x: (t.fft.fftshift(x), t.fft.ifftshift(x), t.fft.fftshift(x, dim=1), t.fft.ifftshift(x, 0)),
          np.arange(35).reshape(5, 7))
    check(lambda t, x: t.fft.ifftshift(t.fft.fftshift(x, dim=(0, 1)), dim=(-2, -1)), X3)


# -- gradients: real losses, compared with torch's autograd ------------------------------------------
@pytest.mark.parametrize("norm", NORMS)
def test_real_signal_gradients(norm):
    x = arrays((4, 6), dtype="float64")
    check_grad(lambda t, x: t.fft.rfft(x, norm=norm).abs(), x)
    check_grad(lambda t, x: t.fft.irfft(t.fft.rfft(x, n=9, norm=norm), n=7, norm=norm), x)
    check_grad(lambda t, x: t.view_as_real(t.fft.fft(x, n=4, dim=0, norm=norm)), x)
    check_grad(lambda t, x: t.fft.hfft(t.fft.ihfft(x, norm=norm) * (1 + 2j), n=5, norm=norm), x)
    check_grad(lambda t, x: t.view_as_real(t.fft.fftn(x, s=(5, 3), norm=norm)).sin(), x)
    check_grad(lambda t, x: t.fft.irfftn(t.fft.rfft2(x, norm=norm).conj() * 1j, s=(3, 8), norm=norm), x)
    check_grad(lambda t, x: t.view_as_real(t.fft.ifft2(t.fft.rfftn(x, norm=norm))).exp(), x)


def _complex_leaf_grads(fn, z):
    """Output and gradient of a real loss ``fn(lib, leaf)`` w.r.t. a complex leaf, in both libraries."""
    results = []
    for lib in LIBS:
        leaf = lib.from_numpy(z.copy()).requires_grad_(True)
        out = fn(lib, leaf)
        (out * lib.from_numpy(np.linspace(-1, 2, out.numel()).reshape(tuple(out.shape)).astype(str(out.dtype)[6:]))
         ).sum().backward()
        results.append((to_numpy(out), to_numpy(leaf.grad)))
    assert_same(results[0][0], results[1][0], 1e-10, 1e-10)
    assert_same(results[0][1], results[1][1], 1e-10, 1e-10, "grad")


def test_complex_leaf_gradients():
    for fn in (lambda t, z: t.fft.fft(z).abs(),
               lambda t, z: t.fft.irfft(z, n=7, dim=1),
               lambda t, z: t.fft.hfft(z, dim=0, norm="ortho"),
               lambda t, z: t.view_as_real(t.fft.ifftn(z, s=(3, 6, 4))),
               lambda t, z: t.fft.irfftn(z, dim=(0, 2)).sin()):
        _complex_leaf_grads(fn, Z3)


# -- stft / istft ----------------------------------------------------------------------------------------
SIGNAL = RNG.standard_normal((2, 40))


@pytest.mark.filterwarnings("ignore:.*window was not provided")
@pytest.mark.parametrize("kwargs", [
    {},
    {"hop_length": 3, "win_length": 12, "window": "hann"},
    {"center": False, "normalized": True, "window": "hann", "win_length": 16},
    {"pad_mode": "constant", "onesided": False, "hop_length": 5},
    {"pad_mode": "replicate", "window": "hann", "win_length": 9},
])
def test_stft_and_istft(kwargs):
    def run(t, x, inverse=False, **extra):
        kw = dict(kwargs, **extra)
        if kw.get("window") == "hann":
            kw["window"] = t.hann_window(kw.get("win_length", 16), dtype=x.dtype)
        spectrum = t.stft(x, 16, return_complex=True, **kw)
        if not inverse:
            return spectrum
        kw.pop("pad_mode", None)
        return t.istft(spectrum, 16, length=x.shape[-1], **kw)

    check(run, SIGNAL, rtol=1e-10, atol=1e-10)
    check(run, SIGNAL[0].astype(np.float32), rtol=1e-4, atol=1e-4)
    if kwargs.get("center", True):  # (without centring the edges are not recoverable)
        check(lambda t, x: run(t, x, inverse=True), SIGNAL, rtol=1e-10, atol=1e-10)
    check_grad(lambda t, x: run(t, x).abs(), SIGNAL, rtol=1e-9, atol=1e-9)
    if kwargs.get("center", True):
        check_grad(lambda t, x: run(t, x, inverse=True) * x, SIGNAL, rtol=1e-9, atol=1e-9)


@pytest.mark.filterwarnings("ignore:.*window was not provided", "ignore:stft with return_complex=False")
@pytest.mark.parametrize("fn", [
    lambda t, x: t.stft(x, 8),
    lambda t, x: t.stft(x, 8, return_complex=False),
    lambda t, x: t.stft(x, 60, return_complex=True),
    lambda t, x: t.stft(x, 0, return_complex=True),
    lambda t, x: t.stft(x, 8, hop_length=0, return_complex=True),
    lambda t, x: t.stft(x, 8, win_length=9, return_complex=True),
    lambda t, x: t.stft(x, 8, window=t.ones(5, dtype=x.dtype), return_complex=True),
    lambda t, x: t.stft(x.reshape(2, 2, 20), 8, return_complex=True),
    lambda t, x: t.stft(x.long(), 8, return_complex=True),
    lambda t, x: t.stft(x, 8, onesided=True, window=t.ones(8, dtype=t.complex128), return_complex=True),
    lambda t, x: t.istft(x, 8),
    lambda t, x: t.istft(t.stft(x, 8, return_complex=True), 8, window=t.zeros(8, dtype=x.dtype)),
    lambda t, x: t.istft(t.stft(x, 8, return_complex=True), 8, return_complex=True),
    lambda t, x: x.stft(8, return_complex=True).istft(8, center=True),
])
def test_stft_errors_and_methods(fn):
    check(fn, SIGNAL, rtol=1e-10, atol=1e-10)
