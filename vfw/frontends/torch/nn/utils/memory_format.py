"""``convert_conv2d_weight_memory_format`` / ``convert_conv3d_weight_memory_format``: lay the weights of a
model's (transposed) convolutions out in a memory format, in place, as torch does."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, layer_types):
    if isinstance(module, layer_types):
        weight = module.weight.detach().clone().contiguous(memory_format=memory_format)
        module.weight.data = weight
    for child in module.children():
        _convert(child, memory_format, layer_types)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every ``Conv2d``/``ConvTranspose2d`` weight in ``module`` the layout ``memory_format``.

    Parameters
    ----------
    module : Module
    memory_format : torch.memory_format
        e.g. ``torch.channels_last``.

    Returns
    -------
    Module
        ``module``, changed in place.
    """
    from vfw.frontends.torch.nn.modules.conv import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """As :func:`convert_conv2d_weight_memory_format`, for ``Conv3d``/``ConvTranspose3d`` (``channels_last_3d``)."""
    from vfw.frontends.torch.nn.modules.conv import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
