"""Image preprocessing and augmentation layers: Resizing, CenterCrop, RandomCrop, RandomFlip, RandomRotation,
RandomZoom, RandomTranslation, RandomContrast, RandomBrightness.

Images are 3-D (one image) or 4-D (a batch).  The random layers draw their parameters through
``keras.random`` from a ``SeedGenerator`` of their own, in Keras' order and shapes (one draw per image of
a batch, one for an unbatched image), so with the same seed they make Keras' augmentations.  Their
``training`` defaults to True, as in Keras: called directly they augment; ``training=False`` (``predict``,
``evaluate``) passes the images through cast to the compute dtype.  Rotation, zoom and translation
resample with TF's projective transform (``tf.image`` helpers), whose fill modes they take.
"""

import math

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_ops
from vfw.frontends.tensorflow.keras.src import backend, random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing import _DataLayer

API = {"layers": ["Resizing", "CenterCrop", "RandomCrop", "RandomFlip", "RandomRotation", "RandomZoom",
                  "RandomTranslation", "RandomContrast", "RandomBrightness"]}

_AFFINE_INTERPOLATIONS = ("nearest", "bilinear")
RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


class _ImageLayer(_DataLayer):
    """Image layers' common part: the data format, the height/width axes, rank checks."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = backend.standardize_data_format(data_format)

    def _axes(self):
        """(height axis, width axis), counted from the end."""
        return (-2, -1) if self.data_format == "channels_first" else (-3, -2)

    def _hw(self, images):
        h_axis, w_axis = self._axes()
        return images.shape[h_axis], images.shape[w_axis]

    @staticmethod
    def _images(inputs):
        images = tf.convert_to_tensor(inputs)
        if images.shape.rank not in (3, 4):
            raise ValueError(f"Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
                             f"Received: data.shape={tuple(images.shape)}")
        return images

    def _crop(self, images, top, left, height, width):
        index = [slice(None)] * images.shape.rank
        h_axis, w_axis = self._axes()
        index[h_axis] = slice(top, top + height)
        index[w_axis] = slice(left, left + width)
        return images[tuple(index)]

    def _resized_shape(self, input_shape, height, width):
        shape = list(input_shape)
        h_axis, w_axis = self._axes()
        shape[h_axis], shape[w_axis] = height, width
        return tuple(shape)

    def compute_output_shape(self, input_shape):
        return input_shape


def _channels_moved(images, last):
    """channels_first images to channels_last (``last``) or back."""
    perm = [0, 2, 3, 1] if last else [0, 3, 1, 2]
    if images.shape.rank == 3:
        perm = [axis - 1 for axis in perm[1:]]
    return tf.transpose(images, perm)


def _aspect_crop(height, width, target_height, target_width):
    """Keras' centered crop of the target's aspect ratio: ``(top, left, crop_height, crop_width)``."""
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    return int(float(height - crop_height) / 2), int(float(width - crop_width) / 2), crop_height, crop_width


def check_resize_interpolation(interpolation):
    """ValueError unless ``interpolation`` is one Keras' TF backend resizes with."""
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {RESIZE_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")


def cast_resized(resized, dtype):
    """Keras' resize result back in the images' ``dtype``: integers rounded, then a saturating cast."""
    if resized.dtype == dtype:
        return resized
    if dtype.is_integer:
        resized = tf.round(resized)
    return tf.saturate_cast(resized, dtype)


def aspect_padding(height, width, target_height, target_width):
    """Keras' pad_to_aspect_ratio: ``(rows, columns)`` added on each side to reach the target's aspect ratio."""
    pad_height = max(height, int(float(width * target_height) / target_width))
    pad_width = max(width, int(float(height * target_width) / target_height))
    return int(float(pad_height - height) / 2), int(float(pad_width - width) / 2)


class Resizing(_ImageLayer):
    """Resizes images to ``(height, width)`` (``tf.image.resize``), optionally cropping or padding them to the
    target aspect ratio first.

    Parameters
    ----------
    height, width : int
    interpolation : {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"}
    crop_to_aspect_ratio : bool
        Crop the largest centered window of the target aspect ratio first.
    pad_to_aspect_ratio : bool
        Pad the images evenly on both sides (with ``fill_value``) to the target aspect ratio first.
    fill_mode : str
        "constant" (the only mode Keras pads with).
    fill_value : float
    antialias : bool
        Widen the filter when downsampling (``tf.image.resize``).
    data_format : str, optional
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                 fill_mode="constant", fill_value=0.0, antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = height
        self.width = width
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)

    def call(self, inputs, training=True):
        if self.crop_to_aspect_ratio and self.pad_to_aspect_ratio:  # Keras checks this at call time
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
        images = self._images(inputs)
        check_resize_interpolation(self.interpolation)
        dtype = images.dtype
        height, width = self._hw(images)
        if self.crop_to_aspect_ratio:
            top, left, crop_height, crop_width = _aspect_crop(height, width, self.height, self.width)
            images = self._crop(images, top, left, crop_height, crop_width)
        elif self.pad_to_aspect_ratio:
            images = self._padded(images, height, width)
        channels_first = self.data_format == "channels_first"
        if channels_first:
            images = _channels_moved(images, last=True)
        resized = _image_ops.resize(images, (self.height, self.width), method=self.interpolation,
                                    antialias=self.antialias)
        if channels_first:
            resized = _channels_moved(resized, last=False)
        return cast_resized(resized, dtype)

    def _padded(self, images, height, width):
        """``images`` with ``fill_value`` rows/columns added evenly on both sides (Keras' pad_to_aspect_ratio)."""
        top, left = aspect_padding(height, width, self.height, self.width)
        paddings = [[0, 0]] * images.shape.rank
        h_axis, w_axis = self._axes()
        paddings[h_axis], paddings[w_axis] = [top, top], [left, left]
        return tf.pad(images, paddings, constant_values=tf.cast(self.fill_value, images.dtype))

    def compute_output_shape(self, input_shape):
        return self._resized_shape(input_shape, self.height, self.width)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias, "data_format": self.data_format}


class CenterCrop(_ImageLayer):
    """The central ``(height, width)`` window of the images; images smaller than that are cropped to the target
    aspect ratio and resized (bilinear) instead, as Keras' ``smart_resize``."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = height
        self.width = width

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        height, width = self._hw(images)
        if height >= self.height and width >= self.width:
            return self._crop(images, (height - self.height) // 2, (width - self.width) // 2, self.height, self.width)
        top, left, crop_height, crop_width = _aspect_crop(height, width, self.height, self.width)
        return Resizing(self.height, self.width, data_format=self.data_format, dtype=self.dtype_policy)(
            self._crop(images, top, left, crop_height, crop_width))

    def compute_output_shape(self, input_shape):
        return self._resized_shape(input_shape, self.height, self.width)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "data_format": self.data_format}


class RandomCrop(_ImageLayer):
    """A random ``(height, width)`` window in training (one offset for the whole batch); otherwise, and for
    images not larger than the window, the centered crop of the target aspect ratio resized to it."""

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(data_format=data_format, name=name, **kwargs)
        self.height = height
        self.width = width
        self.seed = seed if seed is not None else random.make_default_seed()
        self.generator = random.SeedGenerator(seed)

    def call(self, inputs, training=True):
        images = self._images(inputs)
        height, width = self._hw(images)
        if training and height > self.height and width > self.width:
            top = tf.cast(random.uniform((), 0, float(height - self.height + 1), seed=self.generator), "int32")
            left = tf.cast(random.uniform((), 0, float(width - self.width + 1), seed=self.generator), "int32")
        else:
            top, left, _, _ = _aspect_crop(height, width, self.height, self.width)
        if not training:
            return images
        images = self._crop(tf.cast(images, self.compute_dtype), top, left, self.height, self.width)
        if tuple(self._hw(images)) != (self.height, self.width):
            images = tf.cast(Resizing(self.height, self.width, data_format=self.data_format)(images),
                             self.compute_dtype)
        return images

    def compute_output_shape(self, input_shape):
        return self._resized_shape(input_shape, self.height, self.width)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "seed": self.seed,
                "data_format": self.data_format}


class RandomFlip(_ImageLayer):
    """Flips each image horizontally and/or vertically with probability 1/2 in training.

    Parameters
    ----------
    mode : {"horizontal", "vertical", "horizontal_and_vertical"}
        With both, one draw decides both flips of an image.
    seed : int, optional
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.generator = random.SeedGenerator(seed)
        self.mode = mode

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        shape = (1, 1, 1) if images.shape.rank == 3 else (images.shape[0], 1, 1, 1)
        flips = random.uniform(shape, seed=self.generator) <= 0.5
        h_axis, w_axis = self._axes()
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [images.shape.rank + w_axis]), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = tf.where(flips, tf.reverse(images, [images.shape.rank + h_axis]), images)
        return images

    def get_config(self):
        return {**super().get_config(), "seed": self.seed, "mode": self.mode, "data_format": self.data_format}


def _factor_range(factor, name, low, high, message, open_low=False):
    """``(lower, upper)`` of a ``factor`` given as a number ``f`` (``(-f, f)``) or a pair (sorted), in range."""
    def check(value):
        if value > high or value < low or (open_low and value == low):
            raise ValueError(f"{message}Received: input_number={value}")

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"{message}Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        check(factor)
        return -abs(factor), abs(factor)
    raise ValueError(f"{message}Received: {name}={factor}")


def _base_factor(factor, bounds):
    """Keras' image layer ``factor``: a number ``f`` -> ``(max(-f, low), f)``, a pair -> sorted; in ``bounds``."""
    message = (f"The `factor` argument should be a number (or a list of two numbers) in the range "
               f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(message)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and bounds[0] <= factor <= bounds[1]:
        return max(-abs(factor), bounds[0]), abs(factor)
    raise ValueError(message)


class _AffineLayer(_ImageLayer):
    """Random rotation / zoom / translation: per-image transforms applied by TF's projective transform."""

    def _init_affine(self, fill_mode, interpolation, seed, fill_value):
        if fill_mode not in _image_ops.FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_image_ops.FILL_MODES}.")
        if interpolation not in _AFFINE_INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                      f"{_AFFINE_INTERPOLATIONS}.")
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed
        self.generator = random.SeedGenerator(seed)

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        batched = images.shape.rank == 4
        if not batched:
            images = tf.expand_dims(images, 0)
        if self.data_format == "channels_first":
            images = _channels_moved(images, last=True)
        transforms = self._transforms(images.shape[0] if batched else 1, images.shape[1], images.shape[2])
        images = _image_ops.projective_transform(images, transforms, self.interpolation, self.fill_mode,
                                                 self.fill_value)
        if self.data_format == "channels_first":
            images = _channels_moved(images, last=False)
        return images if batched else tf.squeeze(images, 0)

    def _affine_config(self):
        return {"fill_mode": self.fill_mode, "interpolation": self.interpolation, "seed": self.seed,
                "fill_value": self.fill_value, "data_format": self.data_format}


def _zeros(n):
    return tf.zeros((n, 1))


class RandomRotation(_AffineLayer):
    """Rotates each image about its center by a random angle of ``factor * 2 pi`` (``factor`` a number f for
    [-f, f], or a pair)."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (-1, 1))
        self._init_affine(fill_mode, interpolation, seed, fill_value)

    def _transforms(self, batch, height, width):
        angle = random.uniform((batch,), self.factor[0] * 360.0, self.factor[1] * 360.0, seed=self.generator)
        angle = angle * (math.pi / 180.0)
        cos, sin = tf.reshape(tf.cos(angle), (-1, 1)), tf.reshape(tf.sin(angle), (-1, 1))
        cx, cy = 0.5 * (width - 1.0), 0.5 * (height - 1.0)
        # the rotation about (cx, cy) that maps output pixels to input pixels (Keras' affine matrix, no shear)
        return tf.concat([cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos, _zeros(batch),
                          _zeros(batch)], axis=1)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, **self._affine_config()}


_ZOOM_MESSAGE = ("The `height_factor` and `width_factor` arguments should be a number (or a list of two numbers) in "
                 "the range (-1.0, 1.0]. ")
_TRANSLATION_MESSAGE = "The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "


class RandomZoom(_AffineLayer):
    """Zooms each image about its center by random factors ``1 + f``, ``f`` drawn in ``height_factor`` (and
    ``width_factor``; None: the height's zoom for both).  Negative factors zoom in."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_range(height_factor, "height_factor", -1.0, 1.0,
                                                             _ZOOM_MESSAGE, open_low=True)
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _factor_range(width_factor, "width_factor", -1.0, 1.0,
                                                               _ZOOM_MESSAGE, open_low=True)
        self._init_affine(fill_mode, interpolation, seed, fill_value)

    def _transforms(self, batch, height, width):
        height_zoom = random.uniform((batch, 1), 1.0 + self.height_lower, 1.0 + self.height_upper,
                                     seed=self.generator)
        width_zoom = height_zoom
        if self.width_factor is not None:
            width_zoom = random.uniform((batch, 1), 1.0 + self.width_lower, 1.0 + self.width_upper,
                                        seed=self.generator)
        x_offset = (width - 1.0) / 2.0 * (1.0 - width_zoom)
        y_offset = (height - 1.0) / 2.0 * (1.0 - height_zoom)
        return tf.concat([width_zoom, _zeros(batch), x_offset, _zeros(batch), height_zoom, y_offset, _zeros(batch),
                          _zeros(batch)], axis=1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                **self._affine_config()}


class RandomTranslation(_AffineLayer):
    """Shifts each image by random fractions of its height and width (``height_factor``, ``width_factor``: a
    number f for [-f, f], or a pair, in [-1, 1])."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _factor_range(height_factor, "height_factor", -1.0, 1.0,
                                                             _TRANSLATION_MESSAGE)
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _factor_range(width_factor, "width_factor", -1.0, 1.0,
                                                           _TRANSLATION_MESSAGE)
        self._init_affine(fill_mode, interpolation, seed, fill_value)

    def _transforms(self, batch, height, width):
        shift_y = random.uniform((batch, 1), self.height_lower, self.height_upper, seed=self.generator) * height
        shift_x = random.uniform((batch, 1), self.width_lower, self.width_upper, seed=self.generator) * width
        ones = tf.ones((batch, 1))
        return tf.concat([ones, _zeros(batch), -shift_x, _zeros(batch), ones, -shift_y, _zeros(batch),
                          _zeros(batch)], axis=1)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                **self._affine_config()}


class _ValueLayer(_ImageLayer):
    """Random per-image value changes (contrast, brightness), clipped to ``value_range``."""

    _FACTOR_BOUNDS = (-1, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self.factor = _base_factor(factor, self._FACTOR_BOUNDS)
        self.seed = seed
        self.generator = random.SeedGenerator(seed)

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        shape = (1, 1, 1) if images.shape.rank == 3 else (images.shape[0], 1, 1, 1)
        adjusted = self._adjusted(images, shape)
        return tf.clip_by_value(adjusted, tf.cast(self.value_range[0], adjusted.dtype),
                                tf.cast(self.value_range[1], adjusted.dtype))

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed,
                "data_format": self.data_format}


class RandomContrast(_ValueLayer):
    """Scales each image's deviation from its per-channel mean by a random factor in ``[1 - lower, 1 + upper]``
    (``factor`` in [0, 1]), then clips to ``value_range``."""

    _FACTOR_BOUNDS = (0, 1)

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor, value_range, seed, **kwargs)
        self.value_range = value_range

    def _adjusted(self, images, shape):
        contrast = random.uniform(shape, 1.0 - self.factor[0], 1.0 + self.factor[1], dtype=self.compute_dtype,
                                  seed=self.generator)
        h_axis, w_axis = self._axes()
        mean = tf.reduce_mean(tf.reduce_mean(images, axis=h_axis, keepdims=True), axis=w_axis, keepdims=True)
        return (images - mean) * contrast + mean


class RandomBrightness(_ValueLayer):
    """Adds to each image a random ``delta * (value_range[1] - value_range[0])``, ``delta`` drawn in ``factor``
    (a number f for [-f, f], or a pair, in [-1, 1]), then clips to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor, value_range, seed, **kwargs)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. Received: "
                             f"value_range={value_range}")
        self.value_range = sorted(value_range)

    def _adjusted(self, images, shape):
        delta = random.uniform(shape, self.factor[0], self.factor[1], seed=self.generator)
        return images + tf.cast(delta * (self.value_range[1] - self.value_range[0]), images.dtype)
