"""WAV encoding (16-bit PCM), as ``tf.audio.encode_wav`` writes it for audio summaries."""

import struct

import numpy as np


def encode(samples, sample_rate):
    """RIFF/WAVE bytes of ``samples`` (``[frames, channels]`` floats in [-1, 1], scaled by 32768, rounded with
    halves away from zero and clipped to int16) at ``sample_rate`` Hz."""
    channels = samples.shape[1]
    scaled = samples.astype(np.float64) * 32768.0
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # halves away from zero, as TF's std::round
    pcm = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    rate = int(sample_rate)
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1, channels, rate,
                         rate * channels * 2, channels * 2, 16, b"data", len(pcm))
    return header + pcm
