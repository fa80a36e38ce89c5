"""tf.keras' legacy per-image transforms (``tf.keras.preprocessing.image.apply_affine_transform``,
``random_rotation``...) and ``smart_resize``.

Images are numpy arrays of rank 3. Random draws come from numpy's global generator in Keras' order, so a seeded
``np.random`` gives Keras' parameters. As in Keras, the affine resampling is scipy's
(``scipy.ndimage.affine_transform``, spline interpolation of ``order``): without scipy a transform that moves
pixels raises Keras' ImportError, an identity transform returns the image unchanged. The brightness shift goes
through PIL's ``ImageEnhance.Brightness``.
"""

import importlib

import numpy as np

from vfw.frontends.tensorflow.keras.src.legacy.image import array_to_img, img_to_array


def _ndimage():
    """``scipy.ndimage``, or Keras' ImportError when scipy is missing."""
    try:
        return importlib.import_module("scipy.ndimage")
    except ImportError:
        raise ImportError("This requires the scipy module. You can install it via `pip install scipy`") from None


def _affine_matrix(theta, tx, ty, shear, zx, zy):
    """The 3x3 homogeneous matrix mapping output (row, col) to input coordinates: rotation, then shift, shear and
    zoom composed on the right; None for the identity (no resampling then)."""
    factors = []
    if theta != 0:
        angle = np.deg2rad(theta)
        cos, sin = np.cos(angle), np.sin(angle)
        factors.append(np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        factors.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        angle = np.deg2rad(shear)
        factors.append(np.array([[1, -np.sin(angle), 0], [0, np.cos(angle), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        factors.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not factors:
        return None
    matrix = factors[0]
    for factor in factors[1:]:
        matrix = np.dot(matrix, factor)
    return matrix


def _centered(matrix, height, width):
    """``matrix`` acting about the image centre ``((h - 1) / 2, (w - 1) / 2)`` instead of the origin."""
    centre_row, centre_col = float(height) / 2 - 0.5, float(width) / 2 - 0.5
    to_centre = np.array([[1, 0, centre_row], [0, 1, centre_col], [0, 0, 1]])
    from_centre = np.array([[1, 0, -centre_row], [0, 1, -centre_col], [0, 0, 1]])
    return np.dot(np.dot(to_centre, matrix), from_centre)


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1, col_axis=2, channel_axis=0,
                           fill_mode="nearest", cval=0.0, order=1):
    """Rotate, shift, shear and zoom one image about its centre (scipy's ``affine_transform`` per channel).

    Parameters
    ----------
    x : ndarray
        One image, rank 3.
    theta : float
        Rotation angle in degrees.
    tx, ty : float
        Shifts along the row and column axes, in pixels.
    shear : float
        Shear angle in degrees.
    zx, zy : float
        Zoom factors along the row and column axes.
    row_axis, col_axis, channel_axis : int
        A permutation of 0, 1, 2; the channels must be first or last.
    fill_mode : {"constant", "nearest", "reflect", "wrap"}
        How points outside the image are filled.
    cval : float
        The fill value for ``"constant"``.
    order : int
        Spline interpolation order.

    Returns
    -------
    ndarray
        The transformed image (``x`` itself when the transform is the identity).
    """
    axes = {row_axis, col_axis, channel_axis}
    if len(axes) != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    if axes != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {axes - {0, 1, 2}}")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrix = _affine_matrix(theta, tx, ty, shear, zx, zy)
    if matrix is None:
        return x
    matrix = _centered(matrix, x.shape[row_axis], x.shape[col_axis])
    if col_axis > row_axis:  # Keras' parameters name the axes the other way round: swap the two coordinates
        matrix = matrix[[1, 0, 2]][:, [1, 0, 2]]
    ndimage = _ndimage()
    planes = np.moveaxis(x, channel_axis, 0)
    moved = np.stack([ndimage.affine_transform(plane, matrix[:2, :2], matrix[:2, 2], order=order, mode=fill_mode,
                                               cval=cval) for plane in planes])
    return np.moveaxis(moved, 0, channel_axis)


def _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order, **parameters):
    return apply_affine_transform(x, **parameters, row_axis=row_axis, col_axis=col_axis, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                    interpolation_order=1):
    """Rotate one image by an angle drawn uniformly from ``[-rg, rg]`` degrees (``np.random``)."""
    theta = np.random.uniform(-rg, rg)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order, theta=theta)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shift one image by uniform fractions of its height (``[-hrg, hrg]``, drawn first) and width
    (``[-wrg, wrg]``)."""
    tx = np.random.uniform(-hrg, hrg) * x.shape[row_axis]
    ty = np.random.uniform(-wrg, wrg) * x.shape[col_axis]
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order, tx=tx, ty=ty)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                 interpolation_order=1):
    """Shear one image by an angle drawn uniformly from ``[-intensity, intensity]`` degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order, shear=shear)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                interpolation_order=1):
    """Zoom one image by two factors (rows, columns) drawn uniformly from ``zoom_range`` (none drawn for
    ``(1, 1)``)."""
    if len(zoom_range) != 2:
        raise ValueError(f"`zoom_range` should be a tuple or list of two floats. Received: {zoom_range}")
    zx, zy = draw_zoom(zoom_range)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order, zx=zx, zy=zy)


def draw_zoom(zoom_range):
    """Two zoom factors drawn uniformly from ``zoom_range`` in one draw, or ``(1, 1)`` without a draw."""
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        return 1, 1
    zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return zx, zy


def apply_channel_shift(x, intensity, channel_axis=0):
    """Add ``intensity`` to every channel of one image, clipped to the image's original value range."""
    low, high = np.min(x), np.max(x)
    planes = np.moveaxis(x, channel_axis, 0)
    shifted = np.stack([np.clip(plane + intensity, low, high) for plane in planes])
    return np.moveaxis(shifted, 0, channel_axis)


def random_channel_shift(x, intensity_range, channel_axis=0):
    """:func:`apply_channel_shift` by an intensity drawn uniformly from ``[-intensity_range, intensity_range]``."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x, brightness, scale=True):
    """Change one image's brightness by PIL's ``ImageEnhance.Brightness(brightness)``.

    Parameters
    ----------
    x : ndarray
        One ``(height, width, channels)`` image (the default data format).
    brightness : float
        The enhancement factor (1 keeps the image).
    scale : bool
        Return the image stretched to [0, 255]; with False, an image whose values left [0, 255] is mapped back to
        its original range.

    Returns
    -------
    ndarray of ``floatx()``
    """
    from PIL import ImageEnhance

    low, high = np.min(x), np.max(x)
    out_of_byte_range = (low < 0) or (high > 255)
    img = array_to_img(x, scale=out_of_byte_range or scale)
    shifted = img_to_array(ImageEnhance.Brightness(img).enhance(brightness))
    if not scale and out_of_byte_range:
        shifted = shifted / 255 * (high - low) + low
    return shifted


def random_brightness(x, brightness_range, scale=True):
    """:func:`apply_brightness_shift` by a factor drawn uniformly from ``brightness_range``."""
    if len(brightness_range) != 2:
        raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
    factor = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, factor, scale)


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last", **kwargs):
    """Resize images to ``size`` without distorting them: crop the largest centred window of the target aspect
    ratio, then resize it (``keras.ops.image.resize``).

    Parameters
    ----------
    x : ndarray or tensor
        ``(height, width, channels)`` or ``(batch, height, width, channels)`` (channels first for
        ``"channels_first"``).
    size : (int, int)
        Target ``(height, width)``.
    interpolation : str
        ``"bilinear"``, ``"nearest"``, ``"bicubic"``, ``"lanczos3"``, ``"lanczos5"``, ``"area"``.
    data_format : {"channels_last", "channels_first"}

    Returns
    -------
    ndarray for a numpy input, a tensor otherwise.
    """
    import vfw.tensorflow as tf
    from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import check_resize_interpolation

    kwargs.pop("backend_module", None)
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs.keys())}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = tf.convert_to_tensor(x)
    if not 3 <= len(img.shape) <= 4:
        raise ValueError("Expected an image array with shape `(height, width, channels)`, or `(batch_size, height, "
                         f"width, channels)`, but got input with incorrect rank, of shape {img.shape}.")
    spatial = -3 if data_format == "channels_last" else -2
    height, width = img.shape[spatial], img.shape[spatial + 1]
    target_height, target_width = size
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    top, left = int(float(height - crop_height) / 2), int(float(width - crop_width) / 2)
    window = [slice(None)] * len(img.shape)
    window[spatial] = slice(top, top + crop_height)
    window[spatial + 1] = slice(left, left + crop_width)
    check_resize_interpolation(interpolation)
    img = img[tuple(window)]
    if data_format != "channels_last":  # resize channels-last images, then move the channels back
        img = tf.experimental.numpy.moveaxis(img, -3, -1)
    img = tf.image.resize(img, size, method=interpolation)
    if data_format != "channels_last":
        img = tf.experimental.numpy.moveaxis(img, -1, -3)
    return np.array(img) if isinstance(x, np.ndarray) else img
