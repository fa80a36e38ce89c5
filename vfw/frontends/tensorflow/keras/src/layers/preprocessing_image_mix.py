"""Augmentation layers that mix images of a batch or erase regions: MixUp, CutMix, RandomErasing.

As Keras: the random parameters are drawn through ``keras.random`` from the layer's ``SeedGenerator`` in Keras' order,
shapes and dtypes (MixUp on every call, CutMix and RandomErasing in training only, CutMix not for a single image);
a single (rank-3) image is transformed as a batch of one.  Inputs may be images or a dict of ``"images"`` and
``"labels"`` (MixUp and CutMix mix the labels by the same weights); other dict keys (bounding boxes, segmentation
masks) are not supported.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _base_factor, _ImageLayer

API = {"layers": ["MixUp", "CutMix", "RandomErasing"]}


class _MixLayer(_ImageLayer):
    """The common call: ``_transformation(images, training)`` once, then images (and labels) transformed by it."""

    def _init_seed(self, seed):
        self.seed = seed
        self.generator = random.SeedGenerator(seed)
        h_axis, w_axis = self._axes()
        self.height_axis, self.width_axis = h_axis, w_axis
        self.channel_axis = -3 if self.data_format == "channels_first" else -1

    def call(self, data, training=True):
        inputs = data if isinstance(data, dict) else {"images": data}
        unsupported = sorted(set(inputs) - {"images", "labels"})
        if unsupported:
            raise NotImplementedError(f"{type(self).__name__} in vfw transforms only 'images' and 'labels'; "
                                      f"received the keys {unsupported}")
        images = self._images(inputs["images"])
        transformation = self._transformation(images, training)
        batched = images.shape.rank == 4

        def per_batch(transform, values):  # an unbatched image (and its label) as a batch of one, as Keras
            if batched:
                return transform(values, transformation, training)
            return tf.squeeze(transform(tf.expand_dims(values, 0), transformation, training), 0)

        result = dict(inputs, images=per_batch(self._mixed_images, images))
        if "labels" in inputs:
            result["labels"] = per_batch(self._mixed_labels, tf.convert_to_tensor(inputs["labels"]))
        return result if isinstance(data, dict) else result["images"]

    def _mixed_labels(self, labels, transformation, training):
        return labels

    def _box_masks(self, images_shape, x0, x1, y0, y1):
        """Per image, whether each pixel lies in ``[x0, x1) x [y0, y1)`` (repeated over the channels)."""
        dtype = self.compute_dtype
        height, width = images_shape[self.height_axis], images_shape[self.width_axis]
        grid_y, grid_x = tf.meshgrid(tf.range(height, dtype=dtype), tf.range(width, dtype=dtype), indexing="ij")
        grid_shape = (1, height, width, 1) if self.channel_axis == -1 else (1, 1, height, width)
        grid_x, grid_y = tf.reshape(grid_x, grid_shape), tf.reshape(grid_y, grid_shape)
        x0, x1, y0, y1 = (tf.reshape(v, (-1, 1, 1, 1)) for v in (x0, x1, y0, y1))
        masks = (grid_x >= x0) & (grid_x < x1) & (grid_y >= y0) & (grid_y < y1)
        return tf.repeat(masks, images_shape[self.channel_axis], axis=self.channel_axis)

    def _crop_bounds(self, batch, length, ratio):
        """Random ``(start, end)`` of a span of ``ratio * length`` within ``length``, per image."""
        span = tf.cast(ratio * length, self.compute_dtype)
        start = random.uniform([batch], 0, 1, dtype=self.compute_dtype, seed=self.generator) * (length - span)
        return start, start + span

    def compute_output_shape(self, input_shape):
        return input_shape


def _mixed(weights, values, permutation):
    """``w * values + (1 - w) * values[permutation]``, ``w`` per batch item."""
    weights = tf.reshape(weights, [-1] + [1] * (values.shape.rank - 1))
    return weights * values + (1.0 - weights) * tf.gather(values, permutation, axis=0)


class MixUp(_MixLayer):
    """Blends each image (and label) with another of the batch, by a weight drawn from Beta(alpha, alpha).

    Parameters
    ----------
    alpha : float
    data_format : str, optional
    seed : int, optional
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.alpha = alpha
        self._init_seed(seed)

    def _transformation(self, images, training):
        batch = 1 if images.shape.rank == 3 else images.shape[0]
        permutation = random.shuffle(tf.range(0, batch, dtype="int64"), seed=self.generator)
        return random.beta((batch,), self.alpha, self.alpha, seed=self.generator), permutation

    def _mixed_images(self, images, transformation, training):
        if not training:
            return images
        weights, permutation = transformation
        return _mixed(tf.cast(weights, self.compute_dtype), tf.cast(images, self.compute_dtype), permutation)

    def _mixed_labels(self, labels, transformation, training):
        return _mixed(*transformation[:1], labels, transformation[1]) if training else labels

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "alpha": self.alpha, "seed": self.seed}


class CutMix(_MixLayer):
    """Pastes into each image a random box of another image of the batch (labels mixed by the box's area).

    The box covers a fraction ``1 - w`` of the image, ``w`` drawn from Beta(a, a), ``a`` drawn in ``factor``
    (in [0, 1]: a number f for (0, f)).  Inference and single images pass through (cast to the compute dtype).
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self._init_seed(seed)

    def _transformation(self, images, training):
        if not training or images.shape.rank == 3:
            return None
        shape = images.shape.as_list()
        batch, height, width = shape[0], shape[self.height_axis], shape[self.width_axis]
        dtype = self.compute_dtype
        alpha = random.uniform((), self.factor[0], self.factor[1], dtype=dtype, seed=self.generator) + 1e-6
        ratio = tf.sqrt(1.0 - random.beta((batch,), alpha, alpha, seed=self.generator, dtype=dtype))
        x0, x1 = self._crop_bounds(batch, width, ratio)
        y0, y1 = self._crop_bounds(batch, height, ratio)
        masks = self._box_masks(shape, x0, x1, y0, y1)
        weights = 1.0 - (x1 - x0) * (y1 - y0) / (width * height)
        permutation = random.shuffle(tf.range(0, batch, dtype="int32"), seed=self.generator)
        return masks, weights, permutation

    def _mixed_images(self, images, transformation, training):
        images = tf.cast(images, self.compute_dtype)
        if not training or transformation is None:
            return images
        masks, _, permutation = transformation
        return tf.where(masks, tf.gather(images, permutation, axis=0), images)

    def _mixed_labels(self, labels, transformation, training):
        if not training or transformation is None:
            return labels
        _, weights, permutation = transformation
        return _mixed(weights, labels, permutation)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "factor": self.factor, "seed": self.seed}


def checked_pair(value, name, bounds=(0, 1)):
    """Keras' ``_set_factor_by_name`` check of RandomErasing's ``scale`` and RandomGaussianBlur's ``sigma`` (its message
    names ``factor``'s value)."""
    message = (f"The `{name}` argument should be a number (or a list of two numbers) in the range "
               f"[{bounds[0]}, {bounds[1]}]. Received: factor={value}")
    try:
        return _base_factor(value, bounds)
    except ValueError:
        raise ValueError(message) from None


_FILL_MESSAGE = "The `fill_value` argument should be a number (or a list of three numbers) "


class RandomErasing(_MixLayer):
    """Replaces a random box of each image, with probability drawn in ``factor``, by ``fill_value`` (None: normal
    noise times ``value_range[1]``), clipped to ``value_range``.

    Parameters
    ----------
    factor : float or pair of float
        The erasing probability range, in [0, 1] (a number f for (0, f)).
    scale : float or pair of float
        The range of the box's squared side fractions, in [0, 1].
    fill_value : float, triple of float or None
    value_range : pair of float
    seed : int, optional
    data_format : str, optional
    """

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255), seed=None,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.scale = checked_pair(scale, "scale")
        self.fill_value = fill_value
        self.value_range = value_range
        self._init_seed(seed)

    def _transformation(self, images, training):
        if not training:
            return None
        shape = images.shape.as_list()
        batch = 1 if len(shape) == 3 else shape[0]
        dtype = self.compute_dtype
        sides = tf.sqrt(random.uniform((batch, 2), self.scale[0], self.scale[1], dtype=dtype, seed=self.generator))
        x0, x1 = self._crop_bounds(batch, shape[self.width_axis], sides[:, 0])
        y0, y1 = self._crop_bounds(batch, shape[self.height_axis], sides[:, 1])
        masks = self._box_masks(shape, x0, x1, y0, y1)
        probability = random.uniform((batch,), self.factor[0], self.factor[1], seed=self.generator)
        threshold = random.uniform((batch,), 0.0, 1.0, seed=self.generator)
        return masks, threshold < probability, self._fill(images, shape)

    def _fill(self, images, shape):
        dtype = self.compute_dtype
        fill_value = self.fill_value
        if fill_value is None:
            fill = random.normal(shape, dtype=dtype, seed=self.generator) * self.value_range[1]
        elif isinstance(fill_value, (tuple, list)):
            if len(fill_value) != 3:
                raise ValueError(_FILL_MESSAGE)
            fill = tf.broadcast_to(tf.constant(fill_value, dtype=dtype), tf.shape(images))
        elif isinstance(fill_value, (int, float)):
            fill = tf.ones(shape, dtype=dtype) * fill_value
        else:
            raise ValueError(_FILL_MESSAGE)
        low, high = (tf.cast(bound, fill.dtype) for bound in self.value_range)
        return tf.clip_by_value(fill, low, high)

    def _mixed_images(self, images, transformation, training):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        masks, erase, fill = transformation
        erased = tf.where(masks, fill, images)
        return tf.where(tf.reshape(erase, (-1, 1, 1, 1)), erased, images)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "factor": self.factor, "scale": self.scale,
                "fill_value": self.fill_value, "value_range": self.value_range, "seed": self.seed}
