"""keras.layers.MelSpectrogram and STFTSpectrogram against real Keras 3.15.1: outputs, shapes, dtypes, gradients,
configs and serialization, symbolic use in models, argument errors.  (Real Keras needs scipy for STFTSpectrogram's
named windows, which the venv lacks: its comparisons use ``window=None`` and explicit window values.)"""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.core_harness import data

AUDIO = data(2, 800, seed=1)
MULTI = data(2, 300, 3, seed=2)

MEL_CASES = [
    dict(fft_length=128, sequence_stride=64, num_mel_bins=16, sampling_rate=8000),
    dict(fft_length=64, sequence_stride=32, sequence_length=48, window="hamming", num_mel_bins=10, min_freq=50.0,
         max_freq=3000.0, sampling_rate=8000, power_to_db=False, mag_exp=1.0),
    dict(fft_length=128, sequence_stride=50, num_mel_bins=20, sampling_rate=16000, top_db=30.0, ref_power=2.0,
         min_power=1e-4, window=None),
]


@pytest.mark.parametrize("kwargs", MEL_CASES)
def test_mel_spectrogram(kwargs):
    def fn(lib):
        layer = lib.keras.layers.MelSpectrogram(**kwargs)
        return [layer(AUDIO), layer(AUDIO[0]), layer.get_config(), layer.compute_output_shape((2, 800)),
                layer.compute_output_shape((800,))]

    same(fn, rtol=1e-4, atol=1e-3)  # decibels of float32 powers: 1e-3 dB


def test_mel_spectrogram_dtypes_model_and_serialization():
    def fn(lib):
        keras = lib.keras
        layer = keras.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8, sampling_rate=8000,
                                            dtype="float64")
        double = layer(AUDIO)
        inputs = keras.Input((800,))
        model = keras.Model(inputs, keras.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8,
                                                                sampling_rate=8000)(inputs))
        clone = keras.layers.deserialize(keras.layers.serialize(layer))
        return [double, model(AUDIO), model.output.shape, type(clone).__name__, clone.get_config(),
                layer.get_config() == keras.layers.MelSpectrogram.from_config(layer.get_config()).get_config()]

    same(fn, rtol=1e-4, atol=1e-3)


def test_mel_spectrogram_errors_and_gradient():
    same(lambda lib: lib.keras.layers.MelSpectrogram(fft_length=64, sequence_length=128))

    def gradient(lib):
        x = lib.tf.constant(AUDIO)
        layer = lib.keras.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8, sampling_rate=8000,
                                                power_to_db=False)
        with lib.tf.GradientTape() as tape:
            tape.watch(x)
            out = lib.tf.reduce_sum(lib.tf.sqrt(layer(x) + 1.0))
        return tape.gradient(out, x)

    same(gradient, rtol=1e-4, atol=1e-5)


STFT_CASES = [
    dict(mode="log", frame_length=32, window=None),
    dict(mode="magnitude", frame_length=32, frame_step=8, window=None, scaling="spectrum"),
    dict(mode="psd", frame_length=20, frame_step=10, fft_length=32, window=np.hanning(20).astype("float32")),
    dict(mode="real", frame_length=16, window=None, padding="same"),
    dict(mode="imag", frame_length=16, window=None, scaling=None, expand_dims=True),
    dict(mode="angle", frame_length=16, window=None),
    dict(mode="stft", frame_length=16, frame_step=4, window=np.hamming(16), periodic=True),
    dict(mode="log", frame_length=16, window=None, data_format="channels_first", expand_dims=True),
    dict(mode="stft", frame_length=16, window=None, data_format="channels_first"),
]


@pytest.mark.parametrize("kwargs", STFT_CASES)
def test_stft_spectrogram(kwargs):
    first = kwargs.get("data_format") == "channels_first"
    signal = np.transpose(MULTI, [0, 2, 1]) if first else MULTI

    def fn(lib):
        layer = lib.keras.layers.STFTSpectrogram(**kwargs)
        out = layer(signal)
        config = {k: v for k, v in layer.get_config().items() if k != "window"}
        return [out, config, layer.compute_output_shape(signal.shape), [w.path for w in layer.weights],
                [w.trainable for w in layer.weights]]

    same(fn, rtol=1e-4, atol=1e-4)


def test_stft_spectrogram_model_gradient_and_serialization():
    def fn(lib):
        keras, tf = lib.keras, lib.tf
        inputs = keras.Input((300, 3))
        outputs = keras.layers.STFTSpectrogram(mode="magnitude", frame_length=32, window=None)(inputs)
        model = keras.Model(inputs, outputs)
        x = tf.constant(MULTI)
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(model(x) ** 2)
        grads = tape.gradient(loss, [x, *model.trainable_weights])
        layer = model.layers[-1]
        clone = keras.layers.deserialize(keras.layers.serialize(layer))
        return [model.output.shape, grads, type(clone).__name__, clone.get_config()]

    same(fn, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("kwargs", [dict(frame_length=16, frame_step=20), dict(frame_length=16, frame_step=0),
                                    dict(frame_length=32, fft_length=16), dict(mode="power"),
                                    dict(scaling="energy"), dict(padding="causal")])
def test_stft_spectrogram_errors(kwargs):
    same(lambda lib: lib.keras.layers.STFTSpectrogram(window=None, **kwargs))


def test_stft_spectrogram_refuses_integers():
    same(lambda lib: lib.keras.layers.STFTSpectrogram(frame_length=16, window=None)(MULTI.astype("int32")))
