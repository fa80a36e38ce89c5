"""Numeric utilities over tensors: dist, cov, corrcoef, trapezoid rules, renorm, pairwise_distance and
cosine_similarity.

All are compositions of engine ops (so they are differentiable); the vector norms come
from ``_linalg_norms.norm_along``.
"""

import math

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._dispatch import cast, finish, inplace, promoted, result_dtype, type_name
from vfw.frontends.torch._dtype import default_float_np
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._linalg_norms import norm_along
from vfw.frontends.torch._pointwise import _op, tensor_arg

__all__ = ["dist", "cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid", "renorm", "pairwise_distance",
           "cosine_similarity"]


def _is_float(d):
    return d.kind == "f" or d.name == "bfloat16"


def _c(value, d):
    return np.asarray(value, d)


def _axes(*dims):
    return np.asarray(dims, np.int64)


def _dim(dim, ndim):
    """``dim`` checked against a tensor of rank ``ndim`` (torch's IndexError), made non-negative."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return int(dim) % n


def _number(value, name, arg):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name}(): argument '{arg}' must be Number, not {type(value).__name__}")
    return float(value)


def _float_pair(name, x1, x2, arg1="input", arg2="other", complex_ok=False):
    """Two tensors promoted to a common floating (or, with ``complex_ok``, complex) dtype (integer dtypes refused,
    as torch's norms)."""
    tensor_arg(x1, name, arg1)
    tensor_arg(x2, name, arg2, 2)
    (a, b), d = promoted(x1, x2)
    if not (_is_float(d) or complex_ok and np.dtype(d).kind == "c"):
        raise RuntimeError(f"{name}: expected common dtype to be floating point, yet common dtype is {type_name(d)}")
    return a, b, d


# -- distances --------------------------------------------------------------------------------------
@names_grad_fn("DistBackward0")
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` over all elements (broadcast; that of the magnitudes when complex)."""
    a, b, d = _float_pair("dist", input, other, complex_ok=True)
    p = _number(p, "dist", "p")
    diff = run(_op("Sub"), a, b)
    return norm_along(diff, p, tuple(range(diff.array.ndim)), False, "dist")


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim (broadcast)."""
    tensor_arg(x1, "pairwise_distance", "x1")
    tensor_arg(x2, "pairwise_distance", "x2", 2)
    d = result_dtype(x1, x2)
    (a, b), d = promoted(x1, x2, np_dtype=d if _is_float(d) else default_float_np())  # integers are accepted
    p = _number(p, "pairwise_distance", "p")
    diff = run(_op("Add"), run(_op("Sub"), a, b), _c(eps, d))
    ndim = diff.array.ndim
    return norm_along(diff, p, (ndim - 1,) if ndim else (), keepdim, "pairwise_distance")


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 * x2) / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim`` (broadcast)."""
    a, b, d = _float_pair("cosine_similarity", x1, x2, "x1", "x2")
    try:
        shape = np.broadcast_shapes(a.array.shape, b.array.shape)
    except ValueError:
        raise RuntimeError(f"cosine_similarity: the size of tensor a ({list(a.array.shape)}) must match the size of "
                           f"tensor b ({list(b.array.shape)}) at a non-singleton dimension") from None
    axes = (_dim(dim, len(shape)),) if shape else ()
    # The norms are taken after broadcasting, as torch's.
    target = _axes(*shape)

    def unit(x):
        if x.array.shape != shape:
            x = run(_op("Expand"), x, target)
        return run(_op("Div"), x, run(_op("Max"), norm_along(x, 2.0, axes, True), _c(eps, d)))

    product = run(_op("Mul"), unit(a), unit(b))
    return run(_op("ReduceSum", keepdims=0), product, _axes(*axes))


# -- covariance ----------------------------------------------------------------------------------------
def _weights(w, name, n, integral):
    tensor_arg(w, "cov", name)
    d = w.array.dtype
    if w.array.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w.array.ndim} dimensions")
    if w.array.size != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w.array.size} != {n}")
    if integral and d.kind not in "iu":
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with {type_name(d)} "
                           "dtype")
    if not integral and not _is_float(d):
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{type_name(d)} dtype")
    if np.any(w.array < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables (rows) of ``input`` over its observations (columns)."""
    x = tensor_arg(input, "cov")
    if x.array.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if x.array.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{x.array.ndim} dimensions")
    if isinstance(correction, bool) or not isinstance(correction, (int, np.integer)):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    vector = x.array.ndim < 2
    if vector:
        x = run(_op("Reshape"), x, _axes(1, -1))
    n = x.array.shape[1]
    d = result_dtype(x, aweights)
    d = d if _is_float(d) else default_float_np()
    x = cast(x, d)
    w = None
    if fweights is not None:
        w = cast(_weights(fweights, "fweights", n, True), d)
    if aweights is not None:
        aw = cast(_weights(aweights, "aweights", n, False), d)
        w = aw if w is None else run(_op("Mul"), w, aw)
    last = _axes(1)
    if w is None:
        w_sum = _c(n, d)
        mean = run(_op("ReduceMean", keepdims=1), x, last) if n else run(_op("ReduceSum", keepdims=1), x, last)
    else:
        w_sum = run(_op("ReduceSum", keepdims=0), w, _axes(0))
        mean = run(_op("Div"), run(_op("ReduceSum", keepdims=1), run(_op("Mul"), x, w), last), w_sum)
    if n == 0:  # torch: 0/0 means over no observations
        mean = run(_op("Mul"), mean, _c(math.nan, d))
    # Degrees of freedom: w_sum - correction (* sum(w * aw) / w_sum with analytic weights).
    if w is None or aweights is None or correction == 0:
        factor = run(_op("Sub"), w_sum, _c(correction, d))
    else:
        spread = run(_op("ReduceSum", keepdims=0), run(_op("Mul"), w, aw), _axes(0))
        factor = run(_op("Sub"), w_sum, run(_op("Div"), run(_op("Mul"), spread, _c(correction, d)), w_sum))
    if np.asarray(factor.array if isinstance(factor, CoreTensor) else factor) <= 0:
        warn_for_user("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning)
        factor = _c(0, d)
    centered = run(_op("Sub"), x, mean)
    weighted = centered if w is None else run(_op("Mul"), centered, w)
    result = run(_op("Div"), run(_op("MatMul"), weighted, run(_op("Transpose", perm=(1, 0)), centered)), factor)
    return run(_op("Reshape"), result, _axes()) if vector or result.array.shape == (1, 1) else result


def corrcoef(input):
    """The Pearson correlation coefficients of the variables (rows) of ``input``, clipped to [-1, 1]."""
    c = cov(input)
    d = c.array.dtype
    if c.array.ndim == 0:  # a single variable: c / c (1, or NaN for no spread)
        return run(_op("Div"), c, c)
    n = c.array.shape[0]
    diag = run(_op("GatherElements", axis=0), c, np.arange(n, dtype=np.int64).reshape(1, n))
    std = run(_op("Sqrt"), diag)
    c = run(_op("Div"), run(_op("Div"), c, run(_op("Transpose", perm=(1, 0)), std)), std)
    return run(_op("Clip"), c, _c(-1, d), _c(1, d))


# -- trapezoid rules -----------------------------------------------------------------------------------
def _slice(x, start, end, axis):
    return run(_op("Slice"), x, _axes(start), _axes(end), _axes(axis))


def _spacing(name, y, x, dim):
    """``(y, gaps)``: y in its float dtype and the sample spacing along ``dim`` (a tensor, broadcastable)."""
    d = result_dtype(y, x)
    d = d if _is_float(d) else default_float_np()
    (y, x), _ = promoted(y, x, np_dtype=d)
    if x.array.ndim == 1:
        if x.array.shape[0] != y.array.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        gaps = run(_op("Sub"), _slice(x, 1, x.array.shape[0], 0), _slice(x, 0, -1, 0))
        view = [1] * y.array.ndim
        view[dim] = -1
        return y, run(_op("Reshape"), gaps, _axes(*view))
    xdim = dim - y.array.ndim + x.array.ndim
    if xdim < 0:
        raise RuntimeError(f"{name}: x must have the same number of dimensions as y (or be 1-D)")
    length = x.array.shape[xdim]
    return y, run(_op("Sub"), _slice(x, 1, length, xdim), _slice(x, 0, max(length - 1, 0), xdim))


def _pieces(name, y, x, dx, dim):
    """The areas of the trapezoids along ``dim``: ``(y[i] + y[i+1]) / 2 * gap_i``."""
    tensor_arg(y, name, "y")
    dim = _dim(dim, y.array.ndim)
    if y.array.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if x is not None:
        tensor_arg(x, name, "x", 2)
        y, gaps = _spacing(name, y, x, dim)
    else:
        dx = 1.0 if dx is None else dx
        _number(dx, name, "dx")
        d = result_dtype(y, dx)
        d = d if _is_float(d) else default_float_np()
        y = cast(y, d)
        gaps = _c(dx, d)
    n = y.array.shape[dim]
    d = y.array.dtype
    pairs = run(_op("Add"), _slice(y, 1, max(n, 1), dim), _slice(y, 0, max(n - 1, 0), dim))
    return run(_op("Mul"), run(_op("Mul"), pairs, gaps), _c(0.5, d)), dim


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid-rule integral of ``y`` along ``dim``, with sample points ``x`` or spacing ``dx``."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx cannot both be given")
    pieces, dim = _pieces("trapezoid", y, x, dx, dim)
    return run(_op("ReduceSum", keepdims=0), pieces, _axes(dim))


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid-rule integral of ``y`` along ``dim`` (one element shorter along it)."""
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments: x and dx cannot both "
                        "be given")
    pieces, dim = _pieces("cumulative_trapezoid", y, x, dx, dim)
    if pieces.array.size == 0:
        return pieces
    return run(_op("CumSum"), pieces, _axes(dim))


# -- renorm ------------------------------------------------------------------------------------------------
def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` scaled to norm ``maxnorm``."""
    x = tensor_arg(input, "renorm")
    p = _number(p, "renorm", "p")
    maxnorm = _number(maxnorm, "renorm", "maxnorm")
    ndim = x.array.ndim
    if ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    dim = _dim(dim, ndim)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = x.array.dtype
    if not _is_float(d):
        raise RuntimeError(f"renorm: Expected a floating point tensor as input. Got {type_name(d)}")
    norms = norm_along(x, p, tuple(i for i in range(ndim) if i != dim), True, "renorm")
    limit = _c(maxnorm, d)
    scale = run(_op("Div"), limit, run(_op("Add"), norms, _c(1e-7, d)))
    factor = run(_op("Where"), run(_op("Greater"), norms, limit), scale, _c(1, d))
    return finish(run(_op("Mul"), x, factor), out, "renorm")


def _renorm_inplace(self, p, dim, maxnorm):
    return inplace(renorm, self, p, dim, maxnorm, name="renorm_")


TENSOR_METHODS = {"dist": dist, "cov": cov, "corrcoef": corrcoef, "renorm": renorm, "renorm_": _renorm_inplace}
