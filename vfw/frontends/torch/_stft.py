"""Short-time Fourier transforms: ``torch.stft`` and ``torch.istft`` (also as Tensor methods).

Composed of differentiable torch operations: reflection (or other) padding, frames as ``unfold`` windows, the
window's product, ``torch.fft`` along each frame, and for the inverse, overlap-add with ``nn.functional.fold``
divided by the overlap-added squared window (torch's least-squares inverse).
"""

import numpy as np

from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import fft as _fft
from vfw.frontends.torch._complex import complex, view_as_real
from vfw.frontends.torch._creation import ones
from vfw.frontends.torch._dispatch import type_name
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["stft", "istft"]


# what torch's stft / istft say after "A window was not provided. A rectangular window will be applied"
_NO_WINDOW_ADVICE = {
    "stft": ",which is known to cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.",
    "istft": ".Please provide the same window used by stft to make the inversion lossless.",
}


def _window(window, n_fft, win_length, like, fn):
    """``window`` (default ones, with torch's warning) zero-padded on both sides to ``n_fft``."""
    if window is None:
        advice = _NO_WINDOW_ADVICE[fn]
        warn_once(f"A window was not provided. A rectangular window will be applied{advice}To suppress this warning "
                  "and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                  UserWarning, key=fn)
        window = ones(win_length, dtype=like.dtype)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{fn}: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        import vfw.frontends.torch.nn.functional as F  # (nn imports the tensor frontend)

        window = F.pad(window, (left, n_fft - win_length - left))
    return window


def _lengths(n_fft, hop_length, win_length, fn):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"{fn}: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{fn}: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    return hop_length, win_length


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform of a 1-D signal or a batch of them (``(B, L)``).

    Parameters
    ----------
    input : Tensor
        Shape ``(L,)`` or ``(B, L)``; floating point or complex.
    n_fft : int
        Frame length (and transform size).
    hop_length : int, optional
        Step between frames (default ``n_fft // 4``).
    win_length : int, optional
        Window length (default ``n_fft``), the window zero-padded on both sides to ``n_fft``.
    window : Tensor, optional
        Shape ``(win_length,)`` (default: ones, with torch's warning).
    center : bool
        Pad ``n_fft // 2`` on both sides with ``pad_mode`` so frame ``t`` is centred at ``t * hop_length``.
    normalized : bool
        Scale by ``n_fft ** -0.5``.
    onesided : bool, optional
        The ``n_fft // 2 + 1`` non-negative frequencies only (default for real input and window).
    return_complex : bool
        Required for real inputs; False gives the deprecated real form (a last dim of 2).

    Returns
    -------
    Tensor
        ``(B?, n_freq, n_frames)``, complex.
    """
    import vfw.frontends.torch.nn.functional as F

    x = tensor_arg(input, "stft")
    complex_input = x.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if x.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got a tensor of shape {list(x.shape)}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, got "
                           f"{type_name(x.array.dtype)}")
    batched = x.dim() == 2
    frames_of = x if batched else x.unsqueeze(0)
    if center:
        pad = n_fft // 2
        frames_of = F.pad(frames_of.unsqueeze(0), (pad, pad), mode=pad_mode).squeeze(0)
    length = frames_of.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length, "stft")
    if onesided is None:
        onesided = not complex_input
    elif onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = frames_of.unfold(-1, n_fft, hop_length) * _window(window, n_fft, win_length, x, "stft")
    norm = "ortho" if normalized else "backward"
    spectrum = (_fft.rfft if onesided else _fft.fft)(frames, norm=norm).transpose(-1, -2)
    if not batched:
        spectrum = spectrum.squeeze(0)
    if not return_complex:
        warn_once("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                  "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                  "still call torch.view_as_real on the complex output to recover the old return format.",
                  UserWarning)
        return view_as_real(spectrum)
    return spectrum


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of :func:`stft` (least-squares overlap-add).

    Parameters
    ----------
    input : Tensor
        Complex, ``(B?, n_freq, n_frames)``.
    n_fft, hop_length, win_length, window, center, normalized, onesided
        As given to :func:`stft` (``onesided`` defaults to ``n_freq != n_fft``).
    length : int, optional
        The signal length (cropped or zero-padded to it).
    return_complex : bool
        A complex signal (needs a two-sided ``input``).

    Returns
    -------
    Tensor
        ``(B?, length)``.
    """
    import vfw.frontends.torch.nn.functional as F

    spectrum = tensor_arg(input, "istft")
    if not spectrum.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if spectrum.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex values, got shape "
                           f"{list(spectrum.shape)}")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length, "istft")
    if onesided is None:
        onesided = spectrum.shape[-2] != n_fft
    if onesided and return_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if window is not None and window.is_complex():
        raise NotImplementedError("istft: complex windows are not supported by vfw")
    batched = spectrum.dim() == 3
    if not batched:
        spectrum = spectrum.unsqueeze(0)
    norm = "ortho" if normalized else "backward"
    frames = spectrum.transpose(-1, -2)
    frames = _fft.irfft(frames, n=n_fft, norm=norm) if onesided else _fft.ifft(frames, n=n_fft, norm=norm)
    if frames.is_complex() and not return_complex:
        frames = frames.real
    w = _window(window, n_fft, win_length, frames.real if frames.is_complex() else frames, "istft")
    n_frames = frames.shape[-2]
    expected = n_fft + hop_length * (n_frames - 1)

    def overlap_add(columns):  # real (B, n_frames, n_fft) -> (B, expected)
        return F.fold(columns.transpose(-1, -2), output_size=(1, expected), kernel_size=(1, n_fft),
                      stride=(1, hop_length)).reshape(columns.shape[0], expected)

    windowed = frames * w
    if windowed.is_complex():  # (fold is real-valued: the parts one by one)
        signal = complex(overlap_add(windowed.real), overlap_add(windowed.imag))
    else:
        signal = overlap_add(windowed)
    envelope = overlap_add((w * w).expand(1, n_frames, n_fft))
    start = n_fft // 2 if center else 0
    end = expected - start if length is None else start + length
    if end > expected:
        warn_once("The length of signal is shorter than the length parameter. Result is being padded with zeros "
                      "in the tail. Please check your center and hop_length settings.", UserWarning)
        end = expected
    signal, envelope = signal[:, start:end], envelope[:, start:end]
    smallest = float(np.min(np.abs(envelope.array))) if envelope.numel() else 1.0
    if smallest < 1e-11:
        raise RuntimeError(f"istft: window overlap add min: {smallest:g} (the squared window's overlap-add must "
                           "not vanish)")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        signal = F.pad(signal, (0, length - signal.shape[-1]))
    return signal if batched else signal.squeeze(0)


TENSOR_METHODS = {"stft": stft, "istft": istft}
