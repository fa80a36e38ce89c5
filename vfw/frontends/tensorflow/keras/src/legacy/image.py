"""Image array helpers of ``keras.utils`` / ``tf.keras.preprocessing.image``: ``img_to_array`` (numpy only);
the PIL-based ones raise Keras' ImportError when PIL is missing and are not implemented otherwise."""

import importlib.util

import numpy as np

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


def _needs_pil(function_name):
    if importlib.util.find_spec("PIL") is None:
        raise ImportError(f"Could not import PIL.Image. The use of `{function_name}` requires PIL.")
    raise NotImplementedError(f"vfw does not implement `{function_name}` (PIL image conversion).")


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image of an array: needs PIL (ImportError without it, as Keras)."""
    _needs_pil("array_to_img")


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """Load an image file with PIL: ImportError without PIL, as Keras."""
    _needs_pil("load_img")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Save an array as an image file with PIL: ImportError without PIL, as Keras."""
    _needs_pil("array_to_img")


API = {"utils": ["array_to_img", "img_to_array", "load_img", "save_img"]}
