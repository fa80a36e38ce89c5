"""``torch.gradient``: finite-difference estimates of a sampled function's partial derivatives.

Second-order central differences in the interior, first- or second-order one-sided differences at the edges, for
uniform spacing (a number per dim) or sample coordinates (a 1-D tensor per dim). Composed of differentiable
vfw.torch functions (slices, products, ``cat``), so the result carries autograd history.
"""

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends.torch import _dtype
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["gradient"]


def _dims(dim, ndim):
    """The dims to differentiate along (all when None), non-negative, each once."""
    if dim is None:
        return list(range(ndim))
    dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    checked = []
    for d in dims:
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        d = int(d) % ndim
        if d in checked:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        checked.append(d)
    return checked


def _spacings(spacing, dims, dim_given, ndim):
    """One spacing (a Python number or a 1-D coordinate tensor) per dim in ``dims``."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, (int, float, np.number)) and not isinstance(spacing, bool):
        return [float(spacing)] * len(dims)
    if isinstance(spacing, torch.Tensor):
        raise TypeError("gradient(): argument 'spacing' must be a number or a tuple of numbers or of Tensors, "
                        "not Tensor")
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {ndim}', since dim argument was not given, but got a list of length "
                           f"{len(spacing)}")
    for s in spacing:
        if isinstance(s, torch.Tensor) and s.dim() != 1:
            raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {s.dim()} dimensions!")
    return [s if isinstance(s, torch.Tensor) else float(s) for s in spacing]


def _along(t, dim, start, stop):
    """``t`` sliced to ``[start, stop)`` along ``dim`` (a view)."""
    return t.narrow(dim, start, stop - start)


def _shaped(steps, dim, ndim):
    """A 1-D tensor of steps reshaped to broadcast along ``dim`` of a rank-``ndim`` tensor."""
    shape = [1] * ndim
    shape[dim] = -1
    return steps.reshape(shape)


def _one_dim(f, h, dim, edge_order):
    """The derivative estimate of ``f`` along ``dim`` for spacing ``h`` (a number or coordinates)."""
    n, ndim = f.shape[dim], f.dim()
    if isinstance(h, torch.Tensor):
        if h.shape[0] != n:
            raise RuntimeError(f"torch.gradient expected each tensor in spacing to have as many elements as "
                               f"input.size({dim}) = {n}, but got {h.shape[0]}")
        steps = h[1:] - h[:-1]
        left, right = _shaped(steps[:-1], dim, ndim), _shaped(steps[1:], dim, ndim)
    else:
        left = right = h
    f_prev, f_mid, f_next = _along(f, dim, 0, n - 2), _along(f, dim, 1, n - 1), _along(f, dim, 2, n)
    # Three-point central weights for unequal neighbours hl (behind) and hr (ahead).
    interior = (f_next * (left * left) - f_prev * (right * right) + f_mid * (right * right - left * left)) \
        / (left * right * (left + right))
    def at(i):
        return _along(f, dim, i, i + 1)

    h_at = (lambda i: _along(_shaped(steps, dim, ndim), dim, i, i + 1)) if isinstance(h, torch.Tensor) \
        else (lambda i: h)
    if edge_order == 1:
        head = (at(1) - at(0)) / h_at(0)
        tail = (at(n - 1) - at(n - 2)) / h_at(n - 2)
    else:
        h1, h2 = h_at(0), h_at(1)
        head = at(0) * (-(2 * h1 + h2) / (h1 * (h1 + h2))) + at(1) * ((h1 + h2) / (h1 * h2)) \
            + at(2) * (-h1 / (h2 * (h1 + h2)))
        h1, h2 = h_at(n - 3), h_at(n - 2)
        tail = at(n - 3) * (h2 / (h1 * (h1 + h2))) + at(n - 2) * (-(h1 + h2) / (h1 * h2)) \
            + at(n - 1) * ((2 * h2 + h1) / (h2 * (h1 + h2)))
    return torch.cat([head, interior, tail], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the derivatives of the function sampled by ``input`` along each of ``dim`` (torch.gradient).

    Parameters
    ----------
    input : Tensor
        Samples of a function on a grid (rank >= 1; integer inputs give default-float results).
    spacing : number, sequence of numbers, or sequence of 1-D Tensors
        The sample distance along every dim (a number), along each dim, or the sample coordinates along each dim.
    dim : int or sequence of int, optional
        The dims to differentiate along (all when None).
    edge_order : int
        1 or 2: the order of the one-sided differences at the edges.

    Returns
    -------
    tuple of Tensor
        One tensor shaped like ``input`` per dim.
    """
    tensor_arg(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if input.dim() == 0:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    dims = _dims(dim, input.dim())
    spacings = _spacings(spacing, dims, dim is not None, input.dim())
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if input.dtype == torch.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    results = []
    for d, h in zip(dims, spacings):
        common = torch.promote_types(input.dtype, h.dtype) if isinstance(h, torch.Tensor) else input.dtype
        if not (common.is_floating_point or common.is_complex):
            common = _dtype.get_default_dtype()
        f = input.to(common)
        results.append(_one_dim(f, h.to(common) if isinstance(h, torch.Tensor) else h, d, edge_order))
    return tuple(results)
