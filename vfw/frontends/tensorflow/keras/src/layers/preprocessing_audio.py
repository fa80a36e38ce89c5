"""Audio layers: ``MelSpectrogram`` (a data layer: ``keras.ops.stft``, HTK mel filters, decibels) and
``STFTSpectrogram`` (an STFT as a 1-D convolution with trainable kernels from ``keras.initializers.STFT``)."""

import math

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow._signal_mel import mel_weights
from vfw.frontends.tensorflow.keras.src import initializers, ops
from vfw.frontends.tensorflow.keras.src.backend.config import epsilon, standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.initializers.constant_initializers import _window
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _DataLayer

API = {"layers": ["MelSpectrogram", "STFTSpectrogram"]}


class MelSpectrogram(_DataLayer):
    """Mel spectrograms of audio signals ``[samples]`` or ``[batch, samples]``: shape ``[(batch,) num_mel_bins,
    frames]``.

    The magnitude of ``keras.ops.stft`` (centred frames of ``fft_length`` samples every ``sequence_stride``,
    ``window`` over ``sequence_length`` of them) raised to ``mag_exp``, mapped to ``num_mel_bins`` HTK mel bands
    between ``min_freq`` and ``max_freq`` (default ``sampling_rate / 2``), and with ``power_to_db`` in
    decibels relative to ``ref_power`` (powers below ``min_power`` clipped), at most ``top_db`` below the
    largest value of the whole batch.
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None, window="hann", sampling_rate=16000,
                 num_mel_bins=128, min_freq=20.0, max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0,
                 min_power=1e-10, ref_power=1.0, **kwargs):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if fft_length < self.sequence_length:
            raise ValueError("`fft_length` must be greater than or equal to   `sequence_length`. Received: "
                             f"`sequence_length`={self.sequence_length}, `fft_length`={fft_length}.")
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def call(self, inputs):
        dtype = self.compute_dtype if self.compute_dtype in ("float32", "float64") else "float32"  # stft's dtypes
        real, imag = ops.stft(ops.convert_to_tensor(inputs, dtype=dtype), self.sequence_length, self.sequence_stride,
                              self.fft_length, window=self.window, center=True)
        power = ops.power(ops.sqrt(ops.add(ops.square(real), ops.square(imag))), self.mag_exp)
        # Keras computes its filters in float32 whatever the compute dtype
        matrix = mel_weights(self.num_mel_bins, power.shape[-1], self.sampling_rate, self.min_freq, self.max_freq,
                             np.float32)
        outputs = ops.tensordot(power, matrix, axes=1)
        if self.power_to_db:
            outputs = self._decibels(outputs)
        return ops.cast(ops.swapaxes(outputs, -1, -2), self.compute_dtype)

    def _decibels(self, power):
        levels = 10.0 * ops.log10(ops.maximum(power, self.min_power))
        reference = ops.abs(ops.convert_to_tensor(self.ref_power))
        levels = levels - 10.0 * ops.log10(ops.maximum(reference, self.min_power))
        return ops.maximum(levels, ops.max(levels) - self.top_db)

    def compute_output_shape(self, input_shape):
        samples = input_shape[-1]
        frames = None if samples is None else (samples + self.sequence_stride + 1) // self.sequence_stride
        if len(input_shape) == 1:
            return [self.num_mel_bins, frames]
        return [input_shape[0], self.num_mel_bins, frames]

    def get_config(self):
        return {**super().get_config(), "fft_length": self.fft_length, "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window, "sampling_rate": self.sampling_rate,
                "num_mel_bins": self.num_mel_bins, "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db, "mag_exp": self.mag_exp,
                "min_power": self.min_power, "ref_power": self.ref_power}


_MODES = ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]


def _check_stft_arguments(mode, frame_length, frame_step, fft_length, window, scaling, padding):
    if frame_step is not None and (frame_step > frame_length or frame_step < 1):
        raise ValueError("`frame_step` should be a positive integer not greater than `frame_length`. Received "
                         f"frame_step={frame_step}, frame_length={frame_length}")
    if fft_length is not None and fft_length < frame_length:
        raise ValueError("`fft_length` should be not less than `frame_length`. Received "
                         f"fft_length={fft_length}, frame_length={frame_length}")
    if fft_length is not None and fft_length & -fft_length != fft_length:
        warn_for_user(f"`fft_length` is recommended to be a power of two. Received fft_length={fft_length}")
    if mode not in _MODES:
        raise ValueError(f"Output mode is invalid, it must be one of {', '.join(_MODES)}. Received: mode={mode}")
    if scaling is not None and scaling not in ("density", "spectrum"):
        raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received scaling={scaling}")
    if padding not in ("valid", "same"):
        raise ValueError(f"Padding is invalid, it should be 'valid', 'same'. Received: padding={padding}")
    if isinstance(window, str):
        _window(window, 1, False)  # an unknown name raises ValueError


class STFTSpectrogram(Layer):
    """Spectrograms of multi-channel signals ``[batch, samples, channels]`` (``channels_first``: ``[batch,
    channels, samples]``) by a 1-D convolution with the STFT kernels (``real_kernel``/``imag_kernel``, shape
    ``[frame_length, 1, fft_length // 2 + 1]``, trainable).

    ``mode``: "log" (log magnitude), "magnitude", "psd" (power, the inner bins doubled), "real", "imag",
    "angle" or "stft" (real and imaginary bins concatenated).  Frames of ``frame_length`` samples every
    ``frame_step`` (default half a frame); ``fft_length`` defaults to the next power of 2.  Output
    ``[batch, frames, channels * bins]`` (``expand_dims``: ``[batch, frames, bins, channels]``).
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None, window="hann", periodic=False,
                 scaling="density", padding="valid", expand_dims=False, data_format=None, **kwargs):
        _check_stft_arguments(mode, frame_length, frame_step, fft_length, window, scaling, padding)
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode != {"real": "imag", "imag": "real"}[side]:
                setattr(self, f"{side}_kernel", self.add_weight(
                    name=f"{side}_kernel", shape=shape,
                    initializer=initializers.STFT(side, self.window, self.scaling, self.periodic)))

    def _convolve(self, inputs, kernel):
        """``[batch, channels, bins, frames]``: each channel convolved with ``kernel`` on its own."""
        last = self.data_format == "channels_last"
        if last:
            inputs = ops.transpose(inputs, [0, 2, 1])
        channels, samples = inputs.shape[1], inputs.shape[2]
        single = ops.reshape(inputs, [-1, samples, 1] if last else [-1, 1, samples])
        outputs = ops.conv(single, ops.cast(kernel, inputs.dtype.name), strides=self._frame_step, padding=self.padding,
                           data_format=self.data_format)
        if last:
            outputs = ops.transpose(outputs, [0, 2, 1])
        return ops.reshape(outputs, [-1, channels, outputs.shape[1], outputs.shape[2]])

    def _layout(self, outputs):
        """``[batch, channels, bins, frames]`` in the layer's output layout."""
        channels, bins, frames = outputs.shape[1], outputs.shape[2], outputs.shape[3]
        if self.expand_dims:
            return ops.transpose(outputs, [0, 3, 2, 1] if self.data_format == "channels_last" else [0, 1, 3, 2])
        outputs = ops.reshape(outputs, [-1, channels * bins, frames])
        return ops.transpose(outputs, [0, 2, 1]) if self.data_format == "channels_last" else outputs

    def call(self, inputs):
        dtype = tf.convert_to_tensor(inputs).dtype
        if dtype.name not in ("float16", "float32", "float64"):
            raise TypeError(f"Invalid input type. Expected `float16`, `float32` or `float64`. Received: input "
                            f"type={dtype}")
        real = None if self.mode == "imag" else self._convolve(inputs, self.real_kernel)
        imag = None if self.mode == "real" else self._convolve(inputs, self.imag_kernel)
        if self.mode in ("real", "imag"):
            return self._layout(real if self.mode == "real" else imag)
        if self.mode == "angle":
            return self._layout(ops.arctan2(imag, real))
        if self.mode == "stft":
            return self._layout(ops.concatenate([real, imag], axis=2))
        power = ops.square(real) + ops.square(imag)
        if self.mode == "psd":  # one-sided: the bins between DC and Nyquist count twice
            return self._layout(power + ops.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]]))
        magnitude = self._layout(ops.sqrt(ops.maximum(power, epsilon())))
        return magnitude if self.mode == "magnitude" else ops.log(ops.maximum(magnitude, epsilon()))

    def compute_output_shape(self, input_shape):
        last = self.data_format == "channels_last"
        channels = input_shape[-1] if last else input_shape[1]
        samples = input_shape[1] if last else input_shape[2]
        bins = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        if samples is None:
            frames = None
        elif self.padding == "same":
            frames = -(-samples // self._frame_step)
        else:
            frames = (samples - self.frame_length) // self._frame_step + 1
        if self.expand_dims:
            return (input_shape[0], frames, bins, channels) if last else (input_shape[0], channels, frames, bins)
        return (input_shape[0], frames, bins * channels) if last else (input_shape[0], bins * channels, frames)

    def get_config(self):
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length, "window": self.window,
                "periodic": self.periodic, "scaling": self.scaling, "padding": self.padding,
                "data_format": self.data_format, "expand_dims": self.expand_dims}
