"""tf.signal's DCTs, MDCT, Kaiser/KBD/Vorbis windows, mel weight matrices and MFCCs against real TensorFlow 2.21:
values, dtypes, gradients and argument errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad


@pytest.mark.parametrize("dct_type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_and_idct(dct_type, norm):
    x = arrays((3, 8), seed=dct_type)
    if dct_type == 1 and norm == "ortho":
        check(lambda tf, a: tf.signal.dct(a, type=1, norm="ortho"), x)
        return
    check_grad(lambda tf, a: [tf.signal.dct(a, type=dct_type, norm=norm), tf.signal.idct(a, type=dct_type, norm=norm)],
               x, rtol=1e-4, atol=1e-4)
    check(lambda tf, a: [tf.signal.dct(a, type=dct_type, n=5, norm=norm), tf.signal.dct(a, type=dct_type, n=11,
                                                                                        norm=norm)],
          x.astype("float64"))
    check(lambda tf, a: tf.signal.dct(a, type=dct_type, norm=norm), x[0], rtol=1e-4, atol=1e-4)


def test_dct_errors():
    x = arrays((2, 4))
    check(lambda tf, a: tf.signal.dct(a, type=5), x)
    check(lambda tf, a: tf.signal.dct(a, n=0), x)
    check(lambda tf, a: tf.signal.dct(a, axis=0), x)
    check(lambda tf, a: tf.signal.dct(a, norm="forward"), x)
    check(lambda tf, a: tf.signal.dct(a[:, :1], type=1), x)
    check(lambda tf, a: tf.signal.idct(a, type=0), x)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_mdct_and_inverse(norm):
    x = arrays((2, 40), seed=9)
    check_grad(lambda tf, a: tf.signal.mdct(a, 8, norm=norm), x, rtol=1e-4, atol=1e-4)
    check(lambda tf, a: tf.signal.mdct(a, 12, pad_end=True, norm=norm, window_fn=None), x, rtol=1e-4, atol=1e-4)
    check(lambda tf, a: tf.signal.mdct(a, 8, window_fn=tf.signal.kaiser_bessel_derived_window, norm=norm),
          x.astype("float64"))
    spectra = arrays((2, 5, 6), seed=10)
    check_grad(lambda tf, a: tf.signal.inverse_mdct(a, norm=norm), spectra, rtol=1e-4, atol=1e-4)
    check(lambda tf, a: tf.signal.inverse_mdct(a, window_fn=None, norm=norm), spectra.astype("float64"))
    check(lambda tf, a: tf.signal.inverse_mdct(tf.signal.mdct(a, 16, norm=norm), norm=norm), x, rtol=1e-4,
          atol=1e-4)


def test_mdct_errors():
    x = arrays((2, 40))
    check(lambda tf, a: tf.signal.mdct(a, 10), x)
    check(lambda tf, a: tf.signal.mdct(a, 8), np.arange(40, dtype=np.int32))


@pytest.mark.parametrize("length", [1, 2, 7, 16])
def test_windows(length):
    check(lambda tf: [tf.signal.kaiser_window(length), tf.signal.kaiser_window(length, beta=3.5, dtype=tf.float64),
                      tf.signal.vorbis_window(length), tf.signal.vorbis_window(length, dtype=tf.float64)])
    check(lambda tf: [tf.signal.kaiser_bessel_derived_window(length),
                      tf.signal.kaiser_bessel_derived_window(length, beta=5.0, dtype=tf.float64)])


def test_window_errors():
    check(lambda tf: tf.signal.vorbis_window(4, dtype=tf.int32))
    check(lambda tf: tf.signal.kaiser_window(4, dtype=tf.int32))


@pytest.mark.parametrize("kwargs", [{}, {"num_mel_bins": 40, "num_spectrogram_bins": 257, "sample_rate": 16000,
                                          "lower_edge_hertz": 20.0, "upper_edge_hertz": 8000.0},
                                    {"num_mel_bins": 8, "num_spectrogram_bins": 33, "sample_rate": 22050,
                                     "lower_edge_hertz": 0.0, "upper_edge_hertz": 5000.0}])
def test_linear_to_mel_weight_matrix(kwargs):
    check(lambda tf: tf.signal.linear_to_mel_weight_matrix(**kwargs, dtype=tf.float64))
    # float32: TF's vectorized log differs from numpy's by an ulp on mel values ~2000, and the filter slopes divide
    # by differences of ~50 mel, so weights differ by up to ~1e-5 (same float32 formula, checked in float64 above).
    check(lambda tf: tf.signal.linear_to_mel_weight_matrix(**kwargs), rtol=1e-4, atol=3e-5)


@pytest.mark.parametrize("kwargs", [{"num_mel_bins": 0}, {"lower_edge_hertz": -1.0},
                                    {"lower_edge_hertz": 4000.0, "upper_edge_hertz": 3000.0},
                                    {"upper_edge_hertz": 5000.0}, {"sample_rate": 0}])
def test_linear_to_mel_weight_matrix_errors(kwargs):
    check(lambda tf: tf.signal.linear_to_mel_weight_matrix(**kwargs))
    check(lambda tf: tf.signal.linear_to_mel_weight_matrix(dtype=tf.int32))


def test_mfccs_and_a_log_mel_pipeline():
    check_grad(lambda tf, a: tf.signal.mfccs_from_log_mel_spectrograms(a), arrays((2, 3, 10), seed=2), rtol=1e-4,
               atol=1e-4)
    check(lambda tf, a: tf.signal.mfccs_from_log_mel_spectrograms(a), arrays((4, 13), seed=3, dtype="float64"))
    signal = arrays((2, 400), seed=4)

    def pipeline(tf, x):
        spectrum = tf.abs(tf.signal.stft(x, 64, 32))
        mel = tf.matmul(spectrum, tf.signal.linear_to_mel_weight_matrix(16, 33, 8000, 80.0, 3800.0))
        return tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(mel + 1e-6))[..., :8]

    check_grad(pipeline, signal, rtol=1e-3, atol=1e-3)
