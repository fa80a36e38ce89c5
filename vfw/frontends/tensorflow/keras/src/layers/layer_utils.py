"""Argument checks and output-shape arithmetic the convolution, pooling and reshaping layers share.

Messages and rules are Keras 3's (``keras.src.utils.argument_validation`` and the shape helpers of
``keras.src.ops.operation_utils``): a None (unknown) spatial size stays None in output shapes.
"""

import math


def standardize_tuple(value, n, name, allow_zero=False):
    """``value`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints.

    Parameters
    ----------
    value : int or sequence of int
    n : int
        The tuple length.
    name : str
        The argument's name, for errors.
    allow_zero : bool
        Whether 0 is accepted (negative values never are).

    Raises
    ------
    ValueError
        For a wrong length, a non-integer element or an out-of-range value.
    """
    message = f"The `{name}` argument must be a tuple of {n} integers. Received {name}={value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for item in values:
            try:
                int(item)
            except (ValueError, TypeError):
                raise ValueError(f"{message}including element {item} of type {type(item)}") from None
    bad = {v for v in values if (v < 0 if allow_zero else v <= 0)}
    if bad:
        requirement = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{message}, including values {bad} that do not satisfy `value {requirement}`")
    return values


def standardize_padding(value, allow_causal=False):
    """``"valid"``/``"same"`` (or ``"causal"`` when allowed), lower-cased; lists and tuples pass as they are."""
    if isinstance(value, (list, tuple)):
        return value
    padding = value.lower()
    allowed = {"valid", "same", "causal"} if allow_causal else {"valid", "same"}
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {allowed}. Received: {padding}")
    return padding


def spatial_dims(shape, data_format):
    """The spatial part of a batched shape (``data_format`` says where the channels are)."""
    return list(shape[1:-1]) if data_format == "channels_last" else list(shape[2:])


def with_spatial(shape, spatial, channels, data_format):
    """The batched shape with ``spatial`` sizes and ``channels`` channels, laid out as ``data_format``."""
    if data_format == "channels_last":
        return (shape[0], *spatial, channels)
    return (shape[0], channels, *spatial)


def _windowed_sizes(sizes, window, strides, padding, error):
    """Output sizes of a sliding window (``window`` already dilated) over ``sizes``; None stays None."""
    out = []
    for size, k, s in zip(sizes, window, strides):
        if size is None:
            out.append(None)
        elif padding == "valid":
            n = math.floor((size - k) / s) + 1
            if n <= 0:
                raise error()
            out.append(n)
        else:
            out.append(math.floor((size - 1) / s) + 1)
    return out


def conv_output_shape(input_shape, filters, kernel_size, strides, padding, data_format, dilation_rate):
    """The output shape of an N-D convolution (``padding`` "valid", "same" or "causal").

    Raises
    ------
    ValueError
        When the kernel's rank does not fit the input's, or a "valid" output would be empty.
    """
    channels = input_shape[-1] if data_format == "channels_last" else input_shape[1]
    kernel_shape = tuple(kernel_size) + (channels, filters)
    if len(kernel_shape) != len(input_shape):
        raise ValueError(f"Kernel shape must have the same length as input, but received kernel of shape "
                         f"{kernel_shape} and input of shape {input_shape}.")
    sizes = spatial_dims(input_shape, data_format)
    if padding not in ("valid", "same", "causal"):
        raise ValueError(f"`padding` must be either `'valid'` or `'same'`. Received {padding}.")
    window = [d * (k - 1) + 1 for k, d in zip(kernel_size, dilation_rate)]

    def error():
        return ValueError(f"Computed output size would be zero or negative. Received `inputs shape={input_shape}`, "
                          f"`kernel shape={kernel_shape}`, `dilation_rate={_as_array_text(dilation_rate)}`, "
                          f"`strides={strides}`, `padding={padding}`.")

    out = _windowed_sizes(sizes, window, strides, "valid" if padding == "valid" else "same", error)
    return with_spatial(input_shape, out, filters, data_format)


def pooling_output_shape(input_shape, pool_size, strides, padding, data_format):
    """The output shape of max/average pooling.

    Raises
    ------
    ValueError
        For a padding other than "valid"/"same", or when a "valid" output would be empty.
    """
    sizes = spatial_dims(input_shape, data_format)
    if padding not in ("valid", "same"):
        raise ValueError(f"Argument `padding` must be either 'valid' or 'same'. Received: padding={padding}")

    def error():
        marked = with_spatial(input_shape, [-1 if d is None else d for d in sizes],
                              input_shape[-1] if data_format == "channels_last" else input_shape[1], data_format)
        shape_text = _as_array_text(marked)  # Keras marks unknown spatial sizes -1
        return ValueError(f"Computed output size would be zero or negative. Received: `inputs.shape={shape_text}`, "
                          f"`pool_size={_as_array_text(pool_size)}`, `strides={strides}`, `padding={padding}`.")

    out = _windowed_sizes(sizes, pool_size, strides, padding, error)
    channels = input_shape[-1] if data_format == "channels_last" else input_shape[1]
    return with_spatial(input_shape, out, channels, data_format)


def conv_transpose_size(size, kernel, stride, padding, output_padding, dilation):
    """One spatial size of a transposed convolution's output, as Keras computes it (None stays None)."""
    if size is None:
        return None
    kernel = (kernel - 1) * dilation + 1
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (size - 1) * stride + kernel + extra
    if output_padding is None:
        return size * stride
    return (size - 1) * stride + kernel % 2 + output_padding


def conv_transpose_output_shape(input_shape, kernel_size, filters, strides, padding, output_padding, data_format,
                                dilation_rate):
    """The output shape of an N-D transposed convolution, a list as Keras returns it."""
    paddings = (None,) * len(kernel_size) if output_padding is None else output_padding
    sizes = [conv_transpose_size(n, k, s, padding, p, d) for n, k, s, p, d in
             zip(spatial_dims(input_shape, data_format), kernel_size, strides, paddings, dilation_rate)]
    return list(with_spatial(input_shape, sizes, filters, data_format))


def _as_array_text(values):
    """``values`` printed as numpy prints a 1-D int array (Keras formats these shapes through numpy)."""
    return "[" + " ".join(str(v) for v in values) + "]"
