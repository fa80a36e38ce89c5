"""WAV encoding and decoding (16-bit PCM), as ``tf.audio.encode_wav`` / ``decode_wav`` read and write it."""

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


def decode(data):
    """``(samples, sample_rate)`` of 16-bit PCM WAV bytes: ``samples`` is ``[frames, channels]`` float32, each
    int16 divided by 32768.  Chunks other than ``fmt `` and ``data`` are skipped.  Raises ValueError on
    malformed or unsupported files."""
    if len(data) < 12:
        raise ValueError("Data too short when trying to read string")
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"Header mismatch: Expected RIFF/WAVE but found {data[:4]!r}/{data[8:12]!r}")
    offset, fmt, pcm = 12, None, None
    while offset + 8 <= len(data) and pcm is None:
        chunk_id, size = struct.unpack_from("<4sI", data, offset)
        body = data[offset + 8:offset + 8 + size]
        if len(body) < size:
            raise ValueError("Data too short when trying to read chunk")
        if chunk_id == b"fmt ":
            if size < 16:
                raise ValueError(f"Bad fmt chunk size {size}")
            fmt = struct.unpack_from("<HHIIHH", body)
        elif chunk_id == b"data":
            pcm = body
        offset += 8 + size
    if fmt is None:
        raise ValueError("Did not find fmt chunk")
    if pcm is None:
        raise ValueError("No data chunk found in WAV")
    audio_format, channels, rate, _, _, bits = fmt
    if audio_format != 1:
        raise ValueError(f"Bad audio format {audio_format}. Expected 1 (PCM)")
    if bits != 16:
        raise ValueError(f"Can only read 16-bit WAV files, but received {bits}")
    if channels < 1:
        raise ValueError("Bad number of channels for WAV file: 0")
    frames = len(pcm) // (2 * channels)
    samples = np.frombuffer(pcm[:frames * 2 * channels], "<i2").reshape(frames, channels)
    return samples.astype(np.float32) / np.float32(32768.0), rate
