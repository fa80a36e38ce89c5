"""Reshaping layers: Flatten, Reshape, Permute, RepeatVector, ZeroPadding1D/2D/3D, Cropping1D/2D/3D
(UpSampling1D/2D/3D are in ``upsampling``).

Shapes, arguments, configs and errors are Keras 3's; the computation is tf reshapes, transposes,
pads and slices (differentiable, traced by tf.function).
"""

import math

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import ops
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.engine.input_spec import InputSpec
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers import layer_utils

_ORDINALS = ("1st", "2nd", "3rd")


def _same_dtype_spec(layer, inputs):
    """The output KerasTensor of a layer whose output keeps the input's dtype."""
    return KerasTensor(layer.compute_output_shape(inputs.shape), dtype=inputs.dtype, sparse=inputs.sparse)


def _batch_size(inputs):
    """The batch size: static when known, else a scalar tensor."""
    return inputs.shape[0] if inputs.shape[0] is not None else tf.shape(inputs)[0]


class Flatten(Layer):
    """Flattens each example: ``(batch, *dims)`` -> ``(batch, prod(dims))`` (channels_first inputs are
    moved to channels_last first, so the order matches channels_last models)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self._channels_first = self.data_format == "channels_first"

    def call(self, inputs):
        rank = len(inputs.shape)
        if self._channels_first and rank > 1:
            inputs = tf.transpose(inputs, (0, *range(2, rank), 1))
        size = self.compute_output_shape(tuple(inputs.shape))[1]
        return tf.reshape(inputs, [_batch_size(inputs), -1 if size is None else size])

    def compute_output_shape(self, input_shape):
        dims = input_shape[1:]
        size = None if any(d is None for d in dims) else math.prod(dims)
        return (input_shape[0], size)

    def compute_output_spec(self, inputs):
        return _same_dtype_spec(self, inputs)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


def _check_target_shape(target_shape, name):
    negative_ones = 0
    for dim in target_shape:
        if not isinstance(dim, int):
            continue
        if dim < -1:
            raise ValueError(f"Each dimension in `{name}` must be a non-negative integer, or `-1` for a single "
                             f"unknown dimension. Received: {name}={target_shape}.")
        negative_ones += dim == -1
    if negative_ones > 1:
        raise ValueError(f"There must be at most one unknown dimension (-1) in `{name}`. Received: "
                         f"{name}={target_shape}.")


def reshape_output_shape(input_shape, target_shape, name):
    """``target_shape`` with its -1 resolved from ``input_shape`` (None where sizes are unknown).

    Raises
    ------
    ValueError
        When the sizes cannot match.
    """
    _check_target_shape(target_shape, name)
    target = tuple(d if isinstance(d, int) else None for d in target_shape)
    if None in input_shape or None in target:
        return tuple(None if d == -1 else d for d in target)
    size = math.prod(input_shape)
    if -1 not in target:
        if size != math.prod(target):
            raise ValueError(f"The total size of the tensor must be unchanged. Received: input_shape={input_shape}, "
                             f"{name}={target}")
        return target
    known = math.prod(d for d in target if d != -1)
    if known == 0 or size % known != 0:
        raise ValueError(f"The total size of the tensor must be unchanged, however, the input size cannot by divided "
                         f"by the specified dimensions in {name}. Received: input_shape={input_shape}, {name}={target}")
    return tuple(size // known if d == -1 else d for d in target)


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (one entry may be -1).

    Parameters
    ----------
    target_shape : tuple of int
        Without the batch dim.
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target_shape = tuple(target_shape)
        _check_target_shape(target_shape, "target_shape")
        self.target_shape = target_shape
        self.built = True

    def compute_output_shape(self, input_shape):
        return (input_shape[0], *reshape_output_shape(tuple(input_shape[1:]), self.target_shape, "target_shape"))

    def compute_output_spec(self, inputs):
        return _same_dtype_spec(self, inputs)

    def call(self, inputs):
        target = reshape_output_shape(tuple(inputs.shape)[1:], self.target_shape, "target_shape")
        return tf.reshape(inputs, [_batch_size(inputs), *(-1 if d is None else d for d in target)])

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permutes the non-batch dims: ``dims`` is a permutation of ``1..rank-1``."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def compute_output_spec(self, inputs):
        return _same_dtype_spec(self, inputs)

    def call(self, inputs):
        return tf.transpose(inputs, (0,) + self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeats each ``(batch, features)`` example ``n`` times: ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def call(self, inputs):
        return tf.tile(tf.expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


def _pairs(value, rank, name, length_message, type_message, reject_negative_int):
    """``value`` (an int, or ``rank`` ints / pairs) as ``rank`` (before, after) pairs, with Keras' errors."""
    if isinstance(value, int):
        if reject_negative_int and value < 0:
            raise ValueError(f"`{name}` cannot be negative. Received: {name}={value}.")
        return ((value, value),) * rank
    if not hasattr(value, "__len__"):
        raise ValueError(type_message)
    if len(value) != rank:
        raise ValueError(length_message)
    return tuple(layer_utils.standardize_tuple(v, 2, f"{_ORDINALS[i]} entry of {name}", allow_zero=True)
                 for i, v in enumerate(value))


def _spatial_offset(data_format):
    return 2 if data_format == "channels_first" else 1


class _SpatialEdges(Layer):
    """What zero padding and cropping share: ``(before, after)`` amounts for each spatial dim (``_pairs``)."""

    def _init_edges(self, rank, data_format):
        self.data_format = standardize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)

    def _sized(self, shape, sign):
        """``shape`` with each known spatial size changed by ``sign * (before + after)``."""
        shape = list(shape)
        offset = _spatial_offset(self.data_format)
        for i, (before, after) in enumerate(self._pairs):
            if shape[offset + i] is not None:
                shape[offset + i] += sign * (before + after)
        return tuple(shape)


class _ZeroPadding(_SpatialEdges):
    def compute_output_shape(self, input_shape):
        return self._sized(input_shape, 1)

    def call(self, inputs):
        spatial = list(self._pairs)
        pads = [(0, 0), (0, 0), *spatial] if self.data_format == "channels_first" else [(0, 0), *spatial, (0, 0)]
        return ops.pad(inputs, pads)

    def get_config(self):
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding1D(_ZeroPadding):
    """Zeros before and after the steps: ``padding`` is an int or ``(before, after)``."""

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_edges(1, data_format)
        self.padding = layer_utils.standardize_tuple(padding, 2, "padding", allow_zero=True)
        self._pairs = (self.padding,)


class ZeroPadding2D(_ZeroPadding):
    """Zeros around rows and columns: an int, ``(rows, cols)`` or ``((top, bottom), (left, right))``."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_edges(2, data_format)
        self.padding = _pairs(
            padding, 2, "padding", f"`padding` should have two elements. Received: padding={padding}.",
            "`padding` should be either an int, a tuple of 2 ints (symmetric_height_crop, symmetric_width_crop), or a "
            "tuple of 2 tuples of 2 ints ((top_crop, bottom_crop), (left_crop, right_crop)). Received: "
            f"padding={padding}.", False)
        self._pairs = self.padding


class ZeroPadding3D(_ZeroPadding):
    """Zeros around three spatial dims: an int, 3 ints or 3 ``(before, after)`` pairs."""

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_edges(3, data_format)
        self.padding = _pairs(
            padding, 3, "padding", f"`padding` should have 3 elements. Received: {padding}.",
            "`padding` should be either an int, a tuple of 3 ints (symmetric_dim1_pad, symmetric_dim2_pad, "
            "symmetric_dim3_pad), or a tuple of 3 tuples of 2 ints ((left_dim1_pad, right_dim1_pad), (left_dim2_pad, "
            f"right_dim2_pad), (left_dim3_pad, right_dim2_pad)). Received: {padding}.", False)
        self._pairs = self.padding


class _Cropping(_SpatialEdges):
    def _check_sizes(self, shape, label):
        offset = _spatial_offset(self.data_format)
        for i, pair in enumerate(self._pairs):
            if shape[offset + i] is not None and sum(pair) >= shape[offset + i]:
                if len(self._pairs) == 1:
                    raise ValueError(f"`cropping` parameter of `Cropping1D` layer must be smaller than the input "
                                     f"length. Received: {label}={shape}, cropping={self.cropping}")
                raise ValueError(f"Values in `cropping` argument should be smaller than the corresponding spatial "
                                 f"dimension of the input. Received: {label}={shape}, cropping={self.cropping}")

    def compute_output_shape(self, input_shape):
        self._check_sizes(input_shape, "input_shape")
        return self._sized(input_shape, -1)

    def call(self, inputs):
        self._check_sizes(inputs.shape, "inputs.shape")
        spatial = [slice(before, -after if after else None) for before, after in self._pairs]
        if self.data_format == "channels_first":
            return inputs[(slice(None), slice(None), *spatial)]
        return inputs[(slice(None), *spatial, slice(None))]

    def get_config(self):
        config = {"cropping": self.cropping}
        if len(self._pairs) > 1:
            config["data_format"] = self.data_format
        return {**super().get_config(), **config}


class Cropping1D(_Cropping):
    """Crops steps: ``cropping`` is an int or ``(start, end)`` (always axis 1)."""

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self._init_edges(1, "channels_last")
        self.cropping = layer_utils.standardize_tuple(cropping, 2, "cropping", allow_zero=True)
        self._pairs = (self.cropping,)


class Cropping2D(_Cropping):
    """Crops rows and columns: an int, ``(rows, cols)`` or ``((top, bottom), (left, right))``."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_edges(2, data_format)
        self.cropping = _pairs(
            cropping, 2, "cropping", f"`cropping` should have two elements. Received: cropping={cropping}.",
            "`cropping` should be either an int, a tuple of 2 ints (symmetric_height_crop, symmetric_width_crop), or "
            "a tuple of 2 tuples of 2 ints ((top_crop, bottom_crop), (left_crop, right_crop)). Received: "
            f"cropping={cropping}.", True)
        self._pairs = self.cropping


class Cropping3D(_Cropping):
    """Crops three spatial dims: an int, 3 ints or 3 ``(start, end)`` pairs."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._init_edges(3, data_format)
        self.cropping = _pairs(
            cropping, 3, "cropping", f"`cropping` should have 3 elements. Received: {cropping}.",
            "`cropping` should be either an int, a tuple of 3 ints (symmetric_dim1_crop, symmetric_dim2_crop, "
            "symmetric_dim3_crop), or a tuple of 3 tuples of 2 ints ((left_dim1_crop, right_dim1_crop), "
            f"(left_dim2_crop, right_dim2_crop), (left_dim3_crop, right_dim2_crop)). Received: {cropping}.", True)
        self._pairs = self.cropping


API = {"layers": ["Flatten", "Reshape", "Permute", "RepeatVector", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D",
                  "Cropping1D", "Cropping2D", "Cropping3D"]}
