"""Vector products, norms and distances: kron, cross, cdist, multi_dot, vecdot and the ``torch.linalg`` norms.

The norms keep torch's conventions: ``vector_norm`` takes any real order (``inf``,
``-inf`` and 0 included) over a dim or a tuple of dims, with zero subgradients where
the norm is not differentiable (a zero vector); ``matrix_norm`` takes 'fro', 'nuc',
+-1, +-2 and +-inf, the spectral and nuclear ones from the singular values.
"""

import math

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _dispatch, _dtype, _layout
from vfw.frontends.torch._dispatch import call, cast, finish, op, type_name, wrap
from vfw.frontends.torch._linalg import (
    _BOOL,
    _FLOATS,
    _c_name,
    _mul,
    _product,
    _recording,
    not_implemented,
    run,
    tensor_arg,
)
from vfw.frontends.torch._linalg_decomp import _HALF, svdvals

__all__ = ["kron", "cross", "cdist", "chain_matmul"]


def _axes(dims):
    return np.asarray(dims, np.int64)


def kron(input, other, *, out=None):
    """Kronecker product: ``result[i*p + k, j*q + l] = input[i, j] * other[k, l]`` for any ranks."""
    tensor_arg(input, "kron")
    tensor_arg(other, "kron", "other", 2)
    n = max(input.array.ndim, other.array.ndim)
    sa = (1,) * (n - input.array.ndim) + input.array.shape
    sb = (1,) * (n - other.array.ndim) + other.array.shape
    spread_a = [d for s in sa for d in (s, 1)]
    spread_b = [d for s in sb for d in (1, s)]
    shape = [x * y for x, y in zip(sa, sb)]
    a, b = input.array, other.array
    if a.dtype == b.dtype and not _recording(input, other):  # the engine path's kernels, in numpy
        product = (np.logical_and if a.dtype == _BOOL else np.multiply)(a.reshape(spread_a), b.reshape(spread_b))
        return finish(wrap(product.reshape(shape)), out, "kron")
    reshape = op("Reshape")
    left = run(reshape, input, np.asarray(spread_a, np.int64))
    right = run(reshape, other, np.asarray(spread_b, np.int64))
    return finish(run(reshape, _mul(left, right), np.asarray(shape, np.int64)), out, "kron")


# -- cross, cdist, chain products --------------------------------------------------------------
_SUM = op("ReduceSum", keepdims=0)
_FAST = frozenset(np.dtype(d) for d in (np.float32, np.float64, np.int64, np.int32))
_CROSS_A = np.array([1, 2, 0], np.int64)
_CROSS_B = np.array([2, 0, 1], np.int64)


def cross_product(name, input, other, dim):
    """``input x other`` along ``dim`` (size 3), other dims broadcast."""
    tensor_arg(input, name)
    tensor_arg(other, name, "other", 2)
    a, b = input.array, other.array
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    n = max(a.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[dim]} and "
                           f"{b.shape[dim]}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found {type_name(b.dtype)}")
    if a.dtype == _BOOL:
        raise not_implemented("cross", a.dtype)
    if a.shape != b.shape:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise RuntimeError(f"linalg.cross: the shapes {list(a.shape)} and {list(b.shape)} cannot be broadcast "
                               "together") from None
    axis = dim % n
    if a.dtype in _FAST and not _recording(input, other):  # the kernels of the engine path below, in numpy
        first = np.multiply(np.take(a, _CROSS_A, axis), np.take(b, _CROSS_B, axis))
        return wrap(np.subtract(first, np.multiply(np.take(a, _CROSS_B, axis), np.take(b, _CROSS_A, axis))))
    gather = op("Gather", axis=axis)
    mul, sub = op("Mul"), op("Sub")
    first = run(mul, run(gather, input, _CROSS_A), run(gather, other, _CROSS_B))
    second = run(mul, run(gather, input, _CROSS_B), run(gather, other, _CROSS_A))
    return run(sub, first, second)


def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product along ``dim`` (size 3 in both inputs; other dims broadcast)."""
    return finish(cross_product("linalg.cross", input, other, dim), out, "linalg.cross")


def cross(input, other, dim=None, *, out=None):
    """Cross product along ``dim`` (default: the first dim of size 3)."""
    if dim is None:
        warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                  "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
                  "that of linalg.cross in a future release.", key="torch.cross")
        tensor_arg(input, "cross")
        tensor_arg(other, "cross", "other", 2)
        try:
            shape = np.broadcast_shapes(input.array.shape, other.array.shape)
        except ValueError:
            shape = input.array.shape
        sizes = [i for i, d in enumerate(shape) if d == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    return finish(cross_product("cross", input, other, dim), out, "cross")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M): shape (..., P, R)."""
    a, b = tensor_arg(x1, "cdist", "x1").array, tensor_arg(x2, "cdist", "x2", 2).array
    for x, which in ((a, "X1"), (b, "X2")):
        if x.dtype not in _FLOATS:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {which} got: {type_name(x.dtype)}")
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {which} got: {x.ndim}D")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found {type_name(b.dtype)}")
    if a.dtype not in (np.float32, np.float64):
        raise not_implemented("cdist", a.dtype)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    unsqueeze = op("Unsqueeze")
    diff = run(op("Sub"), run(unsqueeze, x1, _axes([-2])), run(unsqueeze, x2, _axes([-3])))
    last = (diff.array.ndim - 1,)
    if a.shape[-1] == 0:  # no coordinates: every distance is 0 (whatever p)
        return norm_along(diff, 1.0, last, False)
    distances = norm_along(diff, p, last, False)
    if p == 0 and diff.requires_grad:  # torch keeps p=0 distances in the graph, with a zero gradient
        distances = call(op("Where"), np.zeros((), bool), run(op("ReduceSum", keepdims=0), diff, _axes(last)),
                         distances)
    return distances


def multi_dot(tensors, *, out=None):
    """The product of several matrices (the first and last may be vectors), left to right."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        tensor_arg(t, "multi_dot", "tensors", 1)
        ndim = t.array.ndim
        if (i == 0 or i == len(tensors) - 1) and ndim not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {ndim}D")
        if 0 < i < len(tensors) - 1 and ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ndim}D")
        if t.array.dtype != tensors[0].array.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_c_name(tensors[0].array.dtype)} and tensor {i} {_c_name(t.array.dtype)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = _product(result, t, None, "multi_dot")
    return finish(result, out, "multi_dot")


def chain_matmul(*matrices, out=None):
    """Deprecated product of 2-D matrices (use ``torch.linalg.multi_dot``)."""
    warn_once("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning)
    for t in matrices:
        if tensor_arg(t, "chain_matmul", "matrices").array.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.array.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return finish(matrices[0].clone(), out, "chain_matmul")
    return multi_dot(list(matrices), out=out)


def vecdot(x, y, *, dim=-1, out=None):
    """Dot products of the vectors along ``dim`` (other dims broadcast); floating point only."""
    a, b = tensor_arg(x, "vecdot", "x").array, tensor_arg(y, "vecdot", "y", 2).array
    if a.dtype not in _FLOATS:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(a.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{type_name(a.dtype)} and y of type {type_name(b.dtype)} instead")
    try:
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a must match the size of tensor b: shapes {list(a.shape)} and "
                           f"{list(b.shape)}") from None
    n = max(len(shape), 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    product = run(op("Mul"), x, y)
    return finish(run(_SUM, product, np.asarray(dim, np.int64).reshape(1)), out, "vecdot")


# -- norms -------------------------------------------------------------------------------------
def _dims(x, dim, name):
    """``dim`` (None, an int or a sequence; None and ``()`` mean all dims) as a tuple of distinct dims."""
    ndim = x.array.ndim
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        return tuple(range(ndim))
    dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
    n = max(ndim, 1)
    out = []
    for d in dims:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not {type(d).__name__}")
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        d = int(d) % n
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out) if ndim else ()


def norm_along(x, ord, dims, keepdim, name="linalg.vector_norm"):  # noqa: A002  (torch's name)
    """The vector ``ord``-norm of ``x`` over ``dims`` (a tuple of distinct non-negative dims); a complex ``x``'s
    is that of its magnitudes (a real result)."""
    if x.array.dtype.kind == "c":
        x = run(op("ComplexAbs"), x)
    keep = int(bool(keepdim))
    axes = _axes(dims)
    dtype = x.array.dtype
    if ord == 2:
        return run(op("ReduceL2", keepdims=keep), x, axes)
    if ord == 1:
        return run(op("ReduceL1", keepdims=keep), x, axes)
    if math.isinf(ord):
        empty = [d for d in dims if x.array.shape[d] == 0]
        if empty:
            where = "an empty tensor" if len(dims) == x.array.ndim else f"the dimension {empty[0]}"
            raise RuntimeError(f"{name} cannot compute the {ord} norm on {where} because the operation does not "
                               "have an identity")
        return run(op("ReduceMax" if ord > 0 else "ReduceMin", keepdims=keep), run(op("Abs"), x), axes)
    zero = np.zeros((), dtype)
    if ord == 0:  # the number of non-zeros (no gradient)
        nonzero = run(op("Not"), run(op("Equal"), x, zero))
        return run(op("ReduceSum", keepdims=keep), cast(nonzero, dtype), axes)
    magnitude = run(op("Abs"), x)
    exponent = np.asarray(ord, dtype)
    if ord > 0:
        # |0|**p is 0 but its derivative is inf or NaN for p < 1: zeros stay out of Pow (gradient 0, as torch).
        nonzero = run(op("Not"), run(op("Equal"), magnitude, zero))
        safe = run(op("Where"), nonzero, magnitude, np.ones((), dtype))
        powered = run(op("Where"), nonzero, run(op("Pow"), safe, exponent), zero)
    else:
        powered = run(op("Pow"), magnitude, exponent)
    total = run(op("ReduceSum", keepdims=keep), powered, axes)
    return run(op("Pow"), total, np.asarray(1 / ord, dtype))


def _norm_input(x, dtype, name):
    """``x`` checked (floating point or complex) and converted to ``dtype`` when given (no narrowing)."""
    tensor_arg(x, name, "x" if name == "linalg.vector_norm" else "A")
    if x.array.dtype not in _FLOATS and x.array.dtype.kind != "c":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(x.array.dtype)}")
    if dtype is None:
        return x
    target = _dtype.to_np(dtype)
    if target not in _FLOATS and target.kind != "c":
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {type_name(target)}")
    if (x.array.dtype.kind == "c") != (target.kind == "c"):
        kind = "complex" if x.array.dtype.kind == "c" else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {type_name(target)}")
    if target.itemsize < x.array.dtype.itemsize or not _dispatch.can_cast(x.array.dtype, target):
        raise RuntimeError(f"{name}: the dtype of the input ({type_name(x.array.dtype)}) should be convertible "
                           f"without narrowing to the specified dtype ({type_name(target)})")
    return cast(x, target)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """The ``ord``-norm of the elements over ``dim`` (all of them when None), for any real ``ord``."""
    if ord == 2 and dim is None and dtype is None and out is None and isinstance(x, CoreTensor) and \
            x.array.dtype in _FLOATS and not _recording(x):
        return wrap(_L2[bool(keepdim)](x.array))  # the common case: all elements
    if isinstance(ord, bool) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    x = _norm_input(x, dtype, "linalg.vector_norm")
    dims = _dims(x, dim, "linalg.vector_norm")
    return finish(norm_along(x, float(ord), dims, keepdim), out, "linalg.vector_norm")


_L2 = {keep: op("ReduceL2", keepdims=int(keep)) for keep in (False, True)}  # without axes: over all dims
_LAST2 = np.array([-2, -1], np.int64)
_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _matrix_dims(A, dim, name):
    if isinstance(dim, (int, np.integer)) or len(dim) != 2:
        got = dim if isinstance(dim, (int, np.integer)) else " ".join(map(str, dim))
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {got}")
    d0, d1 = _dims(A, dim[0], name)[0], _dims(A, dim[1], name)[0]
    if d0 == d1:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _singular_norm(A, ord, d0, d1, keepdim):  # noqa: A002
    """The nuclear or +-2 norm over dims ``(d0, d1)``, from the singular values."""
    ndim = A.array.ndim
    perm = [d for d in range(ndim) if d not in (d0, d1)] + [d0, d1]
    moved = run(op("Transpose", perm=perm), A) if perm != list(range(ndim)) else A
    s = svdvals(moved)
    if s.array.shape[-1] == 0:  # only -2 gets here (the other orders of empty matrices are 0)
        raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
    reduce = "ReduceSum" if ord == "nuc" else "ReduceMax" if ord == 2 else "ReduceMin"
    result = run(op(reduce, keepdims=0), s, _axes([-1]))
    if keepdim:
        result = run(op("Unsqueeze"), result, _axes(sorted((d0, d1))))
    return result


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """Matrix norm over the two dims ``dim``: 'fro', 'nuc', 1, -1, 2, -2, inf or -inf."""
    name = "linalg.matrix_norm"
    if ord == "fro" and dim == (-2, -1) and dtype is None and out is None and isinstance(A, CoreTensor) and \
            A.array.dtype in _FLOATS and A.array.ndim >= 2 and not _recording(A):
        return wrap(_L2[bool(keepdim)](A.array, _LAST2))  # the common case
    A = _norm_input(A, dtype, name)
    if A.array.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _matrix_dims(A, dim, name)
    if isinstance(ord, bool) or ord not in _MATRIX_ORDS:
        raise RuntimeError(f"{name}: Order {ord} not supported.")
    if ord == "fro":
        return finish(norm_along(A, 2.0, (d0, d1), keepdim), out, name)
    negative = ord not in ("nuc",) and ord < 0
    if A.array.size == 0 and not negative:  # as torch: the norms of empty matrices are 0
        shape = [1 if d in (d0, d1) else n for d, n in enumerate(A.array.shape) if keepdim or d not in (d0, d1)]
        return finish(wrap(np.zeros(shape, A.array.dtype)), out, name)
    if ord in ("nuc", 2, -2):
        if A.array.dtype in _HALF:
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {type_name(A.array.dtype)}")
        return finish(_singular_norm(A, ord, d0, d1, keepdim), out, name)
    # 1-norms sum over rows (d0) and take the extreme over columns (d1); inf-norms the other way round.
    inner, outer = (d0, d1) if abs(ord) == 1 else (d1, d0)
    if negative and A.array.shape[outer] == 0:
        raise IndexError(f"amin(): Expected reduction dim {outer} to have non-zero size.")
    magnitude = run(op("ComplexAbs" if A.array.dtype.kind == "c" else "Abs"), A)
    sums = run(op("ReduceSum", keepdims=1), magnitude, _axes([inner]))
    result = run(op("ReduceMax" if ord > 0 else "ReduceMin", keepdims=1), sums, _axes([outer]))
    if not keepdim:
        result = run(op("Squeeze"), result, _axes([d0, d1]))
    return finish(result, out, name)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):  # noqa: A002
    """Vector or matrix norm: a vector norm over one dim (or all, for ``ord=None``), a matrix norm over two."""
    name = "linalg.norm"
    tensor_arg(A, name, "A")
    if dim is not None:
        dims = [dim] if isinstance(dim, (int, np.integer)) else list(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"{name}: If dim is specified, it must be of length 1 or 2. Got {dims}")
    elif ord is not None:
        if A.array.ndim not in (1, 2):
            raise RuntimeError(f"{name}: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                               f"{A.array.ndim}D.")
        dims = list(range(A.array.ndim))
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if isinstance(ord, str) or len(dims) == 2:
        return matrix_norm(A, ord, tuple(dims) if len(dims) == 2 else dims[0], keepdim, dtype=dtype, out=out)
    return vector_norm(A, ord, dims, keepdim, dtype=dtype, out=out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The ``offset`` diagonal of the matrices in dims ``(dim1, dim2)`` (a view, as ``torch.diagonal``)."""
    return _layout.diagonal(A, offset, dim1, dim2)


TENSOR_METHODS = {"kron": kron, "cross": cross}
