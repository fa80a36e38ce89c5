"""``tf.io.encode_png`` / ``decode_png`` / ``decode_image`` (PNG only; the codec is ``vfw.io.png``).

Run on the host (``host``: a ``tf.function`` graph reruns them on each call).  ``decode_png(channels=1)`` of a
color PNG weighs R, G, B by 0.299, 0.587, 0.114 in 15-bit fixed point; libpng's conversion inside TF can differ
from it by 1 on some pixels.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.io import png

_GRAY_WEIGHTS = np.array([9798, 19235, 3735], np.int64)  # 0.299, 0.587, 0.114 in units of 2**-15


def _contents_bytes(array):
    value = array.reshape(()).item() if array.dtype == object else array.item()
    return value.encode() if isinstance(value, str) else bytes(value)


def _to_channels(image, channels, maximum):
    """``image`` (``[h, w, c]``) with ``channels`` (0 keeps its own): gray replicated, alpha dropped or
    filled with ``maximum``, color weighed to gray."""
    have = image.shape[-1]
    if channels in (0, have):
        return image
    color = image[..., :3] if have >= 3 else np.repeat(image[..., :1], 3, axis=-1)
    if channels == 1:
        if have < 3:
            return image[..., :1]
        gray = (color.astype(np.int64) @ _GRAY_WEIGHTS) >> 15
        return gray.astype(image.dtype)[..., None]
    if channels == 3:
        return color
    alpha = image[..., -1:] if have in (2, 4) else np.full(image.shape[:-1] + (1,), maximum, image.dtype)
    return np.concatenate([color, alpha], axis=-1)


def _decode(contents, channels, dtype, tf_op):
    if channels not in (0, 1, 3, 4):
        raise op_error(f"channels must be 0, 1, 3, or 4, got {channels}", tf_op)
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in ("uint8", "uint16"):
        raise op_error(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: uint8, "
                       f"uint16", tf_op)

    def run(array):
        try:
            image, depth = png.decode(_contents_bytes(array))
        except png.PNGError as e:
            message = str(e)
            if "signature" in message:
                message = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."
            raise op_error(message, tf_op) from None
        # An added alpha channel is (1 << file bit depth) - 1, as TF's libpng filler: 15 for a 4-bit palette.
        image = _to_channels(image, channels, (1 << depth) - 1)
        if dtype.name == "uint8" and image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)  # libpng's strip_16: the high byte
        elif dtype.name == "uint16" and image.dtype == np.uint8:
            image = image.astype(np.uint16) * np.uint16(257)
        return image

    return host(run, convert_to_tensor(contents, dtype=_dtypes.string))


def decode_png(contents, channels=0, dtype=_dtypes.uint8, name=None):
    """``[height, width, channels]`` uint8/uint16 pixels of the PNG string ``contents`` (``channels`` 0: the
    file's own)."""
    return _decode(contents, channels, dtype, "DecodePng")


def decode_image(contents, channels=None, dtype=_dtypes.uint8, name=None, expand_animations=True):
    """``tf.io.decode_image``: PNG data decoded (other formats: InvalidArgumentError); for float ``dtype``s
    decoded to uint16 and scaled to [0, 1] by ``convert_image_dtype``, as TF does."""
    dtype = _dtypes.as_dtype(dtype)
    wide = dtype == _dtypes.uint16 or dtype.is_floating
    image = _decode(contents, channels or 0, _dtypes.uint16 if wide else _dtypes.uint8, "DecodeImage")
    if dtype.is_floating:
        from vfw.frontends.tensorflow._image_ops import convert_image_dtype
        return convert_image_dtype(image, dtype)
    return image


def encode_png(image, compression=-1, name=None):
    """PNG string (scalar) of ``image`` ``[height, width, channels]`` uint8/uint16, 1 to 4 channels."""
    image = convert_to_tensor(image)
    array = image.array
    if array.dtype not in (np.uint8, np.uint16):
        raise TypeError(f"Value passed to parameter 'image' has DataType {_dtypes.of_array(array).name} not in list "
                        f"of allowed values: uint8, uint16")
    if array.ndim != 3:
        raise op_error(f"image must be 3-dimensional[{','.join(map(str, array.shape))}]", "EncodePng")
    if not 1 <= array.shape[-1] <= 4:
        raise op_error(f"image must have 1, 2, 3, or 4 channels, got {array.shape[-1]}", "EncodePng")
    return host(lambda pixels: np.array(png.encode(pixels, compression), dtype=object), image)


NAMESPACES = {"io": ["decode_png", "decode_image", "encode_png"], "image": ["decode_png", "decode_image",
                                                                             "encode_png"]}
TENSOR_METHODS = {}
