"""tf.image crops, pads, seeded random flips and crops, and total variation.

``crop_to_bounding_box`` / ``pad_to_bounding_box`` / ``resize_with_crop_or_pad`` take TF's offsets and its
ValueErrors for statically bad boxes; the ``stateless_random_*`` ops draw from TF's stateless uniform stream with
the caller's ``seed`` exactly as TF does (a flip decision per image, a crop offset per axis), so a seeded
augmentation pipeline picks the same flips and crops as TF.  Everything is composed of tf ops, so tapes and
``tf.function`` / ``Dataset.map`` traces see it.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_ops, _random_stateless
from vfw.frontends.tensorflow._dispatch import convert_to_tensor


def _height_width(image):
    rows = image.shape.rank - 3
    return image.shape[rows], image.shape[rows + 1]


def _box(image, top, left, height, width):
    rows = image.shape.rank - 3
    index = [slice(None)] * image.shape.rank
    index[rows], index[rows + 1] = slice(top, top + height), slice(left, left + width)
    return image[tuple(index)]


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height x target_width`` window of ``image`` (3-D or 4-D) at ``(offset_height, offset_width)``."""
    image = _image_ops._image_rank(image, "crop_to_bounding_box")
    height, width = _height_width(image)
    for name, value in (("offset_width", offset_width), ("offset_height", offset_height)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0.")
    for name, value in (("target_width", target_width), ("target_height", target_height)):
        if value <= 0:
            raise ValueError(f"{name} must be > 0.")
    if width < target_width + offset_width:
        raise ValueError("width must be >= target + offset.")
    if height < target_height + offset_height:
        raise ValueError("height must be >= target + offset.")
    return _box(image, offset_height, offset_width, target_height, target_width)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` (3-D or 4-D) zero-padded to ``target_height x target_width``, placed at the offsets."""
    image = _image_ops._image_rank(image, "pad_to_bounding_box")
    height, width = _height_width(image)
    after_height, after_width = target_height - offset_height - height, target_width - offset_width - width
    for name, value in (("offset_height", offset_height), ("offset_width", offset_width)):
        if value < 0:
            raise ValueError(f"{name} must be >= 0")
    if after_width < 0:
        raise ValueError("width must be <= target - offset")
    if after_height < 0:
        raise ValueError("height must be <= target - offset")
    paddings = [[0, 0]] * (image.shape.rank - 3) + [[offset_height, after_height], [offset_width, after_width], [0, 0]]
    return tf.pad(image, paddings)


def resize_with_crop_or_pad(image, target_height, target_width):
    """``image`` centrally cropped and/or zero-padded to ``target_height x target_width`` (TF's offsets)."""
    image = _image_ops._image_rank(image, "resize_with_crop_or_pad")
    if target_width <= 0:
        raise ValueError("target_width must be > 0.")
    if target_height <= 0:
        raise ValueError("target_height must be > 0.")
    height, width = _height_width(image)
    height_diff, width_diff = target_height - height, target_width - width
    # TF crops from max(-diff // 2, 0) and pads by max(diff // 2, 0) before (floor division of the signed diff)
    cropped = crop_to_bounding_box(image, max(-height_diff // 2, 0), max(-width_diff // 2, 0),
                                   min(target_height, height), min(target_width, width))
    return pad_to_bounding_box(cropped, max(height_diff // 2, 0), max(width_diff // 2, 0), target_height,
                               target_width)


def random_flip(image, uniform, axis_from_end, fn):
    """TF's ``_random_flip``: a 3-D image flips when one uniform draw is < 0.5; a batch flips image ``i`` where
    ``round(u_i)`` is 1 (a blend ``f * flipped + (1 - f) * image`` in the image dtype, as TF computes it).
    ``uniform(shape)`` draws the [0, 1) values (stateless or stateful, as the caller seeds them)."""
    image = _image_ops._image_rank(image, fn)
    axis = image.shape.rank - axis_from_end
    if image.shape.rank == 3:
        draw = uniform([])
        return tf.cond(draw < 0.5, lambda: tf.reverse(image, [axis]), lambda: image)
    draws = uniform(tf.shape(image)[:1])
    flips = tf.cast(tf.round(tf.reshape(draws, [-1, 1, 1, 1])), image.dtype)
    return flips * tf.reverse(image, [axis]) + (1 - flips) * image


def stateless_random_flip_left_right(image, seed):
    """``image`` (3-D, or each image of a 4-D batch) mirrored along its width with probability 1/2, drawn from the
    stateless ``seed`` (shape [2])."""
    return random_flip(image, lambda shape: _random_stateless.stateless_uniform(shape, seed, 0, 1.0), 2,
                       "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image, seed):
    """``image`` (3-D, or each image of a 4-D batch) mirrored along its height with probability 1/2, drawn from the
    stateless ``seed`` (shape [2])."""
    return random_flip(image, lambda shape: _random_stateless.stateless_uniform(shape, seed, 0, 1.0), 3,
                       "stateless_random_flip_up_down")


def stateless_random_crop(value, size, seed, name=None):
    """A ``size``-shaped slice of ``value`` at an offset drawn from the stateless ``seed``: TF draws one int32 per
    axis in ``[0, 2**31 - 1)`` and takes it modulo ``shape - size + 1``."""
    return random_crop_from(value, size, lambda shape: _random_stateless.stateless_uniform(
        shape, seed, 0, 2 ** 31 - 1, dtype=tf.int32))


def random_crop_from(value, size, uniform_ints):
    """TF's random crop: ``uniform_ints(shape)`` draws one int32 per axis in ``[0, 2**31 - 1)`` (stateless or
    stateful, as the caller seeds it), taken modulo ``shape - size + 1`` as the slice's offset."""
    value = convert_to_tensor(value, name="value")
    size = convert_to_tensor(size, dtype=tf.int32, name="size")
    shape = tf.shape(value)
    tf.debugging.assert_greater_equal(shape, size, message="Need value.shape >= size, got ")
    return tf.slice(value, uniform_ints(tf.shape(shape)) % (shape - size + 1), size)


def _neighbour_difference(images, axis):
    """``images[..., i + 1, ...] - images[..., i, ...]`` along ``axis``."""
    later, earlier = [slice(None)] * images.shape.rank, [slice(None)] * images.shape.rank
    later[axis], earlier[axis] = slice(1, None), slice(None, -1)
    return images[tuple(later)] - images[tuple(earlier)]


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels (down and across): a scalar for a 3-D image, one value
    per image for a 4-D batch."""
    images = _image_ops._image_rank(images, "total_variation")
    rows = images.shape.rank - 3
    vertical, horizontal = _neighbour_difference(images, rows), _neighbour_difference(images, rows + 1)
    axis = None if rows == 0 else [1, 2, 3]
    return tf.reduce_sum(tf.abs(vertical), axis=axis) + tf.reduce_sum(tf.abs(horizontal), axis=axis)


NAMESPACES = {"image": ["crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
                        "stateless_random_flip_left_right", "stateless_random_flip_up_down", "stateless_random_crop",
                        "total_variation"]}
