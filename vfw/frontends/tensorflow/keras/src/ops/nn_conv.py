"""keras.ops convolutions and pooling over vfw's tf.nn (``data_format`` "channels_last" by default).

Kernels are Keras' layout: ``(*spatial, in_channels, out_channels)`` (depthwise:
``(*spatial, in_channels, multiplier)``).  Channels-first inputs of pooling and depthwise ops are
transposed to channels-last and back, as Keras does on a CPU.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op

_CHANNELS_LAST = {3: "NWC", 4: "NHWC", 5: "NDHWC"}
_CHANNELS_FIRST = {3: "NCW", 4: "NCHW", 5: "NCDHW"}


def _tf_format(data_format, ndim):
    formats = _CHANNELS_LAST if data_format == "channels_last" else _CHANNELS_FIRST
    if ndim not in formats:
        raise ValueError(f"Input rank not supported: {ndim}. Expected values are [3, 4, 5]")
    return formats[ndim]


def _to_channels_last(x):
    ndim = len(x.shape)
    if ndim not in (3, 4, 5):
        raise ValueError("Pooling inputs's shape must be 3, 4 or 5, corresponding to 1D, 2D and 3D inputs. But "
                         f"received shape: {x.shape}.")
    return tf.transpose(x, [0, *range(2, ndim), 1])


def _to_channels_first(x):
    ndim = len(x.shape)
    return tf.transpose(x, [0, ndim - 1, *range(1, ndim - 1)])


def _tuple(value, count):
    return (value,) * count if isinstance(value, int) else tuple(value)


def _pool(inputs, pool_size, strides, padding, data_format, tf_pool):
    data_format = standardize_data_format(data_format)
    inputs = convert_to_tensor(inputs)
    strides = pool_size if strides is None else strides
    if data_format == "channels_first":
        inputs = _to_channels_last(inputs)
    outputs = tf_pool(inputs, pool_size, strides, padding.upper(), _CHANNELS_LAST[len(inputs.shape)])
    return _to_channels_first(outputs) if data_format == "channels_first" else outputs


@keras_op
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over the spatial dims (``strides`` default to ``pool_size``)."""
    return _pool(inputs, pool_size, strides, padding, data_format, tf.nn.max_pool)


@keras_op
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling over the spatial dims (padding excluded from the averages)."""
    return _pool(inputs, pool_size, strides, padding, data_format, tf.nn.avg_pool)


def _check_channels(inputs, kernel, data_format, transpose=False):
    channels = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    kernel_channels = kernel.shape[-1] if transpose else kernel.shape[-2]
    if channels is not None and kernel_channels is not None and channels % kernel_channels and not transpose:
        raise ValueError("The number of input channels must be evenly divisible by kernel.shape[-2]. Received: "
                         f"inputs.shape={inputs.shape}, kernel.shape={kernel.shape}")
    if transpose and channels != kernel_channels:
        raise ValueError("The number of input channels must be equal to kernel.shape[-1]. Received: "
                         f"inputs.shape={inputs.shape}, kernel.shape={kernel.shape}")


@keras_op
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (grouped when ``kernel.shape[-2]`` divides the input channels)."""
    data_format = standardize_data_format(data_format)
    inputs, kernel = convert_to_tensor(inputs), convert_to_tensor(kernel)
    _check_channels(inputs, kernel, data_format)
    result = tf.nn.convolution(inputs, kernel, strides, padding.upper(),
                               data_format=_tf_format(data_format, len(inputs.shape)), dilations=dilation_rate)
    if 0 in result.shape and 0 not in inputs.shape:
        raise ValueError(f"The convolution operation resulted in an empty output. Output shape: {result.shape}. This "
                         "can happen if the input is too small for the given kernel size, strides, dilation rate, and "
                         "padding mode. Please check the input shape and convolution parameters.")
    return result


def _depthwise(inputs, depthwise_kernel, pointwise_kernel, strides, padding, data_format, dilation_rate):
    """Depthwise (then pointwise, when given) 1-D/2-D convolution through tf.nn's 2-D ops."""
    data_format = standardize_data_format(data_format)
    inputs, depthwise_kernel = convert_to_tensor(inputs), convert_to_tensor(depthwise_kernel)
    spatial = len(inputs.shape) - 2
    if spatial > 2:
        raise ValueError(f"`inputs` rank must be 3 (1D conv) or 4 (2D conv). Received: {len(inputs.shape)}.")
    _check_channels(inputs, depthwise_kernel, data_format)
    strides = _tuple(strides, spatial)
    dilation_rate = _tuple(dilation_rate, spatial)
    if data_format == "channels_first":
        inputs = _to_channels_last(inputs)
    if spatial == 1:
        inputs = tf.expand_dims(inputs, 1)
        depthwise_kernel = tf.expand_dims(depthwise_kernel, 0)
        if pointwise_kernel is not None:
            pointwise_kernel = tf.expand_dims(convert_to_tensor(pointwise_kernel), 0)
        strides, dilation_rate = (1, *strides), (1, *dilation_rate)
    stride4 = (1, *strides, 1)
    if pointwise_kernel is None:
        outputs = tf.nn.depthwise_conv2d(inputs, depthwise_kernel, stride4, padding.upper(), data_format="NHWC",
                                         dilations=dilation_rate)
    else:
        outputs = tf.nn.separable_conv2d(inputs, depthwise_kernel, convert_to_tensor(pointwise_kernel), stride4,
                                         padding.upper(), data_format="NHWC", dilations=dilation_rate)
    if spatial == 1:
        outputs = tf.squeeze(outputs, [1])
    return _to_channels_first(outputs) if data_format == "channels_first" else outputs


@keras_op
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise 1-D/2-D convolution: each input channel convolved with its own ``multiplier`` filters."""
    return _depthwise(inputs, kernel, None, strides, padding, data_format, dilation_rate)


@keras_op
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Depthwise convolution followed by a 1x1 (pointwise) convolution."""
    return _depthwise(inputs, depthwise_kernel, pointwise_kernel, strides, padding, data_format, dilation_rate)


def _transpose_output_size(size, kernel, stride, padding, output_padding, dilation):
    """One spatial size of a transposed convolution's output, as Keras computes it."""
    kernel = (kernel - 1) * dilation + 1
    if padding.lower() not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be one of 'valid', 'same'. Received: padding={padding}")
    if padding.lower() == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


@keras_op
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                   dilation_rate=1):
    """Transposed N-D convolution; ``kernel`` is ``(*spatial, out_channels, in_channels)``."""
    data_format = standardize_data_format(data_format)
    inputs, kernel = convert_to_tensor(inputs), convert_to_tensor(kernel)
    _check_channels(inputs, kernel, data_format, transpose=True)
    spatial = len(inputs.shape) - 2
    strides, dilations = _tuple(strides, spatial), _tuple(dilation_rate, spatial)
    paddings = (None,) * spatial if output_padding is None else _tuple(output_padding, spatial)
    sizes = inputs.shape[1:-1] if data_format == "channels_last" else inputs.shape[2:]
    out_sizes = [_transpose_output_size(n, k, s, padding, p, d)
                 for n, k, s, p, d in zip(sizes, kernel.shape[:-2], strides, paddings, dilations)]
    filters = kernel.shape[-2]
    batch = inputs.shape[0]
    output_shape = [batch, *out_sizes, filters] if data_format == "channels_last" else [batch, filters, *out_sizes]
    return tf.nn.conv_transpose(inputs, kernel, output_shape, strides, padding=padding.upper(),
                                data_format=_tf_format(data_format, len(inputs.shape)), dilations=dilations)
