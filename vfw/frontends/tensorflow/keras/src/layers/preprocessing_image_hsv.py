"""Random color augmentation layers working in HSV or toward gray: RandomHue, RandomSaturation,
RandomColorDegeneration, and RandomColorJitter (brightness, contrast, saturation and hue in turn).

As Keras: per-image parameters are drawn through ``keras.random`` from the layer's ``SeedGenerator`` on every call
(also with ``training=False``, which passes the images through), a single (rank-3) image is handled as a batch of one,
and the HSV conversions are ``tf.image.rgb_to_hsv``/``hsv_to_rgb`` on channels-last images.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend, random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import (
    RandomBrightness,
    RandomContrast,
    _base_factor,
)
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_color import (
    _ColorLayer,
    checked_value_range,
    rescaled,
    rgb_to_grayscale,
)

API = {"layers": ["RandomHue", "RandomSaturation", "RandomColorDegeneration", "RandomColorJitter"]}


def _in_hsv(images, data_format, adjust):
    """``adjust(hsv)`` of float ``images`` (a batch), returned to RGB (Keras' backend checks, channels moved last)."""
    if not images.dtype.is_floating:
        raise ValueError(f"Invalid images dtype: expected float dtype. Received: images.dtype={images.dtype.name}")
    channels_first = data_format == "channels_first"
    if channels_first:
        images = tf.transpose(images, [0, 2, 3, 1])
    hue, saturation, value = tf.unstack(tf.image.rgb_to_hsv(images), axis=-1)
    images = tf.image.hsv_to_rgb(tf.stack(adjust(hue, saturation, value), axis=-1))
    return tf.transpose(images, [0, 3, 1, 2]) if channels_first else images


class _RandomColorLayer(_ColorLayer):
    """A layer whose ``_draw(batch)`` happens on every call and whose ``_apply(images, draws)`` only in training."""

    def _transform(self, images, training):
        draws = self._draw(images.shape[0])
        return self._apply(images, draws) if training else images

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}


class RandomHue(_RandomColorLayer):
    """Shifts each image's hue by a random ``+-f / 2`` of the color wheel, ``f`` drawn in ``factor`` (in [0, 1]).

    Parameters
    ----------
    factor : float or pair of float
        f stands for (0, f).
    value_range : pair of float
        The images' range (kept as given).
    data_format : str, optional
    seed : int, optional
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.value_range = value_range
        self._init_seed(seed)

    def _draw(self, batch):
        direction = random.uniform((batch,), seed=self.generator)
        direction = tf.where(direction > 0.5, -tf.ones_like(direction), tf.ones_like(direction))
        return direction * random.uniform((batch,), self.factor[0], self.factor[1], seed=self.generator) * 0.5

    def _apply(self, images, shifts):
        images = rescaled(tf.cast(images, self.compute_dtype), self.value_range, (0, 1), "float32")
        shifts = tf.reshape(tf.cast(shifts, images.dtype), (-1, 1, 1))

        def shifted(hue, saturation, value):
            hue = hue + shifts
            hue = tf.where(hue > 1.0, hue - 1.0, hue)
            return tf.where(hue < 0.0, hue + 1.0, hue), saturation, value

        images = tf.clip_by_value(_in_hsv(images, self.data_format, shifted), 0.0, 1.0)
        return tf.cast(rescaled(images, (0, 1), self.value_range, "float32"), self.compute_dtype)


class RandomSaturation(_RandomColorLayer):
    """Scales each image's saturation by ``f / (1 - f + epsilon)``, ``f`` drawn in ``factor`` (0.5 keeps it).

    As Keras, the factor is the base image-layer factor (a number f for ``(-f, f)`` within [-1, 1]), and the scaled
    saturation is clipped to ``value_range``; the images must be float (they are not rescaled).
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (-1, 1))
        self.value_range = checked_value_range(value_range)
        self._init_seed(seed)

    def _draw(self, batch):
        factor = random.uniform((batch,), self.factor[0], self.factor[1], seed=self.generator)
        return factor / (1 - factor + backend.epsilon())

    def _apply(self, images, factors):
        factors = tf.reshape(tf.cast(factors, self.compute_dtype), (-1, 1, 1))

        def scaled(hue, saturation, value):
            low, high = (tf.cast(bound, saturation.dtype) for bound in self.value_range)
            return hue, tf.clip_by_value(saturation * factors, low, high), value

        return _in_hsv(images, self.data_format, scaled)


class RandomColorDegeneration(_RandomColorLayer):
    """Blends each image toward its grayscale by a random ``f`` drawn in ``factor`` (the base factor within
    [-1, 1]: negative values move away from gray), clipped to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (-1, 1))
        self.value_range = checked_value_range(value_range)
        self._init_seed(seed)

    def _draw(self, batch):
        return random.uniform((batch, 1, 1, 1), self.factor[0], self.factor[1], seed=self.generator)

    def _apply(self, images, factors):
        dtype = self.compute_dtype
        images = tf.cast(images, dtype)
        images = images + tf.cast(factors, dtype) * (rgb_to_grayscale(images, self.data_format) - images)
        low, high = (tf.cast(bound, dtype) for bound in self.value_range)
        return tf.clip_by_value(images, low, high)


class RandomColorJitter(_ColorLayer):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn (those whose factor is given), all
    drawing from this layer's seed generator, in training only.

    Parameters
    ----------
    value_range : pair of float
    brightness_factor, contrast_factor, saturation_factor, hue_factor : float or pair, optional
        The factors of the sub-layers (None: skipped).
    seed : int, optional
    data_format : str, optional
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None, saturation_factor=None,
                 hue_factor=None, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor = brightness_factor
        self.contrast_factor = contrast_factor
        self.saturation_factor = saturation_factor
        self.hue_factor = hue_factor
        self._init_seed(seed)
        self.stages = [layer(factor=factor, value_range=value_range, seed=seed)
                       for layer, factor in ((RandomBrightness, brightness_factor), (RandomContrast, contrast_factor),
                                             (RandomSaturation, saturation_factor), (RandomHue, hue_factor))
                       if factor is not None]
        for stage in self.stages:  # Keras hands the sub-layers this layer's generator
            stage.generator = self.generator

    def _transform(self, images, training):
        if not training:
            return images
        images = tf.cast(images, self.compute_dtype)
        for stage in self.stages:
            images = stage(images, training=True)
        return tf.cast(images, self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range,
                "brightness_factor": self.brightness_factor, "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor, "seed": self.seed}
