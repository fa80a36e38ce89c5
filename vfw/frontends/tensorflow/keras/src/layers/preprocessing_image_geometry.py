"""Random geometric augmentation layers beyond rotation/zoom/translation: RandomShear and RandomPerspective.

Both resample with TF's projective transform (``ImageProjectiveTransformV3``).  As Keras, their parameters are drawn
through ``keras.random`` from the layer's ``SeedGenerator`` in training only (inference passes the images through
cast to the compute dtype), and a single (rank-3) image is transformed as a batch of one.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _image_ops
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import (
    _AFFINE_INTERPOLATIONS,
    _AffineLayer,
    _base_factor,
    _channels_moved,
    _factor_range,
)

API = {"layers": ["RandomShear", "RandomPerspective"]}

_SHEAR_MESSAGE = "The `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. "


class RandomShear(_AffineLayer):
    """Shears each image about the origin (its top-left corner) by random factors along x and y, both negated
    together with probability 1/2.

    Parameters
    ----------
    x_factor, y_factor : float or pair of float
        In [0, 1]: a number f for [-f, f].
    interpolation : {"bilinear", "nearest"}
    fill_mode : {"reflect", "wrap", "constant", "nearest"}
    fill_value : float
    data_format : str, optional
    seed : int, optional
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                 data_format=None, seed=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.x_factor = _factor_range(x_factor, "x_factor", 0.0, 1.0, _SHEAR_MESSAGE)
        self.y_factor = _factor_range(y_factor, "y_factor", 0.0, 1.0, _SHEAR_MESSAGE)
        self._init_affine(fill_mode, interpolation, seed, fill_value)

    def _transforms(self, batch, height, width):
        dtype = self.compute_dtype
        direction = random.uniform([batch, 1], 0, 1, dtype=dtype, seed=self.generator)
        direction = tf.where(direction > 0.5, -tf.ones_like(direction), tf.ones_like(direction))
        shear_y = random.uniform([batch, 1], self.y_factor[0], self.y_factor[1], dtype=dtype, seed=self.generator)
        shear_x = random.uniform([batch, 1], self.x_factor[0], self.x_factor[1], dtype=dtype, seed=self.generator)
        shear = tf.concat([shear_x, shear_y], axis=1) * direction
        ones, zeros = tf.ones((batch,)), tf.zeros((batch,))
        return tf.stack([ones, shear[:, 0], zeros, shear[:, 1], ones, zeros, zeros, zeros], axis=1)

    def get_config(self):
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor,
                **self._affine_config()}


def homography(start_points, end_points):
    """Per batch item, the 8 projective-transform coefficients mapping ``end_points`` onto ``start_points``
    (``[batch, 4, 2]`` each, x then y): the solution of the 8x8 system of the four correspondences."""
    start_x, start_y = start_points[..., 0], start_points[..., 1]
    end_x, end_y = end_points[..., 0], end_points[..., 1]
    ones, zeros = tf.ones_like(end_x), tf.zeros_like(end_x)
    x_rows = tf.stack([end_x, end_y, ones, zeros, zeros, zeros, -start_x * end_x, -start_x * end_y], axis=-1)
    y_rows = tf.stack([zeros, zeros, zeros, end_x, end_y, ones, -start_y * end_x, -start_y * end_y], axis=-1)
    # rows (and targets) of point i at 2i (x) and 2i + 1 (y)
    coefficients = tf.reshape(tf.stack([x_rows, y_rows], axis=2), (-1, 8, 8))
    targets = tf.reshape(tf.stack([start_x, start_y], axis=2), (-1, 8, 1))
    return tf.reshape(tf.linalg.solve(coefficients, targets), (-1, 8))


class RandomPerspective(_AffineLayer):
    """Warps each image, with a probability drawn in ``factor``, by the perspective that moves its corners by random
    fractions (up to ``scale / 2``) of their coordinates; outside pixels take ``fill_value``.

    Parameters
    ----------
    factor : float or pair of float
        The warping probability range, in [0, 1] (a number f for (0, f)).
    scale : float
        In [0, 1].
    interpolation : {"bilinear", "nearest"}
    fill_value : float
    seed : int, optional
    data_format : str, optional
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None, data_format=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.scale = scale
        if scale < 0.0 or scale > 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. Received: scale={scale}")
        if interpolation not in _AFFINE_INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                      f"{_AFFINE_INTERPOLATIONS}.")
        self._init_affine("constant", interpolation, seed, fill_value)

    def call(self, inputs, training=True):
        images = tf.cast(self._images(inputs), self.compute_dtype)
        if not training:
            return images
        batched = images.shape.rank == 4
        height, width = self._hw(images)
        batch = images.shape[0] if batched else 1
        dtype = self.compute_dtype
        probability = random.uniform((batch,), self.factor[0], self.factor[1], seed=self.generator)
        warp = random.uniform((batch,), 0.0, 1.0, seed=self.generator) < probability
        shifts = random.uniform((batch, 4, 2), -0.5 * self.scale, 0.5 * self.scale, seed=self.generator, dtype=dtype)
        corners = tf.constant([[[0.0, 0.0], [width - 1, 0.0], [0.0, height - 1], [width - 1, height - 1]]], dtype=dtype)
        corners = tf.repeat(corners, batch, axis=0)
        transforms = homography(tf.cast(corners, "float32"), tf.cast(corners + corners * shifts, "float32"))
        if not batched:
            images = tf.expand_dims(images, 0)
        channels_first = self.data_format == "channels_first"
        warped = _image_ops.projective_transform(_channels_moved(images, last=True) if channels_first else images,
                                                 transforms, self.interpolation, "constant", self.fill_value)
        if channels_first:
            warped = _channels_moved(warped, last=False)
        warped = tf.where(tf.reshape(warp, (-1, 1, 1, 1)), warped, images)
        return warped if batched else tf.squeeze(warped, 0)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value, "seed": self.seed}
