"""torch's native nn operators at the top level with their ATen signatures: ``torch.convolution``,
``grid_sampler`` (``_2d`` / ``_3d``), ``affine_grid_generator``, the in-place dropouts (``dropout_``,
``alpha_dropout_``, ``feature_dropout_``, ``feature_alpha_dropout_``) and ``embedding_renorm_``.

Each maps its integer codes and argument order onto the ``torch.nn.functional`` function computing it.
"""

from vfw.frontends.torch import _dispatch, _nn_ops
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn import functional as F
from vfw.frontends.torch.nn.functional._sparse import _renorm_rows

__all__ = ["convolution", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator", "dropout_",
           "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_", "embedding_renorm_"]

_INTERPOLATION = ("bilinear", "nearest", "bicubic")  # grid_sampler's interpolation_mode codes
_PADDING = ("zeros", "border", "reflection")  # and its padding_mode codes
_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *, out=None):
    """N-d (transposed) convolution with every argument given: ``F.conv{N}d`` / ``F.conv_transpose{N}d`` for an
    input of ``N + 2`` dims (batched)."""
    tensor_arg(input, "convolution")
    tensor_arg(weight, "convolution", "weight", 2)
    spatial = weight.dim() - 2
    if spatial not in _CONV:
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight, got {weight.dim()}-D")
    if input.dim() != spatial + 2:
        raise RuntimeError(f"Expected {spatial + 2}-dimensional input for {spatial + 2}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
                           f"{list(input.shape)} instead")
    if transposed:
        result = _CONV_TRANSPOSE[spatial](input, weight, bias, stride, padding, output_padding, groups, dilation)
    else:
        result = _CONV[spatial](input, weight, bias, stride, padding, dilation, groups)
    return _dispatch.finish(result, out, "convolution")


def _grid_sampler(name, rank):
    def sampler(input, grid, interpolation_mode, padding_mode, align_corners, *, out=None):
        tensor_arg(input, name)
        tensor_arg(grid, name, "grid", 2)
        if rank is not None and input.dim() != rank:
            raise RuntimeError(f"{name}(): expected {rank}D input and grid with same number of dimensions, but got "
                               f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
        if not 0 <= interpolation_mode < len(_INTERPOLATION) or not 0 <= padding_mode < len(_PADDING):
            raise RuntimeError(f"{name}(): invalid interpolation_mode {interpolation_mode} or padding_mode "
                               f"{padding_mode}")
        result = F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode],
                               bool(align_corners))
        return _dispatch.finish(result, out, name)

    sampler.__name__ = sampler.__qualname__ = name
    sampler.__doc__ = (f"``F.grid_sample`` with torch's integer codes (interpolation 0 bilinear, 1 nearest, 2 "
                       f"bicubic; padding 0 zeros, 1 border, 2 reflection){'' if rank is None else f' ({rank}-D)'}.")
    return sampler


grid_sampler = _grid_sampler("grid_sampler", None)
grid_sampler_2d = _grid_sampler("grid_sampler_2d", 4)
grid_sampler_3d = _grid_sampler("grid_sampler_3d", 5)


def affine_grid_generator(theta, size, align_corners, *, out=None):
    """``F.affine_grid(theta, size, align_corners)``."""
    tensor_arg(theta, "affine_grid_generator", "theta")
    return _dispatch.finish(F.affine_grid(theta, list(size), bool(align_corners)), out, "affine_grid_generator")


def _inplace_dropout(name, dropout):
    def dropout_(input, p, train):
        tensor_arg(input, name)
        return _dispatch.inplace(dropout, input, p, train, name=name)

    dropout_.__name__ = dropout_.__qualname__ = name
    dropout_.__doc__ = f"``torch.{name[:-1]}(input, p, train)`` written into ``input``; returns ``input``."
    return dropout_


dropout_ = _inplace_dropout("dropout_", _nn_ops.dropout)
alpha_dropout_ = _inplace_dropout("alpha_dropout_", _nn_ops.alpha_dropout)
feature_dropout_ = _inplace_dropout("feature_dropout_", _nn_ops.feature_dropout)
feature_alpha_dropout_ = _inplace_dropout("feature_alpha_dropout_", _nn_ops.feature_alpha_dropout)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Scale the rows of the embedding matrix ``input`` that ``indices`` name and whose ``norm_type``-norm exceeds
    ``max_norm`` down to ``max_norm`` (``max_norm / (norm + 1e-7)``), in place; returns ``input``."""
    tensor_arg(input, "embedding_renorm_")
    tensor_arg(indices, "embedding_renorm_", "indices", 2)
    if input.dim() != 2:
        raise RuntimeError(f"embedding_renorm_: Expected 2-D tensor for argument #1 'self' (got {input.dim()}-D)")
    if indices.array.dtype.kind not in "iu":
        raise RuntimeError("embedding_renorm_: Expected tensor for argument #2 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {indices.dtype} instead")
    _dispatch.check_inplace(input, "embedding_renorm_")
    _renorm_rows(input, indices, max_norm, norm_type)
    return input
