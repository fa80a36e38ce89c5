"""RandomGaussianBlur: blurs images, each with a random probability, by a Gaussian kernel of random widths.

As Keras: in training the layer draws (through ``keras.random`` from its ``SeedGenerator``) a blur probability and a
threshold per image and one pair of sigmas for the batch; inference passes the images through cast to the compute
dtype.  A single (rank-3) image is blurred as a batch of one.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _base_factor
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_color import _ColorLayer
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_mix import checked_pair

API = {"layers": ["RandomGaussianBlur"]}


def _odd_sizes(kernel_size):
    """Keras' ``kernel_size`` check: an odd number n for (n, n), or a pair of odd numbers."""
    message = f"kernel_size must be an odd number. Received: kernel_size={kernel_size}"
    if isinstance(kernel_size, (tuple, list)):
        if len(kernel_size) != 2:
            raise ValueError(f"The `kernel_size` argument should be a number (or a list of two numbers) Received: "
                             f"kernel_size={kernel_size}")
        if kernel_size[0] % 2 == 0 or kernel_size[1] % 2 == 0:
            raise ValueError(message)
        return tuple(kernel_size)
    if isinstance(kernel_size, (int, float)):
        if kernel_size % 2 == 0:
            raise ValueError(message)
        return kernel_size, kernel_size
    raise ValueError(message)


def gaussian_blur(images, kernel_size, sigma, data_format):
    """Keras' ``gaussian_blur`` of a batch: a depthwise convolution ("SAME") with the outer product of the 1-D
    Gaussians of ``kernel_size[1]`` taps (width ``sigma[1]``) and ``kernel_size[0]`` taps (``sigma[0]``)."""
    dtype = images.dtype
    channels_first = data_format == "channels_first"
    if channels_first:
        images = tf.transpose(images, [0, 2, 3, 1])

    def gaussian(size, width):
        taps = tf.range(size, dtype=dtype) - (size - 1) / 2
        kernel = tf.exp(-0.5 * (taps / width) ** 2)
        return kernel / tf.reduce_sum(kernel)

    kernel = tf.tensordot(gaussian(kernel_size[1], sigma[1]), gaussian(kernel_size[0], sigma[0]), axes=0)
    kernel = tf.reshape(kernel, (int(kernel_size[0]), int(kernel_size[1]), 1, 1))
    kernel = tf.tile(kernel, [1, 1, images.shape[-1], 1])
    blurred = tf.nn.depthwise_conv2d(images, kernel, strides=[1, 1, 1, 1], padding="SAME")
    return tf.transpose(blurred, [0, 3, 1, 2]) if channels_first else blurred


class RandomGaussianBlur(_ColorLayer):
    """Blurs each image, with a probability drawn in ``factor``, by a Gaussian of sigmas drawn in ``sigma``, and clips
    the batch to ``value_range``.

    Parameters
    ----------
    factor : float or pair of float
        The blur probability range, in [0, 1] (a number f for (0, f)).
    kernel_size : odd int or pair of odd ints
    sigma : float or pair of float
        The sigma range, in [0, 1] (as Keras), plus 1e-6.
    value_range : pair of float
    data_format : str, optional
    seed : int, optional
    """

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.kernel_size = _odd_sizes(kernel_size)
        self.sigma = checked_pair(sigma, "sigma")
        self.value_range = value_range
        self._init_seed(seed)

    def _transform(self, images, training):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        batch = (images.shape[0],)
        probability = random.uniform(batch, self.factor[0], self.factor[1], seed=self.generator)
        blur = random.uniform(batch, 0.0, 1.0, seed=self.generator) < probability
        sigma = random.uniform((2,), self.sigma[0], self.sigma[1], seed=self.generator, dtype=self.compute_dtype)
        blurred = gaussian_blur(images, self.kernel_size, sigma + 1e-6, self.data_format)
        images = tf.where(tf.reshape(blur, (-1, 1, 1, 1)), blurred, images)
        low, high = (tf.cast(bound, images.dtype) for bound in self.value_range)
        return tf.clip_by_value(images, low, high)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "kernel_size": self.kernel_size, "sigma": self.sigma,
                "value_range": self.value_range, "seed": self.seed}
