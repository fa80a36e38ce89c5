"""Image color augmentation layers: Solarization, RandomInvert, RandomGrayscale, AutoContrast, RandomPosterization,
Equalization, RandomSharpness.

As Keras' image preprocessing layers: a single (rank-3) image is handled as a batch of one; the random layers draw
their per-image parameters through ``keras.random`` from a ``SeedGenerator`` of their own, in Keras' order, shapes and
dtypes, so with the same seed they make Keras' augmentations.  ``training`` defaults to True (called directly they
augment); ``training=False`` passes the images through (cast to the compute dtype where Keras casts).  Values are
mapped from ``value_range`` to [0, 255] and back around the pixel arithmetic, as Keras does.  Dict inputs (images
with bounding boxes, labels, masks) are not supported.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend, random
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _base_factor, _ImageLayer

API = {"layers": ["Solarization", "RandomInvert", "RandomGrayscale", "AutoContrast", "RandomPosterization",
                  "Equalization", "RandomSharpness"]}

_VALUE_RANGE_MESSAGE = "The `value_range` argument should be a list of two numbers. "
_GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)


def checked_value_range(value_range):
    """Keras' ``value_range`` check: a pair, returned sorted (as a list)."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"{_VALUE_RANGE_MESSAGE}Received: value_range={value_range}")
    return sorted(value_range)


def rescaled(images, original_range, target_range, dtype):
    """``images`` mapped linearly from ``original_range`` to ``target_range`` in ``dtype`` (unchanged, not even cast,
    when the ranges are equal: Keras' ``_transform_value_range``)."""
    if original_range[0] == target_range[0] and original_range[1] == target_range[1]:
        return images
    images = tf.cast(images, dtype)
    low, high = (tf.cast(v, dtype) for v in original_range)
    target_low, target_high = (tf.cast(v, dtype) for v in target_range)
    return (images - low) / (high - low) * (target_high - target_low) + target_low


def _restored_dtype(results, dtype):
    """Float ``results`` back in the input ``dtype`` (rounded and saturated for integers), as Keras."""
    if results.dtype == dtype:
        return results
    if dtype.is_integer:
        results = tf.round(results)
    return tf.saturate_cast(results, dtype)


class _ColorLayer(_ImageLayer):
    """The common call: rank check, a single image as a batch of one, ``_transform(images, training)``."""

    def call(self, inputs, training=True):
        images = self._images(inputs)
        if images.shape.rank == 4:
            return self._transform(images, training)
        return tf.squeeze(self._transform(tf.expand_dims(images, 0), training), 0)

    def _init_seed(self, seed):
        self.seed = seed
        self.generator = random.SeedGenerator(seed)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}

    def _per_image(self, images, minval, maxval, dtype=None):
        """One uniform draw per image, shaped ``[batch, 1, 1, 1]``."""
        return random.uniform((images.shape[0], 1, 1, 1), minval, maxval, dtype=dtype, seed=self.generator)


def _zero_to(factor, name, message):
    """Solarization's factor: a number f in [0, 1] for (0, f), or a sorted pair in [0, 1]."""
    def check(value):
        if value > 1.0 or value < 0:
            raise ValueError(f"{message}Received: input_number={value}")

    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"{message}Received: {name}={factor}")
        check(factor[0])
        check(factor[1])
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)):
        check(factor)
        return 0, factor
    raise ValueError(f"{message}Received: {name}={factor}")


_SOLARIZATION_MESSAGE = ("The `addition_factor` and `threshold_factor` arguments should be a number (or a list of "
                         "two numbers) in the range [0, 1]. ")


class Solarization(_ColorLayer):
    """Adds a random brightness (``addition_factor``), then inverts pixels above a random threshold
    (``threshold_factor``) per image, on the [0, 255] scale.

    Parameters
    ----------
    addition_factor, threshold_factor : float or pair of float
        In [0, 1]: f stands for (0, f).  As in Keras the draw is uniform in ``[lower, upper * 255)``.
    value_range : pair of float
    seed : int, optional
    """

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self._init_seed(seed)
        self.addition_factor = _zero_to(addition_factor, "addition_factor", _SOLARIZATION_MESSAGE)
        self.threshold_factor = _zero_to(threshold_factor, "threshold_factor", _SOLARIZATION_MESSAGE)
        self.value_range = checked_value_range(value_range)

    def _transform(self, images, training):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        dtype = self.compute_dtype
        additions = self._per_image(images, self.addition_factor[0], self.addition_factor[1] * 255, dtype)
        thresholds = self._per_image(images, self.threshold_factor[0], self.threshold_factor[1] * 255, dtype)
        scaled = rescaled(images, self.value_range, (0, 255), dtype)
        results = tf.clip_by_value(scaled + additions, tf.cast(0, dtype), tf.cast(255, dtype))
        results = tf.where(results < thresholds, results, 255 - results)
        return _restored_dtype(rescaled(results, (0, 255), self.value_range, dtype), images.dtype)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range,
                "addition_factor": self.addition_factor, "threshold_factor": self.threshold_factor,
                "seed": self.seed}


class RandomInvert(_ColorLayer):
    """Inverts each image (``value_range[1] - x``) with a probability drawn in ``factor`` (in [0, 1]).

    Parameters
    ----------
    factor : float or pair of float
        f stands for probabilities in (0, f) (Keras' base factor: ``(max(-f, 0), f)``).
    value_range : pair of float
        Kept as given (unsorted), as Keras.
    seed : int, optional
    """

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.value_range = value_range
        self._init_seed(seed)

    def _transform(self, images, training):
        if not training:
            return images
        batch = (images.shape[0],)
        probability = random.uniform(batch, self.factor[0], self.factor[1], seed=self.generator)
        threshold = random.uniform(batch, 0, 1, seed=self.generator)
        images = tf.cast(images, self.compute_dtype)
        invert = tf.reshape(threshold < probability, (-1, 1, 1, 1))
        return tf.where(invert, tf.cast(self.value_range[1], images.dtype) - images, images)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range, "seed": self.seed}


def rgb_to_grayscale(images, data_format):
    """Keras' grayscale: the luma-weighted channel sum, one channel (images of 1 channel pass through)."""
    channels_axis = -1 if data_format == "channels_last" else -3
    channels = images.shape[channels_axis]
    if channels not in (1, 3):
        raise ValueError(f"Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received input with shape: "
                         f"images.shape={tuple(images.shape)}")
    if channels == 1:
        return tf.identity(images)
    dtype = images.dtype
    compute_dtype = dtype if dtype.is_floating else backend.floatx()
    weights = tf.constant(_GRAY_WEIGHTS, dtype=compute_dtype)
    gray = tf.tensordot(tf.cast(images, compute_dtype), weights, axes=[[images.shape.rank + channels_axis], [0]])
    return tf.cast(tf.expand_dims(gray, channels_axis), dtype)


class RandomGrayscale(_ColorLayer):
    """Turns each image to grayscale (all channels the luma) with probability ``factor``.

    As Keras, the per-image draw happens on every call, also with ``training=False``.
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if factor < 0 or factor > 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor
        self.data_format = backend.standardize_data_format(data_format)
        self._init_seed(seed)

    def _transform(self, images, training):
        draws = random.uniform((images.shape[0],), 0, 1, seed=self.generator)
        if not training:
            return images
        apply = tf.reshape(draws < self.factor, (-1, 1, 1, 1))
        return tf.where(apply, rgb_to_grayscale(images, self.data_format), images)

    def compute_output_spec(self, inputs, training=True):
        return KerasTensor(inputs.shape, dtype=inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class AutoContrast(_ColorLayer):
    """Stretches each image's per-channel values to the full ``value_range`` (in training and inference alike).

    Channels with a single value (0/0) keep their input values.
    """

    def __init__(self, value_range=(0, 255), **kwargs):
        super().__init__(**kwargs)
        self.value_range = checked_value_range(value_range)

    def _transform(self, images, training):
        original = images
        dtype = self.compute_dtype
        images = tf.cast(rescaled(images, self.value_range, (0, 255), dtype), dtype)
        low = tf.reduce_min(images, axis=(1, 2), keepdims=True)
        high = tf.reduce_max(images, axis=(1, 2), keepdims=True)
        scale = 255.0 / (high - low)
        results = tf.clip_by_value(images * scale - low * scale, tf.cast(0, dtype), tf.cast(255, dtype))
        results = rescaled(results, (0, 255), self.value_range, dtype)
        # As Keras, the result stays in the compute dtype (also for integer images).
        return tf.where(tf.math.is_nan(results), tf.cast(original, results.dtype), results)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range}


class RandomPosterization(_ColorLayer):
    """Keeps a random number of most significant bits (``factor``: in [1, 8]) of each image's 8-bit values.

    As Keras, the per-image bit counts are drawn on every call (``randint`` in ``[lower, upper)``, or ``lower`` when
    both are equal), also with ``training=False``.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (1, 8))
        self.value_range = checked_value_range(value_range)
        self._init_seed(seed)

    def _transform(self, images, training):
        batch = (images.shape[0],)
        if self.factor[0] != self.factor[1]:
            bits = random.randint(batch, self.factor[0], self.factor[1], dtype="uint8", seed=self.generator)
        else:
            bits = tf.ones(batch, dtype="uint8") * self.factor[0]
        if not training:
            return images
        shift = tf.reshape(8 - bits, (-1, 1, 1, 1))
        dtype = self.compute_dtype
        values = tf.cast(rescaled(images, self.value_range, (0, 255), dtype), "uint8")
        values = tf.bitwise.left_shift(tf.bitwise.right_shift(values, shift), shift)
        return rescaled(tf.cast(values, dtype), (0, 255), self.value_range, dtype)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor,
                "value_range": self.value_range, "seed": self.seed}


def _linear_map(values, source_range, target_range):
    """``values`` mapped linearly from ``source_range`` to ``target_range`` (Python-float scale and offset)."""
    scale = (target_range[1] - target_range[0]) / (source_range[1] - source_range[0])
    return values * scale + (target_range[0] - source_range[0] * scale)


class Equalization(_ColorLayer):
    """Histogram equalization of each channel in training (inference passes the images through).

    As Keras, a channel's histogram (``bins`` fixed-width bins over [0, 255]) counts the channel's values over the
    whole batch, and channels with values in a single bin are kept.

    Parameters
    ----------
    value_range : pair of float
    bins : int
    data_format : str, optional
    """

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.bins = bins
        self.value_range = checked_value_range(value_range)
        self.data_format = backend.standardize_data_format(data_format)

    def _equalized_channel(self, channel):
        bins = self.bins
        channel = _linear_map(channel, self.value_range, (0, 255))
        indices = tf.clip_by_value(tf.cast(channel * (bins - 1) / 255.0, "int32"), 0, bins - 1)
        histogram = tf.math.bincount(tf.reshape(indices, [-1]), minlength=bins)
        cdf = tf.cast(tf.cumsum(histogram), "float64")  # TF divides int32 tensors in float64, as Keras does here
        cdf_min = tf.gather(cdf, tf.where(cdf > 0)[0, 0])
        denominator = cdf[-1] - cdf_min
        denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
        lookup_table = tf.clip_by_value(tf.round((cdf - cdf_min) * 255 / denominator), 0.0, 255.0)
        scaled = tf.cast(tf.clip_by_value(channel / 255.0 * (bins - 1), 0.0, float(bins - 1)), "int32")
        used_bins = tf.math.count_nonzero(histogram)
        equalized = tf.where(used_bins <= 1, tf.cast(channel, "float64"), tf.gather(lookup_table, scaled))
        return _linear_map(equalized, (0, 255), self.value_range)

    def _transform(self, images, training):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        axis = -3 if self.data_format == "channels_first" else -1
        channels = tf.unstack(images, axis=axis)
        equalized = tf.stack([self._equalized_channel(channel) for channel in channels], axis=axis)
        return tf.cast(equalized, self.compute_dtype)

    def compute_output_spec(self, inputs, training=True):
        return inputs

    def get_config(self):
        return {**super().get_config(), "bins": self.bins, "value_range": self.value_range}


_SHARPEN_CENTER, _SHARPEN_EDGE = 5.0 / 13.0, 1.0 / 13.0


class RandomSharpness(_ColorLayer):
    """Blends each image with a 3x3 smoothed copy by a random sharpness (``2 * f``, ``f`` drawn in ``factor`` in
    [0, 1]: 0.5 keeps the image, less blurs, more sharpens), clipped to ``value_range``.

    As Keras, the per-image factors are drawn on every call, also with ``training=False``.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.value_range = checked_value_range(value_range)
        self._init_seed(seed)

    def _transform(self, images, training):
        factor = random.uniform((images.shape[0],), self.factor[0], self.factor[1], seed=self.generator)
        dtype = self.compute_dtype
        images = tf.cast(images, dtype)
        if not training:
            return images
        channels_first = self.data_format == "channels_first"
        if channels_first:
            images = tf.transpose(images, [0, 3, 2, 1])  # Keras swaps the axes
        sharpness = tf.reshape(tf.cast(factor * 2, dtype), (-1, 1, 1, 1))
        edge, center = _SHARPEN_EDGE, _SHARPEN_CENTER
        kernel = tf.constant([[edge, edge, edge], [edge, center, edge], [edge, edge, edge]], dtype=dtype)
        kernel = tf.tile(tf.reshape(kernel, (3, 3, 1, 1)), [1, 1, images.shape[-1], 1])
        smoothed = tf.nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
        images = images + (1.0 - sharpness) * (smoothed - images)
        images = tf.clip_by_value(images, tf.cast(self.value_range[0], dtype), tf.cast(self.value_range[1], dtype))
        if channels_first:
            images = tf.transpose(images, [0, 3, 2, 1])  # Keras swaps the axes
        return images

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}
