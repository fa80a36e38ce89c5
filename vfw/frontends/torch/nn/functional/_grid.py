"""grid_sample (the engine's GridSample) and affine_grid (a matrix product with a constant base grid).

Listed in ``_vision.__all__``.
"""

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _shape
from vfw.frontends.torch._dispatch import call, op, type_name
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["grid_sample", "affine_grid"]

_MODES = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
_PADDING_MODES = ("zeros", "border", "reflection")
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample "
                  "for details.")


def _align(align_corners):
    if align_corners is None:
        warn_for_user(_ALIGN_WARNING)
        return False
    return bool(align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the normalized positions in ``grid``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    grid : Tensor
        ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``: positions in ``[-1, 1]``, ``x`` (width) first.
    mode : {'bilinear', 'nearest', 'bicubic'}
        'bicubic' only for 4-D input.
    padding_mode : {'zeros', 'border', 'reflection'}
        Values for positions outside the input.
    align_corners : bool, optional
        -1 and 1 are the centers (True) or the outer edges (False, the default) of the corner pixels.

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)`` or ``(N, C, D_out, H_out, W_out)``.
    """
    tensor_arg(input, "grid_sampler")
    tensor_arg(grid, "grid_sampler", "grid", 2)
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align = _align(align_corners)
    x, g = input.array, grid.array
    if x.dtype != g.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{type_name(x.dtype)} and grid has {type_name(g.dtype)}")
    if x.ndim not in (4, 5) or g.ndim != x.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but "
                           f"got input with sizes {list(x.shape)} and grid with sizes {list(g.shape)}")
    if x.shape[0] != g.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                           f"{list(x.shape)} and grid with sizes {list(g.shape)}")
    if g.shape[-1] != x.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {x.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(g.shape)}")
    if 0 in x.shape[2:]:
        raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
                           f"{list(x.shape)} with dimension {2 + x.shape[2:].index(0)} being empty")
    if mode == "bicubic" and x.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if x.dtype not in FLOATS:
        raise NotImplementedError(f"\"grid_sampler_{x.ndim - 2}d_cpu\" not implemented for '{type_name(x.dtype)}'")
    bound = op("GridSample", mode=_MODES[mode], padding_mode=padding_mode, align_corners=int(align))
    return call(bound, input, grid)


def _steps(n, align, dtype):
    """torch's normalized positions of ``n`` pixels along one dim."""
    if n <= 1:
        return np.zeros(max(n, 1), dtype)
    positions = np.linspace(-1, 1, n, dtype=dtype)
    return positions if align else positions * dtype.type((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` for an output of ``size`` (for :func:`grid_sample`).

    Parameters
    ----------
    theta : Tensor
        ``(N, 2, 3)`` for a 4-D ``size``, ``(N, 3, 4)`` for a 5-D one (floating point).
    size : sequence of int
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    align_corners : bool, optional

    Returns
    -------
    Tensor
        ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``: ``theta @ [x, y, (z,) 1]`` at each output pixel.
    """
    tensor_arg(theta, "affine_grid", "theta")
    align = _align(align_corners)
    t = theta.array
    size = [int(s) for s in size]
    if t.dtype not in FLOATS:
        raise ValueError(f"Expected theta to have floating point type, but got torch.{t.dtype.name}")
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {_size_repr(size)}.")
    if t.ndim != 3 or t.shape[-2:] != (nd, nd + 1):
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size "
                         f"{_size_repr(size)}. Got {_size_repr(t.shape)}.")
    spatial = size[2:]
    if align and min(spatial) == 1:
        warn_for_user("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {_size_repr(size)}")
    if t.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta has {t.shape[0]} matrices but size {list(size)} asks for a batch of "
                           f"{size[0]}")
    # base[..., :] = (x, y, (z,) 1) with x running over the last dim
    axes = [_steps(n, align, t.dtype) for n in spatial[::-1]]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial, t.dtype)], axis=-1).reshape(1, -1, nd + 1)
    grid = call(op("MatMul"), base, _shape.permuted(theta, (0, 2, 1)))
    return _shape.reshape_to(grid, (size[0],) + tuple(spatial) + (nd,))


def _size_repr(size):
    return "torch.Size([" + ", ".join(str(int(s)) for s in size) + "])"
