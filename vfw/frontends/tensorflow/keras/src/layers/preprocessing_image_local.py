"""Image layers working on local neighbourhoods: ContrastLimitedAdaptiveHistogramEqualization (CLAHE) and
RandomElasticTransform.

CLAHE equalizes each tile of a grid by its clipped histogram and blends the four nearest tiles' mappings
bilinearly per pixel, in Keras' formulas (so results are Keras'); it applies in training and inference.
RandomElasticTransform moves each pixel by a Gaussian-smoothed normal displacement field (Keras draws one field,
used for both x and y, with TF's stateless normal at a seed drawn from the layer's SeedGenerator) and resamples
with Keras' ``map_coordinates`` fill modes.
"""

import itertools

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image import _base_factor, _channels_moved
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_blur import gaussian_blur
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_color import _ColorLayer, rescaled
from vfw.frontends.tensorflow.keras.src.layers.preprocessing_image_mix import checked_pair

API = {"layers": ["ContrastLimitedAdaptiveHistogramEqualization", "RandomElasticTransform"]}

_BINS = 256


def _tile_mappings(tiles, tile_pixels, clip_limit):
    """Per tile and channel, the 256-entry equalizing map of integer pixel values ``tiles`` ``[n, tile_pixels]``:
    the histogram clipped at ``clip_limit * tile_pixels / 256`` (excess spread evenly), its CDF stretched to
    [0, 255] from its minimum."""
    counts = tf.math.unsorted_segment_sum(
        tf.ones_like(tiles, dtype="float32"),
        tiles + tf.range(tiles.shape[0])[:, None] * _BINS, tiles.shape[0] * _BINS)
    histograms = tf.reshape(counts, (-1, _BINS))
    if clip_limit > 0:
        limit = clip_limit * tile_pixels / 256.0
        clipped = tf.minimum(histograms, limit)
        histograms = clipped + tf.reduce_sum(histograms - clipped, axis=-1, keepdims=True) / 256.0
    cdf = tf.cumsum(histograms, axis=-1)
    cdf_min = tf.reduce_min(cdf, axis=-1, keepdims=True)
    denominator = tile_pixels - cdf_min
    denominator = tf.where(denominator == 0, tf.ones_like(denominator), denominator)
    return tf.clip_by_value((cdf - cdf_min) * 255.0 / denominator, 0.0, 255.0)


def _blend_positions(length, tile):
    """Per pixel along an axis: the (edge-padded) tile indices before and after it and the weight of the after."""
    grid = (tf.range(length, dtype="float32") - tile / 2.0) / tile + 1.0
    before = tf.floor(grid)
    return before, before + 1.0, grid - before


class ContrastLimitedAdaptiveHistogramEqualization(_ColorLayer):
    """Contrast-limited adaptive histogram equalization per channel over a ``tile_grid_size`` grid of tiles.

    Images are padded (symmetrically) to whole tiles, mapped from ``value_range`` to [0, 255] and back; the
    result has the input dtype (cast, not rounded, as Keras).

    Parameters
    ----------
    value_range : pair of float
    clip_limit : float
        Histogram bins are clipped at ``clip_limit`` times the mean bin count (0 or less: no clipping).
    tile_grid_size : pair of int
        Tiles along height and width.
    data_format : str, optional
    """

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8), data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.clip_limit = clip_limit
        self.tile_grid_size = tile_grid_size

    def _transform(self, images, training):
        channels_first = self.data_format == "channels_first"
        if channels_first:
            images = _channels_moved(images, last=True)
        dtype = images.dtype
        values = rescaled(images, self.value_range, (0, 255), "float32")
        values = rescaled(self._equalized(tf.cast(values, "float32")), (0, 255), self.value_range, "float32")
        values = tf.cast(values, dtype)
        return _channels_moved(values, last=False) if channels_first else values

    def _equalized(self, images):
        batch, height, width, channels = images.shape.as_list()
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
        padded = tf.pad(images, [[0, 0], [0, tile_h * grid_h - height], [0, tile_w * grid_w - width], [0, 0]],
                        mode="SYMMETRIC")
        pixels = tf.clip_by_value(tf.cast(padded, "int32"), 0, 255)
        # tiles ordered (batch, tile row, tile column, channel), each a run of tile_h * tile_w pixels
        tiles = tf.transpose(tf.reshape(pixels, (batch, grid_h, tile_h, grid_w, tile_w, channels)), [0, 1, 3, 5, 2, 4])
        mappings = _tile_mappings(tf.reshape(tiles, (-1, tile_h * tile_w)), float(tile_h * tile_w), self.clip_limit)
        # edge tiles repeated once around the grid, so border pixels blend a tile with itself
        mappings = tf.reshape(mappings, (batch, grid_h, grid_w, channels, _BINS))
        mappings = tf.concat([mappings[:, :1], mappings, mappings[:, -1:]], axis=1)
        mappings = tf.concat([mappings[:, :, :1], mappings, mappings[:, :, -1:]], axis=2)
        table = tf.reshape(mappings, (-1,))
        top, bottom, y_weight = _blend_positions(tile_h * grid_h, tile_h)
        left, right, x_weight = _blend_positions(tile_w * grid_w, tile_w)
        stride_x = _BINS * channels
        stride_y = stride_x * (grid_w + 2)
        base = (tf.reshape(tf.range(batch) * stride_y * (grid_h + 2), (-1, 1, 1, 1))
                + tf.reshape(tf.range(channels) * _BINS, (1, 1, 1, -1)) + pixels)

        def looked_up(rows, cols):
            rows = tf.reshape(tf.cast(tf.clip_by_value(rows, 0, grid_h + 1), "int32"), (1, -1, 1, 1))
            cols = tf.reshape(tf.cast(tf.clip_by_value(cols, 0, grid_w + 1), "int32"), (1, 1, -1, 1))
            return tf.gather(table, base + rows * stride_y + cols * stride_x)

        x_weight, y_weight = tf.reshape(x_weight, (1, 1, -1, 1)), tf.reshape(y_weight, (1, -1, 1, 1))
        upper = looked_up(top, left) * (1.0 - x_weight) + looked_up(top, right) * x_weight
        lower = looked_up(bottom, left) * (1.0 - x_weight) + looked_up(bottom, right) * x_weight
        return (upper * (1.0 - y_weight) + lower * y_weight)[:, :height, :width, :]

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range, "clip_limit": self.clip_limit,
                "tile_grid_size": self.tile_grid_size}


_ELASTIC_INTERPOLATIONS = ("nearest", "bilinear")
_ELASTIC_FILL_MODES = {"constant", "nearest", "wrap", "mirror", "reflect"}


def _fixed_indices(index, size, fill_mode):
    """Integer pixel ``index`` (int32 tensor) brought into ``[0, size)`` by Keras' ``map_coordinates`` fill mode,
    and whether it was inside (only "constant" leaves pixels outside: they read the fill value)."""
    if fill_mode == "constant":
        inside = (index >= 0) & (index < size)
    else:
        inside = None
    if fill_mode in ("mirror", "reflect"):
        period = 2 * size
        folded = tf.math.floormod(tf.abs(index), period)
        index = tf.where(folded < size, folded, period - folded - (1 if fill_mode == "reflect" else 0))
        if fill_mode == "mirror":  # as Keras: index ``size`` stays out of range (a GatherNd error)
            return index, inside
    elif fill_mode == "wrap":
        index = tf.math.floormod(index, size)
    return tf.clip_by_value(index, 0, size - 1), inside


def _taps(coordinate, order):
    """Keras' interpolation taps ``[(int32 index, weight)]`` of one coordinate: integer coordinates are exact (one
    tap of weight 1), order 0 rounds half to even, order 1 weighs the two neighbours linearly."""
    if coordinate.dtype.is_integer:
        return [(tf.cast(coordinate, "int32"), 1)]
    if order == 0:
        return [(tf.cast(tf.round(coordinate), "int32"), 1)]
    lower = tf.floor(coordinate)
    upper_weight = coordinate - lower
    index = tf.cast(lower, "int32")
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(inputs, coordinates, order, fill_mode, fill_value):
    """Keras' ``map_coordinates``: ``inputs`` (rank n) read at ``coordinates`` (n tensors of one shape, one per
    axis of ``inputs``), order 0 (nearest) or 1 (linear per axis), indices outside brought in by ``fill_mode``
    ("constant" reads ``fill_value`` there).  Weights in the float coordinates' dtype; the result in ``inputs``'
    dtype (rounded for integers)."""
    float_dtypes = [c.dtype for c in coordinates if not c.dtype.is_integer]
    dtype = float_dtypes[0] if float_dtypes else coordinates[0].dtype
    fill = tf.cast(tf.cast(fill_value, inputs.dtype), dtype)
    result = None
    for taps in itertools.product(*(_taps(c, order) for c in coordinates)):
        indices, weight, inside = [], 1, None
        for (index, tap_weight), size in zip(taps, inputs.shape.as_list()):
            index, index_inside = _fixed_indices(index, size, fill_mode)
            indices.append(index)
            weight = weight * tap_weight
            if index_inside is not None:
                inside = index_inside if inside is None else inside & index_inside
        values = tf.cast(tf.gather_nd(inputs, tf.stack(indices, axis=-1)), dtype)
        if inside is not None:
            values = tf.where(inside, values, fill)
        term = values if isinstance(weight, int) else weight * values
        result = term if result is None else result + term
    if inputs.dtype.is_integer:
        result = tf.round(result)
    return tf.cast(result, inputs.dtype)


def elastic_warp(images, alpha, sigma, kernel_size, interpolation, fill_mode, fill_value, seed):
    """Keras' ``elastic_transform`` of a channels-last batch ``[b, h, w, c]``: one normal field (TF's stateless
    normal at ``seed``, the same draw displacing rows and columns, as Keras) scaled by ``sigma``, blurred by a
    ``kernel_size`` Gaussian of width ``sigma``, moves every pixel by ``alpha`` times it; the images are read there
    by ``map_coordinates``."""
    batch, height, width, channels = images.shape.as_list()
    dtype = images.dtype
    field = random.normal((batch, height, width), dtype=dtype.name, seed=seed) * sigma
    field = tf.squeeze(gaussian_blur(tf.expand_dims(field, -1), (kernel_size, kernel_size), (sigma, sigma),
                                     "channels_last"), -1)
    cols, rows = tf.meshgrid(tf.range(width, dtype=dtype), tf.range(height, dtype=dtype), indexing="xy")
    shape = (batch, height, width, channels)
    rows = tf.broadcast_to((rows[None] + alpha * field)[..., None], shape)
    cols = tf.broadcast_to((cols[None] + alpha * field)[..., None], shape)
    batch_index = tf.broadcast_to(tf.reshape(tf.range(batch), (-1, 1, 1, 1)), shape)
    channel_index = tf.broadcast_to(tf.range(channels), shape)
    return map_coordinates(images, [batch_index, rows, cols, channel_index],
                           _ELASTIC_INTERPOLATIONS.index(interpolation), fill_mode, fill_value)


class RandomElasticTransform(_ColorLayer):
    """Displaces the pixels of each image, with a probability drawn in ``factor``, along a smooth random field of
    strength ``alpha = 0.1 d max(h, w)`` and smoothness ``sigma = 0.05 d min(h, w)`` (``d`` drawn in ``scale`` per
    call), then clips to ``value_range``.

    Parameters
    ----------
    factor, scale : float or pair of float
        In [0, 1]: a number f for (0, f).
    interpolation : {"bilinear", "nearest"}
    fill_mode : {"reflect", "mirror", "wrap", "nearest", "constant"}
    fill_value : float
    value_range : pair of float
    seed : int, optional
    data_format : str, optional
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                 value_range=(0, 255), seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.factor = _base_factor(factor, (0, 1))
        self.scale = checked_pair(scale, "scale")
        if interpolation not in _ELASTIC_INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                      f"{_ELASTIC_INTERPOLATIONS}.")
        if fill_mode not in _ELASTIC_FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_ELASTIC_FILL_MODES}.")
        self.interpolation = interpolation
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.value_range = value_range
        self._init_seed(seed)

    def _transform(self, images, training):
        if not training or self.scale[1] == 0 or self.factor[1] == 0:
            return tf.cast(images, self.compute_dtype)
        batch = images.shape[0]
        probability = random.uniform((batch,), self.factor[0], self.factor[1], seed=self.generator)
        apply = random.uniform((batch,), 0.0, 1.0, seed=self.generator) < probability
        distortion = random.uniform((), self.scale[0], self.scale[1], seed=self.generator, dtype=self.compute_dtype)
        channels_first = self.data_format == "channels_first"
        values = _channels_moved(images, last=True) if channels_first else images
        warped = self._warped(values, distortion)
        if channels_first:
            warped = _channels_moved(warped, last=False)
        images = tf.where(tf.reshape(apply, (-1, 1, 1, 1)), tf.cast(warped, images.dtype), images)
        images = tf.clip_by_value(images, tf.cast(self.value_range[0], images.dtype),
                                  tf.cast(self.value_range[1], images.dtype))
        return tf.cast(images, self.compute_dtype)

    def _warped(self, images, distortion):
        """Keras' ``elastic_transform`` of a channels-last batch, its strength and smoothness scaled by
        ``distortion``."""
        height, width = images.shape[1], images.shape[2]
        dtype = images.dtype
        alpha = tf.cast(max(height, width) * 0.1 * distortion, dtype)
        sigma = tf.cast(min(height, width) * 0.05 * distortion, dtype)
        # the blur's size follows the drawn sigma (a value known when the layer runs eagerly)
        kernel = 6 * int(tf.get_static_value(tf.cast(sigma, "int32"))) | 1
        return elastic_warp(images, alpha, sigma, kernel, self.interpolation, self.fill_mode, self.fill_value,
                            self.generator)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                "value_range": self.value_range, "seed": self.seed}
