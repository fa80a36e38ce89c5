"""``tf.io`` image codecs: ``decode_jpeg`` / ``decode_png`` / ``decode_gif`` / ``decode_bmp`` / ``decode_image`` (all
dispatch on the magic bytes, as TF's), ``encode_png``, ``is_jpeg``, ``extract_jpeg_shape`` (the codecs are
``vfw.io.jpeg`` / ``png`` / ``gif`` / ``bmp``).

Run on the host (``host``: a ``tf.function`` graph reruns them on each call).  ``decode_png(channels=1)`` of a
color PNG weighs R, G, B by 0.299, 0.587, 0.114 in 15-bit fixed point, as libpng inside TF.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, _traced_shapes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.io import bmp, gif, jpeg, png

# libpng's rgb_to_gray weights for TF's 0.299 and 0.587: each floored to units of 2**-15, blue the remainder
_GRAY_WEIGHTS = np.array([9797, 19234, 3737], np.int64)


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
        rounding = 16384 if image.dtype == np.uint16 else 0  # libpng rounds 16-bit sums, truncates 8-bit ones
        gray = (color.astype(np.int64) @ _GRAY_WEIGHTS + rounding) >> 15
        return gray.astype(image.dtype)[..., None]
    if channels == 3:
        return color
    alpha = image[..., -1:] if have in (2, 4) else np.full(image.shape[:-1] + (1,), maximum, image.dtype)
    return np.concatenate([color, alpha], axis=-1)


_FORMAT_NAMES = {"jpeg": "JPEG", "png": "PNG", "gif": "GIF", "bmp": "BMP"}
_OP_FORMATS = {"DecodeJpeg": "jpeg", "DecodePng": "png", "DecodeGif": "gif", "DecodeBmp": "bmp"}


def _image_format(data):
    """``"jpeg"``, ``"png"``, ``"gif"``, ``"bmp"`` or None, from the magic bytes of ``data``."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == png.SIGNATURE:
        return "png"
    if data[:6] in gif.SIGNATURES:
        return "gif"
    if data[:2] == bmp.SIGNATURE:
        return "bmp"
    return None


def _check_channels(kind, channels, tf_op):
    """TF's per-format ``channels`` checks."""
    if kind == "jpeg" and channels == 4:
        raise op_error("JPEG does not support 4 channels", tf_op)
    if kind == "gif" and channels not in (0, 3):
        raise op_error(f"channels must be 0 or 3 for GIF, got {channels}", tf_op)
    if kind == "bmp" and channels not in (0, 3, 4):
        raise op_error(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}", tf_op)


def _decode_bytes(data, channels, wide, tf_op, expand_animations, jpeg_options):
    """The pixels of image bytes ``data`` in any format (uint16 when ``wide``): ``[h, w, c]``, or
    ``[frames, h, w, 3]`` for GIFs when ``expand_animations`` (always for DecodeGif)."""
    kind = _image_format(data)
    if kind is None:
        raise op_error("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.", tf_op)
    wanted = _OP_FORMATS.get(tf_op)
    if tf_op == "DecodeBmp" and kind != "bmp":
        raise op_error(f"Trying to decode {_FORMAT_NAMES[kind]} format using DecodeBmp op. Use `decode_{kind}` or "
                       f"`decode_image` instead.", tf_op)
    if kind == "bmp" and wanted not in (None, "bmp"):
        raise op_error(f"Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` instead. "
                       f"Op used: {tf_op}", tf_op)
    _check_channels(kind, channels, tf_op)
    depth = 8
    try:
        if kind == "png":
            image, depth = png.decode(data)
        elif kind == "jpeg":
            image = jpeg.decode(data, gray=channels == 1, **jpeg_options)
        elif kind == "bmp":
            image = bmp.decode(data)
        else:
            image = gif.decode(data)
    except (png.PNGError, jpeg.JPEGError, gif.GIFError, bmp.BMPError) as e:
        raise op_error(str(e), tf_op) from None
    if kind == "gif":
        if tf_op == "DecodeGif" or (expand_animations and tf_op == "DecodeImage"):
            return image.astype(np.uint16) << 8 if wide else image
        if len(image) > 1 and tf_op != "DecodeImage":
            raise op_error(f"Got {len(image)} frames, but animated gifs can only be decoded by tf.io.decode_gif or "
                           f"tf.io.decode_image", tf_op)
        image = image[0]
    if tf_op == "DecodeGif":  # other formats become one RGB frame
        channels = 3
    # An added alpha channel is (1 << file bit depth) - 1, as TF's libpng filler: 15 for a 4-bit palette.
    image = _to_channels(image, channels, (1 << depth) - 1)
    if not wide and image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)  # libpng's strip_16: the high byte
    elif wide and image.dtype == np.uint8:
        # libpng expands 8-bit samples to 16 bits (x 257); TF widens the other formats' as convert_image_dtype (x 256)
        image = image.astype(np.uint16) * np.uint16(257 if kind == "png" else 256)
    if tf_op == "DecodeGif":
        image = image[None]
    return image


def _decode(contents, channels, dtype, tf_op, expand_animations=True, fancy_upsampling=True, fast_idct=True):
    """The pixels of the string tensor ``contents`` (JPEG options: TF's defaults, IFAST, for every op), as
    ``dtype`` uint8, uint16 or (DecodeImage only) float32: 16-bit PNG samples or 8-bit ones of the other formats
    scaled to [0, 1]."""
    jpeg_options = {"fancy_upsampling": fancy_upsampling, "fast_idct": fast_idct}
    if channels not in (0, 1, 3, 4):
        raise op_error(f"`channels` must be 0, 1, 3 or 4 but got {channels}", tf_op)
    dtype = _dtypes.as_dtype(dtype)
    if dtype.name not in ("uint8", "uint16", "float32"):
        raise op_error(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: uint8, "
                       f"uint16", tf_op)

    def run(array):
        data = _contents_bytes(array)
        floats = dtype.name == "float32"
        wide = dtype.name == "uint16" or (floats and _image_format(data) == "png")
        image = _decode_bytes(data, channels, wide, tf_op, expand_animations, jpeg_options)
        if floats:
            return image.astype(np.float32) * np.float32(1 / np.iinfo(image.dtype).max)
        return image

    pixels = host(run, convert_to_tensor(contents, dtype=_dtypes.string))
    # Inside tf.function the size comes from the file each call reads: only the channels asked for are static, as
    # in TF's shapes (an animation's frame count too, and with expand_animations, the rank: not modelled here)
    static_channels = 3 if tf_op == "DecodeGif" else (channels or None)
    last = None if tf_op == "DecodeImage" and expand_animations else static_channels
    dims = [None] * (pixels.array.ndim - 1) + [last]
    return _traced_shapes.value_shaped(pixels, dims)


def decode_png(contents, channels=0, dtype=_dtypes.uint8, name=None):
    """``[height, width, channels]`` uint8/uint16 pixels of the PNG string ``contents`` (``channels`` 0: the
    file's own).  As TF, JPEG and single-frame GIF data decode too."""
    return _decode(contents, channels, dtype, "DecodePng")


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """``[height, width, channels]`` uint8 pixels of the JPEG string ``contents``, as TF's libjpeg-turbo decodes
    them (``channels`` 0: the file's own, 1: the luma of a color file, 3: RGB).

    Parameters
    ----------
    ratio : int
        Only 1 (scaled decoding is not implemented).
    fancy_upscaling : bool
        Triangle-filter chroma upsampling; False replicates chroma samples.
    try_recover_truncated, acceptable_fraction
        Accepted (a slightly truncated scan decodes with zero bits, as libjpeg reads it).
    dct_method : str
        ``""`` or ``"INTEGER_FAST"`` (TF's default: libjpeg's IFAST), ``"INTEGER_ACCURATE"`` (ISLOW).
    """
    if ratio != 1:
        raise op_error(f"vfw decodes JPEG at ratio 1 only, got ratio={ratio}", "DecodeJpeg")
    return _decode(contents, channels, _dtypes.uint8, "DecodeJpeg", fancy_upsampling=fancy_upscaling,
                   fast_idct=dct_method != "INTEGER_ACCURATE")


def decode_gif(contents, name=None):
    """``[frames, height, width, 3]`` uint8 frames of the GIF string ``contents`` (other formats: one frame)."""
    return _decode(contents, 0, _dtypes.uint8, "DecodeGif")


def decode_bmp(contents, channels=0, name=None):
    """``[height, width, channels]`` uint8 pixels of the BMP string ``contents``."""
    return _decode(contents, channels, _dtypes.uint8, "DecodeBmp")


def decode_image(contents, channels=None, dtype=_dtypes.uint8, name=None, expand_animations=True):
    """``tf.io.decode_image``: JPEG, PNG, GIF or BMP data decoded by its magic bytes (animated GIFs 4-D when
    ``expand_animations``); float32 is scaled to [0, 1] from 16 bits for PNGs and 8 for the others, other float
    ``dtype``s are decoded to uint16 and scaled by ``convert_image_dtype``, as TF does."""
    dtype = _dtypes.as_dtype(dtype)
    decoded = dtype if dtype in (_dtypes.uint8, _dtypes.float32) else _dtypes.uint16
    image = _decode(contents, channels or 0, decoded, "DecodeImage", expand_animations)
    if dtype != decoded:
        from vfw.frontends.tensorflow._image_ops import convert_image_dtype
        return convert_image_dtype(image, dtype)
    return image


def is_jpeg(contents, name=None):
    """Scalar bool: whether the string ``contents`` starts with JPEG's magic bytes."""
    return host(lambda array: np.array(_contents_bytes(array)[:3] == b"\xff\xd8\xff"),
                convert_to_tensor(contents, dtype=_dtypes.string))


def extract_jpeg_shape(contents, output_type=_dtypes.int32, name=None):
    """``[height, width, channels]`` of the JPEG string ``contents`` from its frame header."""
    numpy_type = _dtypes.as_dtype(output_type).as_numpy_dtype

    def run(array):
        try:
            return np.array(jpeg.image_shape(_contents_bytes(array)), numpy_type)
        except jpeg.JPEGError as e:
            raise op_error(str(e), "ExtractJpegShape") from None

    return host(run, convert_to_tensor(contents, dtype=_dtypes.string))


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


_CODECS = ["decode_bmp", "decode_gif", "decode_image", "decode_jpeg", "decode_png", "encode_png",
           "extract_jpeg_shape", "is_jpeg"]
NAMESPACES = {"io": _CODECS, "image": _CODECS}
TENSOR_METHODS = {}
