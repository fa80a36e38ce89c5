"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate, Dot and their
functional forms (``keras.layers.add([a, b])``...).

Each layer takes a list of tensors.  Elementwise merges broadcast as Keras does (inputs of lower
rank get size-1 dims inserted after the batch dim) and promote dtypes through keras.ops.  Masks:
the output mask is the OR of the inputs' masks; Maximum/Minimum take, at masked positions of one
input, the other input's value, and Multiply treats masked positions as 1 (Keras 3's rules).
"""

from vfw.frontends.tensorflow.keras.src import ops
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.layer_call import get_keras_mask, set_keras_mask


def _broadcast_shapes(shape1, shape2):
    """The broadcast of two shapes without their batch dims (None: unknown), Keras' rules."""
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        shape1, shape2 = shape2, shape1
    if not shape2:
        return shape1
    out = list(shape1[:-len(shape2)])
    for i, j in zip(shape1[-len(shape2):], shape2):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1:
            out.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(f"Inputs have incompatible shapes. Received shapes {shape1} and {shape2}")
        else:
            out.append(i)
    return tuple(out)


def _merged_shape(input_shapes):
    shape = None if input_shapes[0] is None else input_shapes[0][1:]
    for other in input_shapes[1:]:
        shape = _broadcast_shapes(shape, None if other is None else other[1:])
    return shape


def _mask_like(x, mask):
    """``mask`` (batch, ...) broadcast over the last dim of ``x`` (None stays None)."""
    return None if mask is None else ops.broadcast_to(ops.expand_dims(mask, -1), ops.shape(x))


class Merge(Layer):
    """The base of merging layers: a list of tensors in, one tensor out (``_merge_function``)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _merge_function(self, inputs):
        raise NotImplementedError

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape} (not a list of shapes)")
        if len(input_shape) < 1:
            raise ValueError(f"A merge layer should be called on a list of at least 1 input. Received "
                             f"{len(input_shape)} inputs. Full input_shape received: {input_shape}")
        if len({s[0] for s in input_shape if s} - {None}) > 1:
            raise ValueError(f"Cannot merge tensors with different batch sizes. Received tensors with shapes "
                             f"{input_shape}")
        _merged_shape(input_shape)  # incompatible shapes fail here
        self._reshape_required = None in input_shape or len({len(s) for s in input_shape}) != 1

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs} (not a "
                             "list of tensors)")
        if self._reshape_required:
            rank = max(len(x.shape) for x in inputs)
            expanded = []
            for x in inputs:
                for _ in range(rank - len(x.shape)):
                    x = ops.expand_dims(x, axis=1)
                expanded.append(x)
            inputs = expanded
        return self._merge_function(inputs)

    def compute_output_shape(self, input_shape):
        shape = _merged_shape(input_shape)
        batch_sizes = {s[0] for s in input_shape if s is not None} - {None}
        return (batch_sizes.pop() if len(batch_sizes) == 1 else None,) + shape

    def compute_output_spec(self, inputs):
        shape = self.compute_output_shape([x.shape for x in inputs])
        return KerasTensor(shape, dtype=self.compute_dtype, sparse=all(x.sparse for x in inputs))

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        _check_mask_list(inputs, mask, "`mask` should be a list. Received: mask=")
        if any(m is None for m in mask):
            return None
        output = mask[0]
        for m in mask[1:]:
            output = ops.logical_or(output, m)
        return output

    def _masked_merge(self, combine, inputs):
        """``combine`` folded over the inputs; at one input's masked positions the other's values are used."""
        output = output_mask = None
        for i, x in enumerate(inputs):
            mask = _mask_like(x, get_keras_mask(x))
            if i == 0:
                output, output_mask = x, mask
                continue
            if mask is not None:
                x = ops.where(mask, x, output)
            if output_mask is not None:
                output = ops.where(output_mask, output, x)
            output_mask = None if mask is None or output_mask is None else ops.logical_or(output_mask, mask)
            output = combine(output, x)
        if output_mask is not None:
            set_keras_mask(output, ops.any(output_mask, axis=-1, keepdims=False))
        return output


def _check_mask_list(inputs, mask, mask_message):
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"{mask_message}{mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError(f"The lists `inputs` and `mask` should have the same length. Received: inputs={inputs} of "
                         f"length {len(inputs)}, and mask={mask} of length {len(mask)}")


def _sum(inputs):
    output = inputs[0]
    for x in inputs[1:]:
        output = ops.add(output, x)
    return output


class Add(Merge):
    """The elementwise sum of the inputs."""

    def _merge_function(self, inputs):
        return _sum(inputs)


class Subtract(Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                             f"input_shape={input_shape}")

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return ops.subtract(inputs[0], inputs[1])


class Multiply(Merge):
    """The elementwise product of the inputs (masked positions count as 1; all masked: 0)."""

    def _merge_function(self, inputs):
        masks = [get_keras_mask(x) for x in inputs]
        all_masked = all(m is not None for m in masks)
        output = output_mask = None
        for x, mask in zip(inputs, masks):
            if mask is not None:
                mask = _mask_like(x, mask)
                x = ops.where(mask, x, ops.cast(1, x.dtype))
                if all_masked:
                    output_mask = mask if output_mask is None else ops.logical_or(output_mask, mask)
            output = x if output is None else ops.multiply(output, x)
        if all_masked:
            output = ops.where(output_mask, output, ops.cast(0, output.dtype))
            set_keras_mask(output, ops.any(output_mask, axis=-1, keepdims=False))
        return output


class Average(Merge):
    """The elementwise mean of the inputs."""

    def _merge_function(self, inputs):
        return _sum(inputs) / len(inputs)


class Maximum(Merge):
    """The elementwise maximum of the inputs."""

    def _merge_function(self, inputs):
        return self._masked_merge(ops.maximum, inputs)


class Minimum(Merge):
    """The elementwise minimum of the inputs."""

    def _merge_function(self, inputs):
        return self._masked_merge(ops.minimum, inputs)


class Concatenate(Merge):
    """Concatenates the inputs along ``axis`` (default -1); the other dims must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True
        self._reshape_required = False

    def build(self, input_shape):
        if len(input_shape) < 1 or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                             f"input_shape={input_shape}")
        if all(shape is None for shape in input_shape):
            return
        others = set()
        for shape in input_shape:
            reduced = list(shape)
            if len(reduced) > self.axis:
                del reduced[self.axis]
            others.add(tuple(reduced))
        if len(others) == 1:
            return
        message = (f"A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. "
                   f"Received: input_shape={input_shape}")
        ranks = {len(shape) for shape in others}
        if len(ranks) != 1:
            raise ValueError(message)
        for axis in range(ranks.pop()):
            if len({shape[axis] for shape in others if shape[axis] is not None}) > 1:
                raise ValueError(message)

    def _merge_function(self, inputs):
        return ops.concatenate(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or not isinstance(input_shape[0], (tuple, list)):
            raise ValueError(f"A `Concatenate` layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape}")
        output = list(input_shape[0])
        for shape in input_shape[1:]:
            if output[self.axis] is None or shape[self.axis] is None:
                output[self.axis] = None
                break
            output[self.axis] += shape[self.axis]
        return tuple(output)

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        _check_mask_list(inputs, mask, "`mask` should be a list. Received mask=")
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(ops.ones_like(x, dtype="bool"))
            elif len(m.shape) < len(x.shape):
                masks.append(ops.logical_or(ops.expand_dims(m, axis=-1), ops.zeros_like(x, dtype="bool")))
            else:
                masks.append(m)
        return ops.any(ops.concatenate(masks, axis=self.axis), axis=-1, keepdims=False)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def batch_dot_axes(x_shape, y_shape, axes, shapes="shapes", expand="keras.ops.expand_dims(x, 0)", provided=" "):
    """``batch_dot``'s checks of two static shapes and its ``axes`` (None, an int, or one axis each, not 0),
    returned as two non-negative axes.  ``shapes``, ``expand`` and ``provided`` are the words of the messages,
    which differ between Keras 3 and tf.keras' legacy backend."""
    x_rank, y_rank = len(x_shape), len(y_shape)
    if x_rank < 2 or y_rank < 2:
        raise ValueError(f"Cannot do batch_dot on inputs with rank < 2. Received inputs with {shapes} {x_shape} and "
                         f"{y_shape}.")
    if x_shape[0] is not None and y_shape[0] is not None and x_shape[0] != y_shape[0]:
        raise ValueError(f"Cannot do batch_dot on inputs with different batch sizes. Received inputs with {shapes} "
                         f"{x_shape} and {y_shape}.")
    if isinstance(axes, int):
        axes = [axes, axes]
    if axes is None:
        axes = [x_rank - 1, y_rank - 1 if y_rank == 2 else y_rank - 2]
    if any(isinstance(a, (list, tuple)) for a in axes):
        raise ValueError(f"Multiple target dimensions are not supported. Expected: None, int, (int, int), Provided: "
                         f"{axes}{provided}")
    axes = [axes[0] + x_rank if axes[0] < 0 else axes[0], axes[1] + y_rank if axes[1] < 0 else axes[1]]
    if 0 in axes:
        raise ValueError("Cannot perform batch_dot over axis 0. If your inputs are not batched, add a dummy batch "
                         f"dimension to your inputs using {expand}")
    x_axis, y_axis = axes
    if x_shape[x_axis] is not None and y_shape[y_axis] is not None and x_shape[x_axis] != y_shape[y_axis]:
        raise ValueError(f"Cannot do batch_dot on inputs with {shapes} {x_shape} and {y_shape} with axes={axes}. "
                         f"x.shape[{x_axis}] != y.shape[{y_axis}] ({x_shape[x_axis]} != {y_shape[y_axis]}).")
    return x_axis, y_axis


def batch_dot(x, y, axes=None):
    """The batchwise dot product of ``x`` and ``y`` (rank >= 2) over ``axes`` (one axis each, not 0).

    Keras' ``batch_dot``: a rank-2 operand's result dims are squeezed away; higher ranks keep
    ``x``'s remaining dims then ``y``'s.
    """
    x_rank, y_rank = len(x.shape), len(y.shape)
    x_axis, y_axis = batch_dot_axes(x.shape, y.shape, axes)
    # x: (batch, rest_x..., k) and y: (batch, k, rest_y...), then one batched matmul
    x = ops.moveaxis(x, x_axis, -1)
    y = ops.moveaxis(y, y_axis, 1)
    x_rest = [ops.shape(x)[i] for i in range(1, x_rank - 1)]
    y_rest = [ops.shape(y)[i] for i in range(2, y_rank)]
    batch = ops.shape(x)[0]
    product = ops.matmul(ops.reshape(x, (batch, -1, x.shape[-1])), ops.reshape(y, (batch, y.shape[1], -1)))
    if x_rank == 2 and y_rank == 2:
        return ops.reshape(product, (batch, 1))
    return ops.reshape(product, (batch, *x_rest, *y_rest))


class Dot(Merge):
    """The dot product of two inputs along ``axes`` (optionally of their L2-normalized forms: cosines).

    Parameters
    ----------
    axes : int or (int, int)
        The axis (of each input) summed over; never 0.
    normalize : bool
        L2-normalize both inputs along their axes first.
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. Received: "
                                f"axes={axes}")
            if len(axes) != 2:
                raise ValueError(f"Invalid format for argument `axes`: it should contain two elements. Received: "
                                 f"axes={axes}")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(f"Invalid format for argument `axes`: list elements should be integers. Received: "
                                 f"axes={axes}")
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True
        self._reshape_required = False

    def _axes_for(self, shape1, shape2):
        if isinstance(self.axes, int):
            if self.axes < 0:
                return [self.axes % len(shape1), self.axes % len(shape2)]
            return [self.axes] * 2
        return list(self.axes)

    def build(self, input_shape):
        if not isinstance(input_shape[0], (tuple, list)) or len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                             f"input_shape={input_shape}")
        shape1, shape2 = input_shape
        if shape1 is None or shape2 is None:
            return
        axes = self._axes_for(shape1, shape2)
        if shape1[axes[0]] != shape2[axes[1]]:
            raise ValueError(f"Incompatible input shapes: axis values {shape1[axes[0]]} (at axis {axes[0]}) != "
                             f"{shape2[axes[1]]} (at axis {axes[1]}). Full input shapes: {shape1}, {shape2}")

    def _merge_function(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x1, x2 = inputs
        if isinstance(self.axes, int):
            axes = self._axes_for(x1.shape, x2.shape)
        else:
            axes = [a % len(x.shape) if a < 0 else a for a, x in zip(self.axes, inputs)]
        if self.normalize:
            x1 = ops.normalize(x1, axis=axes[0])
            x2 = ops.normalize(x2, axis=axes[1])
        return batch_dot(x1, x2, axes)

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, (tuple, list)) or len(input_shape) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: "
                             f"input_shape={input_shape}")
        shape1, shape2 = list(input_shape[0]), list(input_shape[1])
        axes = self._axes_for(shape1, shape2)
        shape1.pop(axes[0])
        shape2.pop(axes[1])
        shape2.pop(0)
        output = shape1 + shape2
        return tuple(output + [1] if len(output) == 1 else output)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs):
    """``Dot(axes=axes, **kwargs)(inputs)``."""
    return Dot(axes=axes, **kwargs)(inputs)


API = {"layers": ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot", "add",
                  "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot"]}
