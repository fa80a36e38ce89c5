"""Image array helpers of ``keras.utils`` / ``tf.keras.preprocessing.image``: ``img_to_array`` (numpy only) and
the PIL-based ``array_to_img``/``load_img``/``save_img`` (PIL is optional, as for Keras: ImportError without it)."""

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend.config import floatx, standardize_data_format


def img_to_array(img, data_format=None, dtype=None):
    """A ``(height, width, channels)`` array (``(channels, height, width)`` for ``"channels_first"``) of an
    image or array; 2-D inputs get one channel. ``dtype`` defaults to ``floatx()``."""
    data_format = standardize_data_format(data_format)
    array = np.asarray(img, dtype=dtype or floatx())
    if array.ndim == 3:
        return array.transpose(2, 0, 1) if data_format == "channels_first" else array
    if array.ndim == 2:
        return array.reshape((1, *array.shape)) if data_format == "channels_first" else \
            array.reshape((*array.shape, 1))
    raise ValueError(f"Unsupported image shape: {array.shape}")


def _pil_image(function_name):
    """``PIL.Image``, which these helpers need as Keras' do (ImportError naming ``function_name`` without it)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"Could not import PIL.Image. The use of `{function_name}` requires PIL.") from None
    return Image


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image of a ``(height, width, channels)`` array (``channels_first``: channels first).

    Parameters
    ----------
    x : array_like
        Rank 3, with 1 (``"L"``, or ``"I"`` above 255), 3 (``"RGB"``) or 4 (``"RGBA"``) channels.
    data_format : {"channels_last", "channels_first"}, optional
    scale : bool
        Stretch the values to [0, 255] first (minimum to 0, maximum to 255).
    dtype : str, optional
        The array's working dtype (``floatx()``).

    Returns
    -------
    PIL.Image.Image
    """
    image = _pil_image("array_to_img")
    data_format = standardize_data_format(data_format)
    x = np.asarray(x, dtype=dtype or floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x = x / peak
        x = x * 255
    channels = x.shape[2]
    if channels == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:  # 32-bit signed integer grayscale
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


_RESAMPLING = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """Load an image file (or file object) as a PIL image.

    Parameters
    ----------
    path : str, path-like or file object
    color_mode : {"rgb", "rgba", "grayscale"}
    target_size : tuple of 2 ints, optional
        ``(height, width)`` to resize to.
    interpolation : {"nearest", "bilinear", "bicubic", "hamming", "box", "lanczos"}
        PIL's resampling filter for the resize.
    keep_aspect_ratio : bool
        Crop the centre to the target's aspect ratio before resizing.

    Returns
    -------
    PIL.Image.Image
    """
    image = _pil_image("load_img")
    if isinstance(path, (bytes, bytearray)):
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    img = image.open(path if hasattr(path, "read") else str(path))
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif color_mode == "rgb":
        if img.mode != "RGB":
            img = img.convert("RGB")
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is None:
        return img
    height, width = target_size
    if img.size == (width, height):
        return img
    if interpolation not in _RESAMPLING:
        raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported methods are "
                         f"{', '.join(_RESAMPLING)}")
    resample = getattr(image.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return img.resize((width, height), resample)
    old_width, old_height = img.size
    crop_width = min(old_width, old_height * width // height)
    crop_height = min(old_height, old_width * height // width)
    left, top = (old_width - crop_width) // 2, (old_height - crop_height) // 2
    return img.resize((width, height), resample, box=(left, top, left + crop_width, top + crop_height))


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Save an image array to ``path`` (or a file object, with ``file_format``) through PIL.

    Parameters
    ----------
    path : str, path-like or file object
    x : array_like
        As :func:`array_to_img` takes it.
    data_format : {"channels_last", "channels_first"}, optional
    file_format : str, optional
        PIL's format name; by default from the file name's extension.
    scale : bool
        Stretch the values to [0, 255] first.
    **kwargs
        Passed to ``PIL.Image.Image.save``.
    """
    _pil_image("save_img")
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        warn_for_user("The JPG format does not support RGBA images, converting to RGB.")
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


API = {"utils": ["array_to_img", "img_to_array", "load_img", "save_img"]}
