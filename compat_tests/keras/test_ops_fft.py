"""keras.ops fft, fft2, ifft2, rfft, irfft, stft, istft, view_as_complex, view_as_real, angle, polar and eig against
real Keras 3.15.1: values, (real, imag) tuples, dtypes, gradients, errors and symbolic (functional) calls."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.test_ops import check, sample

RE = sample("float32", (2, 3, 8), seed=1)
IM = sample("float32", (2, 3, 8), seed=2)
SIGNAL = sample("float32", (2, 64), seed=3)
Z = (RE + 1j * IM).astype("complex64")

CASES = [
    lambda ops: ops.fft((RE, IM)), lambda ops: ops.fft([RE.astype("float64"), IM.astype("float64")]),
    lambda ops: ops.fft2((RE, IM)), lambda ops: ops.ifft2((RE, IM)),
    lambda ops: ops.rfft(RE), lambda ops: ops.rfft(RE, 6), lambda ops: ops.rfft(RE, 11),
    lambda ops: ops.irfft((RE, IM)), lambda ops: ops.irfft((RE, IM), 10), lambda ops: ops.irfft((RE, IM), 4),
    lambda ops: ops.stft(SIGNAL, 16, 8, 16), lambda ops: ops.stft(SIGNAL, 10, 4, 16, window="hamming"),
    lambda ops: ops.stft(SIGNAL, 12, 6, 16, window=None, center=False),
    lambda ops: ops.stft(SIGNAL[0].astype("float64"), 8, 3, 8, window=np.linspace(0, 1, 8)),
    lambda ops: ops.istft(ops.stft(SIGNAL, 16, 4, 16), 16, 4, 16),
    lambda ops: ops.istft(ops.stft(SIGNAL, 12, 4, 16, window="hamming"), 12, 4, 16, window="hamming", length=50),
    lambda ops: ops.istft(ops.stft(SIGNAL, 16, 4, 16, center=False), 16, 4, 16, center=False),
    lambda ops: ops.istft((RE[0], IM[0, :, :5]), 8, 2, 8, window=None),
    lambda ops: ops.istft((RE[:, :, :5], IM[:, :, :5]), 8, 2, 8, window="kaiser"),  # Keras: any name but hann

    lambda ops: ops.view_as_real(Z), lambda ops: ops.view_as_real(Z.astype("complex128")),
    lambda ops: ops.view_as_real(RE), lambda ops: ops.view_as_complex(np.stack([RE, IM], -1)),
    lambda ops: ops.view_as_complex(np.ones((3, 2), "float64")),
    lambda ops: ops.angle(Z), lambda ops: ops.angle(RE), lambda ops: ops.angle(np.array([1, -2, 0], "int32")),
    lambda ops: ops.angle(np.array([1, -2], "int64")), lambda ops: ops.angle(np.array([True, False])),
    lambda ops: ops.polar(np.abs(RE), IM), lambda ops: ops.polar(np.abs(RE).astype("float64"), IM.astype("float64")),
    lambda ops: ops.polar(2.0, 0.5),
    lambda ops: ops.eig(np.array([[2.0, 1.0], [0.5, 3.0]], "float32")),
    lambda ops: ops.linalg.eig(np.array([[[1.0, 2.0], [0.0, -1.0]]], "float64")),
    lambda ops: ops.numpy.angle(Z), lambda ops: ops.nn.polar(np.abs(RE), IM),
]

ERRORS = [
    lambda ops: ops.fft(RE[0, 0, :2]), lambda ops: ops.fft((RE, IM[0])), lambda ops: ops.fft((RE, RE, IM)),
    lambda ops: ops.fft((np.arange(3), np.arange(3))), lambda ops: ops.irfft(RE),
    lambda ops: ops.stft(SIGNAL, 16, 0, 16), lambda ops: ops.stft(SIGNAL, 16, 8, 8),
    lambda ops: ops.stft(SIGNAL, 16, 8, 16, window="blackman"), lambda ops: ops.stft(np.arange(64), 16, 8, 16),
    lambda ops: ops.stft(SIGNAL, 16, 8, 16, window=np.ones(5, "float32")),
    lambda ops: ops.view_as_complex(np.ones((2, 3))), lambda ops: ops.polar(np.ones(2, "float32"), np.ones(2)),
    lambda ops: ops.eig(np.ones((2, 3), "float32")), lambda ops: ops.eig(np.ones(3, "float32")),
]


@pytest.mark.parametrize("make", CASES)
def test_values(make):
    check(make, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make", ERRORS)
def test_errors(make):
    check(make)


def test_gradients():
    def fn(lib):
        ops, tf = lib.keras.ops, lib.tf
        re, im, signal = tf.constant(RE), tf.constant(IM), tf.constant(SIGNAL)
        with tf.GradientTape() as tape:
            tape.watch([re, im, signal])
            a, b = ops.fft2((re, im))
            c, d = ops.stft(signal, 16, 8, 16)
            out = (ops.sum(a * b) + ops.sum(ops.irfft((re, im)) ** 2) + ops.sum(ops.rfft(re, 10)[1] ** 2)
                   + ops.sum(c ** 2 + d ** 2) + ops.sum(ops.istft((c, d), 16, 8, 16) ** 2)
                   + ops.sum(ops.angle(ops.polar(ops.abs(re) + 0.1, im)))
                   + ops.sum(ops.view_as_real(ops.fft((re, im))[0])))
        return tape.gradient(out, [re, im, signal])

    same(fn, rtol=1e-4, atol=1e-4)


def test_symbolic_calls():
    def fn(lib):
        keras = lib.keras
        x = keras.Input((64,))
        real, imag = keras.ops.stft(x, 16, 8, 16)
        magnitude = keras.ops.sqrt(real ** 2 + imag ** 2)
        model = keras.Model(x, [magnitude, keras.ops.istft((real, imag), 16, 8, 16)])
        return [(t.shape, t.dtype) for t in (real, imag, magnitude)], model(SIGNAL)

    same(fn, rtol=1e-5, atol=1e-5)
