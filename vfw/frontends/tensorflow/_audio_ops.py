"""``tf.audio``: ``decode_wav`` / ``encode_wav`` of 16-bit PCM WAV strings (the codec is ``vfw.io.wav``)."""

import collections

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._io_ops import _on_stand_ins
from vfw.io import wav

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def _fit(samples, channels, frames):
    """``samples`` ``[n, c]`` cut or zero-padded to ``frames`` rows and given ``channels`` columns (extra columns
    repeat the last channel, as TF's decoder), -1 keeping the file's own."""
    if channels != -1:
        samples = samples[:, np.minimum(np.arange(channels), samples.shape[1] - 1)]
    if frames != -1:
        padded = np.zeros((frames, samples.shape[1]), np.float32)
        kept = min(frames, len(samples))
        padded[:kept] = samples[:kept]
        samples = padded
    return samples


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """Decode a 16-bit PCM WAV string.

    Parameters
    ----------
    contents : scalar string tensor
        The WAV file's bytes.
    desired_channels : int
        Channels of the result (-1: the file's); fewer keep the first ones, more repeat the last one.
    desired_samples : int
        Frames of the result (-1: the file's); fewer truncate, more pad with zeros.

    Returns
    -------
    DecodeWav
        ``audio``: ``[samples, channels]`` float32 in [-1, 1); ``sample_rate``: scalar int32.
    """
    contents = convert_to_tensor(contents, dtype=_dtypes.string)
    channels, frames = int(desired_channels), int(desired_samples)

    def run(array):
        value = array.reshape(()).item() if array.ndim == 0 else None
        if value is None:
            raise op_error(f"contents must be scalar, got shape {list(array.shape)}", "DecodeWav")
        try:
            samples, rate = wav.decode(value.encode() if isinstance(value, str) else bytes(value))
        except ValueError as e:
            stand_in_size = _on_stand_ins()
            if not stand_in_size:
                raise op_error(str(e), "DecodeWav") from None
            # a tf.data function traced on stand-in contents: unknown dims of the stand-ins' size
            samples, rate = np.zeros((stand_in_size, stand_in_size), np.float32), 0
        return _fit(samples, channels, frames), np.array(rate, np.int32)

    audio, sample_rate = host(run, contents)
    return DecodeWav(audio, sample_rate)


def encode_wav(audio, sample_rate, name=None):
    """The 16-bit PCM WAV string of ``audio`` (``[samples, channels]`` float32 in [-1, 1], clipped) at
    ``sample_rate`` (scalar int32) Hz."""
    audio = convert_to_tensor(audio, dtype=_dtypes.float32)
    sample_rate = convert_to_tensor(sample_rate, dtype=_dtypes.int32)

    def run(samples, rate):
        if samples.ndim != 2:
            raise op_error(f"audio must be 2-dimensional[{','.join(map(str, samples.shape))}]", "EncodeWav")
        if rate.ndim != 0:
            raise op_error(f"Input sample_rate should be a scalar tensor, got {list(rate.shape)} instead.",
                           "EncodeWav")
        return np.array(wav.encode(samples, int(rate)), dtype=object)

    return host(run, audio, sample_rate)


NAMESPACES = {"audio": ["decode_wav", "encode_wav"]}
TENSOR_METHODS = {}
