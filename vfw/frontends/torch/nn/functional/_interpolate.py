"""interpolate and the deprecated upsample / upsample_nearest / upsample_bilinear.

Nearest modes gather along each spatial dim with index tables computed as torch computes
them (float32 arithmetic, so rounding at exact boundaries agrees); linear and cubic modes run
the engine's Resize (half_pixel or align_corners coordinates); antialiased resizing multiplies
by torch's weight matrices (one per spatial dim, see ``_filters``), and uint8 images use them in
torch's fixed point; 'area' is adaptive average pooling.
"""

import math

import numpy as np

from vfw.core.dtypes import FLOATS
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _typing
from vfw.frontends.torch._dispatch import call, cast, op, type_name
from vfw.frontends.torch._grad_fn_names import interpolate_name, names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional import _filters
from vfw.frontends.torch.nn.functional._adaptive import adaptive_avg_pool
from vfw.frontends.torch.nn.functional._conv_layout import keep_layout
from vfw.frontends.torch.nn.functional._spatial import is_int

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_LINEAR_MODES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_NEAREST_MODES = ("nearest", "nearest-exact")
_MODE_LIST = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_AXIS_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _size_args(input, size, scale_factor, dim):
    """``(output_size, scale_factors)``, exactly one of them a list, as torch validates them."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, CoreTensor):
            size = size.array.tolist()
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.array.shape[2:])} and output size of "
                                 f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                                 f"size in (o1, o2, ...,oK) format.")
            if not all(is_int(s) for s in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            return [int(s) for s in size], None
        if not is_int(size):
            raise TypeError(f"interpolate(): size must be an int or a sequence of ints, not {type(size).__name__}")
        return [int(size)] * dim, None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.array.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        return None, [float(s) for s in scale_factor]
    return None, [float(scale_factor)] * dim


def _check_sizes(in_sizes, out_sizes):
    if all(o > 0 for o in out_sizes) and all(i > 0 for i in in_sizes):
        return
    names = _AXIS_NAMES.get(len(in_sizes), tuple(f"d{i}" for i in range(len(in_sizes))))
    def text(sizes):
        return ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({text(in_sizes)}) output "
                       f"({text(out_sizes)})")


def _nearest_index(n_in, n_out, scale, exact):
    """torch's source index per output position along one dim (float32 arithmetic, as torch's kernel)."""
    if n_out == n_in and not exact:
        return np.arange(n_out, dtype=np.int64)
    ratio = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n_in) / np.float32(n_out)
    pos = np.arange(n_out, dtype=np.float32)
    if exact:
        pos += np.float32(0.5)
    return np.minimum(np.floor(pos * ratio).astype(np.int64), n_in - 1)


def _nearest(input, out_sizes, scales, exact):
    x = input.array
    if x.dtype not in FLOATS and x.dtype != np.uint8:
        name = "_upsample_nearest_exact" if exact else "upsample_nearest"
        raise NotImplementedError(f"\"{name}{x.ndim - 2}d\" not implemented for '{type_name(x.dtype)}'")
    from vfw.frontends.torch.onnx import is_in_onnx_export  # the onnx module imports nn: only when called

    if is_in_onnx_export():
        return _nearest_resize(input, out_sizes, scales, exact)
    result = input
    for i, (n_in, n_out) in enumerate(zip(x.shape[2:], out_sizes)):
        index = _nearest_index(n_in, n_out, None if scales is None else scales[i], exact)
        if n_in != n_out or not np.array_equal(index, np.arange(n_in)):
            result = call(op("Gather", axis=2 + i), result, index)
    # every dim kept its size and order: torch still returns a new tensor
    return _typing.clone(input) if result is input else result


def _nearest_resize(input, out_sizes, scales, exact):
    """Nearest modes as the engine's Resize, for torch.onnx.export (torch's exporter writes the same): the
    gathers' index tables would be constants of the traced sizes, a Resize follows dynamic spatial dims."""
    nd = input.array.ndim - 2
    bound = op("Resize", axes=tuple(range(2, 2 + nd)), mode="nearest",
               coordinate_transformation_mode="half_pixel" if exact else "asymmetric",
               nearest_mode="round_prefer_ceil" if exact else "floor")
    if scales is not None:  # torch reads the source at dst / scale (not at dst * in / out)
        return call(bound, input, None, _resize_scales(input.array.shape[2:], out_sizes, scales))
    return call(bound, input, None, None, np.asarray(out_sizes, np.int64))


def _resize_scales(in_sizes, out_sizes, scales):
    """float32 scales whose floored products with the input sizes are torch's output sizes (for Resize)."""
    result = []
    for n, o, s in zip(in_sizes, out_sizes, scales):
        s32 = np.float32(s)
        while math.floor(n * float(s32)) < o:
            s32 = np.nextafter(s32, np.float32(np.inf))
        while math.floor(n * float(s32)) > o:
            s32 = np.nextafter(s32, np.float32(0))
        result.append(s32)
    return np.asarray(result, np.float32)


def _resize(input, out_sizes, scales, mode, align_corners):
    """Linear / cubic interpolation of a float tensor with the engine's Resize."""
    x = input.array
    nd = x.ndim - 2
    attrs = {"axes": tuple(range(2, 2 + nd)), "mode": "cubic" if mode == "bicubic" else "linear",
             "coordinate_transformation_mode": "align_corners" if align_corners else "half_pixel"}
    bound = op("Resize", **attrs)
    if scales is not None and not align_corners:  # torch interpolates at 1 / scale_factor, not at in / out
        return call(bound, input, None, _resize_scales(x.shape[2:], out_sizes, scales))
    return call(bound, input, None, None, np.asarray(out_sizes, np.int64))


def _matrices(x, out_sizes, scales, mode, align_corners, antialias):
    """torch's separable weight matrices ``(rows (oh, h), columns (ow, w))`` of a 4-D resize."""
    (h, w), (oh, ow) = x.shape[2:], out_sizes
    sh, sw = (None, None) if scales is None else scales
    if mode == "bicubic" and not antialias:
        return _filters.cubic_matrix(h, oh, sh, align_corners), _filters.cubic_matrix(w, ow, sw, align_corners)
    cubic = mode == "bicubic"
    return (_filters.separable_matrix(h, oh, sh, align_corners, cubic, antialias),
            _filters.separable_matrix(w, ow, sw, align_corners, cubic, antialias))


def _antialiased(input, out_sizes, scales, mode, align_corners):
    """Antialiased resizing of a float ``(N, C, H, W)``: one weight-matrix product per dim."""
    rows, cols = _matrices(input.array, out_sizes, scales, mode, align_corners, True)
    dtype = input.array.dtype
    return call(op("MatMul"), rows.astype(dtype), call(op("MatMul"), input, cols.T.astype(dtype)))


def _uint8_resize(input, out_sizes, scales, mode, align_corners, antialias):
    """torch's uint8 resizing: int16 fixed-point weights, width then height, each pass rounded and clamped.

    The products are integers below 2**53, so float64 matrix products compute them exactly.
    """
    rows, cols = _matrices(input.array, out_sizes, scales, mode, align_corners, antialias)
    y = cast(input, np.float64)
    for matrix, last in ((cols, True), (rows, False)):
        weights, bits = _filters.fixed_point(matrix)
        y = call(op("MatMul"), y, weights.T) if last else call(op("MatMul"), weights, y)
        shifted = call(op("Mul"), call(op("Add"), y, np.float64(1 << bits >> 1)), np.float64(1.0 / (1 << bits)))
        y = call(op("Clip"), call(op("Floor"), shifted), np.float64(0), np.float64(255))
    return cast(y, np.uint8)


def _linear_modes(input, out_sizes, scales, mode, align_corners, antialias):
    x = input.array
    if x.dtype == np.uint8 and mode in ("bilinear", "bicubic"):
        return _uint8_resize(input, out_sizes, scales, mode, align_corners, antialias)
    if antialias:
        if x.dtype not in (np.float32, np.float64):
            raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for '{type_name(x.dtype)}'")
        return _antialiased(input, out_sizes, scales, mode, align_corners)
    if x.dtype not in FLOATS:
        raise NotImplementedError(f"\"compute_indices_weights_{'cubic' if mode == 'bicubic' else 'linear'}\" not "
                                  f"implemented for '{type_name(x.dtype)}'")
    return _resize(input, out_sizes, scales, mode, align_corners)


@names_grad_fn(interpolate_name)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of ``input`` ``(N, C, *spatial)``.

    Parameters
    ----------
    input : Tensor
        3-D, 4-D or 5-D.
    size : int or sequence of int, optional
        Output spatial size.
    scale_factor : float or sequence of float, optional
        Multiplier of the spatial size (exactly one of ``size`` and ``scale_factor``).
    mode : str
        'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear' / 'bicubic' (4-D), 'trilinear' (5-D) or 'area'.
    align_corners : bool, optional
        Linear and cubic modes: align the centers of the corner pixels (default False).
    recompute_scale_factor : bool, optional
        Interpolate at ``in / out`` of the computed size instead of at ``1 / scale_factor``.
    antialias : bool
        Low-pass filter when downsampling (bilinear and bicubic, 4-D).

    Returns
    -------
    Tensor
        ``(N, C, *size)``.
    """
    tensor_arg(input, "interpolate")
    x = input.array
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = x.ndim - 2
    out_sizes, scales = _size_args(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out_sizes is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out_sizes = [math.floor(n * s) for n, s in zip(x.shape[2:], scales)]
        scales = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if x.ndim not in (3, 4, 5) or (mode not in _NEAREST_MODES and mode != "area" and mode not in _LINEAR_MODES):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for the "
                                  f"modes: {_MODE_LIST} (got {mode})")
    if mode in _LINEAR_MODES and _LINEAR_MODES[mode] != dim:
        wanted = {1: "3D", 2: "4D", 3: "5D"}[_LINEAR_MODES[mode]]
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {wanted} input")
    if out_sizes is None:
        out_sizes = [math.floor(n * s) for n, s in zip(x.shape[2:], scales)]
    _check_sizes(x.shape[2:], out_sizes)
    if mode == "area":
        return keep_layout(input, adaptive_avg_pool(input, out_sizes, dim, f"adaptive_avg_pool{dim}d"))
    if mode in _NEAREST_MODES:
        return keep_layout(input, _nearest(input, out_sizes, scales, mode == "nearest-exact"))
    return keep_layout(input, _linear_modes(input, out_sizes, scales, mode, align_corners, antialias))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (warns)."""
    warn_for_user("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')`` (warns)."""
    warn_for_user("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)`` (warns)."""
    warn_for_user("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
