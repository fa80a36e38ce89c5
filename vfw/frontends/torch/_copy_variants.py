"""torch's ``*_copy`` functions: each runs a view operation and returns its result(s) in fresh, contiguous memory.

``torch.permute_copy(x, dims)`` is ``x.permute(dims)`` copied; the split family returns a tuple of copies.
Gradients are those of the view followed by a copy. Also ``unsafe_split`` / ``unsafe_chunk`` /
``unsafe_split_with_sizes`` at the top level (torch's splits without the view bookkeeping: vfw gives the ordinary
splits; the methods live in ``_joining``).
"""

from vfw.frontends.torch import _config, _dispatch, _dtype, _joining
from vfw.frontends.torch._pointwise import tensor_arg


def _slice(input, dim=0, start=None, end=None, step=1):
    """``input[..., start:end:step, ...]`` along ``dim`` (torch's ``aten::slice``)."""
    d = dim + input.dim() if dim < 0 else dim
    return input[(slice(None),) * d + (slice(start, end, step),)]


# name of the copy variant -> the view it copies (a function taking the input first)
_VIEWS = {
    "alias_copy": lambda x: x.view_as(x),
    "as_strided_copy": lambda x, size, stride, storage_offset=None: x.as_strided(size, stride, storage_offset),
    "detach_copy": lambda x: x.detach(),
    "diagonal_copy": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "expand_copy": lambda x, size, *, implicit=False: x.expand(size),
    "permute_copy": lambda x, dims: x.permute(dims),
    "select_copy": lambda x, dim, index: x.select(dim, index),
    "slice_copy": _slice,
    "split_copy": lambda x, split_size, dim=0: x.split(split_size, dim),
    "split_with_sizes_copy": lambda x, split_sizes, dim=0: x.split_with_sizes(split_sizes, dim),
    "squeeze_copy": lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim),
    "t_copy": lambda x: x.t(),
    "transpose_copy": lambda x, dim0, dim1: x.transpose(dim0, dim1),
    "unbind_copy": lambda x, dim=0: x.unbind(dim),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "unsqueeze_copy": lambda x, dim: x.unsqueeze(dim),
    # torch's view_copy reshapes what no view can give (a copy is made anyway)
    "view_copy": lambda x, size: x.view(size) if isinstance(size, _dtype.dtype) else x.reshape(size),
}


def _copy_variant(name, view):
    def copy_variant(input, *args, out=None, **kwargs):
        tensor_arg(input, name)
        result = view(input, *args, **kwargs)
        if isinstance(result, tuple):
            if out is not None:
                raise RuntimeError(f"{name}: out= is not supported by vfw.torch for functions returning several "
                                   "tensors")
            return tuple(piece.clone(memory_format=_config.contiguous_format) for piece in result)
        return _dispatch.finish(result.clone(memory_format=_config.contiguous_format), out, name)

    copy_variant.__name__ = copy_variant.__qualname__ = name
    copy_variant.__doc__ = (f"Tensor: what ``{name[:-len('_copy')]}`` returns, in fresh contiguous memory "
                            "(a tuple of tensors for the splits and ``unbind``).")
    return copy_variant


globals().update({name: _copy_variant(name, view) for name, view in _VIEWS.items()})


def unsafe_split(tensor, split_size, dim=0):
    """``torch.split`` (torch skips the view bookkeeping; vfw gives the same pieces)."""
    return tuple(_joining.split(tensor, split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``torch.split_with_sizes`` (see ``unsafe_split``)."""
    return tuple(_joining.split_with_sizes(input, split_sizes, dim))


def unsafe_chunk(input, chunks, dim=0):
    """``torch.chunk`` (see ``unsafe_split``)."""
    return tuple(_joining.chunk(input, chunks, dim))


__all__ = [*_VIEWS, "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"]
