"""Statistics over dimensions: std, var, std_mean, var_mean, logsumexp and the legacy vector ``norm``.

Computed with engine ops (two-pass variance; halves in float32), so gradients are torch's,
including its zero subgradients: std of constant input, the norm at zero.  Without
recording, float32/float64 variance takes a numpy path doing the same steps.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch, _dtype, _half_steps
from vfw.frontends.torch._dispatch import call, cast, finish, type_name
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._reduction import (
    FAST_FLOATS,
    axes_array,
    bound,
    check_nonempty,
    dim_aliases,
    idle,
    new_tensor,
    np_dtype_arg,
    reduce_over,
    reduced_dims,
    tensor_arg,
)

__all__ = ["std", "var", "std_mean", "var_mean", "logsumexp", "norm"]

_F32 = np.dtype(np.float32)
_FLOATS = dt.FLOATS
_HALF = frozenset({dt.float16, dt.bfloat16})


# -- variance and standard deviation -----------------------------------------------------
def _correction(name, dim, unbiased, correction):
    """``(dim, correction)`` from torch's overloads: ``var(x, unbiased)``, ``var(x, dim, unbiased)``, ``correction``."""
    if isinstance(dim, (bool, np.bool_)):  # var(x, True): the old unbiased-only overload
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, bool, bool)")
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got both 'unbiased' and "
                            "'correction'")
        return dim, 1 if unbiased else 0
    return dim, 1 if correction is None else correction


def _moments(input, dim, unbiased, keepdim, correction, name, want_std):
    """``(std or var, mean)`` over ``dim`` computed in two passes (halves in float32)."""
    x = tensor_arg(input, name)
    dim, correction = _correction(name, dim, unbiased, correction)
    dtype = x.array.dtype
    is_complex = dtype.kind == "c"
    if dtype not in _FLOATS and not is_complex:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    # a complex input's variance is that of the distances |z - mean| (real), with a complex mean
    result_dtype = x.array.real.dtype if is_complex else dtype
    work = cast(x, _F32) if dtype in _HALF else x
    dims = reduced_dims(work, dim, name) if work.array.ndim else ()
    n = math.prod(work.array.shape[d] for d in dims)
    if n - correction <= 0:
        warn_for_user(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning)
    dof = np.asarray(max(n - correction, 0), work.array.real.dtype if is_complex else work.array.dtype)
    if dtype in FAST_FLOATS and idle(work):
        return _numpy_moments(work.array, dims, dof, keepdim, want_std)
    axes = axes_array(dims) if dims else None
    keep_mean = call(bound("ReduceMean", keepdims=1), work, axes)
    centered = call(bound("Sub"), work, keep_mean)
    if is_complex:
        centered = call(bound("ComplexAbs"), centered)
    keep = 1 if keepdim else 0
    if want_std and dof:  # ReduceL2's gradient at a zero norm is 0, torch's std gradient for constant input
        result = call(bound("Div"), call(bound("ReduceL2", keepdims=keep), centered, axes), np.asarray(np.sqrt(dof)))
    else:  # (with no degrees of freedom left std is NaN or inf, and so is its gradient)
        result = call(bound("Div"), call(bound("ReduceSumSquare", keepdims=keep), centered, axes), dof)
        if want_std:
            result = call(bound("Sqrt"), result)
    mean_out = keep_mean if keepdim or not dims else call(bound("Squeeze"), keep_mean, axes)
    return cast(result, result_dtype), cast(mean_out, dtype)


def _numpy_moments(a, dims, dof, keepdim, want_std):
    """``_moments`` for float32/float64 arrays without recording: the engine kernels' numpy steps."""
    axis = dims or None
    keep_mean = np.true_divide(np.add.reduce(a, axis=axis, dtype=a.dtype, keepdims=True),
                               math.prod(a.shape[d] for d in dims), dtype=a.dtype)
    squares = np.add.reduce(np.square(a - keep_mean), axis=axis, dtype=a.dtype, keepdims=bool(keepdim))
    if want_std and dof:
        result = np.divide(np.sqrt(squares), np.sqrt(dof))
    else:
        result = np.divide(squares, dof)
        if want_std:
            result = np.sqrt(result)
    mean_out = keep_mean if keepdim or not dims else keep_mean.reshape(np.shape(result))
    return new_tensor(result), new_tensor(mean_out)


@names_grad_fn("VarBackward0")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None, **aliases):
    """Variance over ``dim`` with ``correction`` (1: Bessel's; ``unbiased=False`` is 0)."""
    if aliases:
        dim, keepdim = dim_aliases("var", aliases, dim, keepdim)
    return finish(_moments(input, dim, unbiased, keepdim, correction, "var", False)[0], out, "var")


@names_grad_fn("StdBackward0")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None, **aliases):
    """Standard deviation over ``dim`` with ``correction`` (see ``var``)."""
    if aliases:
        dim, keepdim = dim_aliases("std", aliases, dim, keepdim)
    return finish(_moments(input, dim, unbiased, keepdim, correction, "std", True)[0], out, "std")


@names_grad_fn("VarMeanBackward0")
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
    """``(var, mean)`` over ``dim``."""
    if aliases:
        dim, keepdim = dim_aliases("var_mean", aliases, dim, keepdim)
    return _moments(input, dim, unbiased, keepdim, correction, "var_mean", False)


@names_grad_fn("StdMeanBackward0")
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None, **aliases):
    """``(std, mean)`` over ``dim``."""
    if aliases:
        dim, keepdim = dim_aliases("std_mean", aliases, dim, keepdim)
    return _moments(input, dim, unbiased, keepdim, correction, "std_mean", True)


# -- logsumexp and norms -----------------------------------------------------------------
@names_grad_fn("LogsumexpBackward0")
def logsumexp(input, dim=None, keepdim=False, *, out=None, **aliases):
    """``log(sum(exp(x)))`` over ``dim``, computed stably; integer inputs give the default float dtype."""
    if aliases:
        dim, keepdim = dim_aliases("logsumexp", aliases, dim, keepdim)
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    x = tensor_arg(input, "logsumexp")
    if x.array.dtype not in _FLOATS:
        x = cast(x, _dtype.default_float_np())
    if out is not None and isinstance(out, CoreTensor) and out.array.dtype not in _FLOATS:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: "
                           f"{type_name(out.array.dtype)}")
    if x.array.ndim and _half_steps.applies(x):  # torch rounds each step to half
        dims = reduced_dims(x, dim, "logsumexp")
        return finish(_half_steps.logsumexp(x, dims, keepdim), out, "logsumexp")
    return finish(reduce_over("ReduceLogSumExp", x, dim, keepdim, "logsumexp"), out, "logsumexp")


def _vector_norm(x, p, dim, keepdim, name):
    """The ``p``-norm of ``x`` over ``dim`` (all elements when None), with torch's zero subgradients (a complex
    ``x``'s is that of its magnitudes)."""
    if x.array.dtype.kind == "c":
        x = call(bound("ComplexAbs"), x)
    if p == 2:
        return reduce_over("ReduceL2", x, dim, keepdim, name)
    if p == 1:
        return reduce_over("ReduceL1", x, dim, keepdim, name)
    dims = reduced_dims(x, dim, name)
    if math.isinf(p):
        if not x.array.size and len(dims) == x.array.ndim:
            raise RuntimeError(f"{name} cannot compute the {p} norm on an empty tensor because the operation does "
                               "not have an identity")
        check_nonempty(x, dims, name)
        return reduce_over("ReduceMax" if p > 0 else "ReduceMin", call(bound("Abs"), x), dim, keepdim, name)
    dtype = x.array.dtype
    if p == 0:  # the number of non-zeros (zero gradient)
        return reduce_over("ReduceSum", cast(call(bound("Not"), call(bound("Equal"), x, np.zeros((), dtype))), dtype),
                       dim, keepdim, name)
    a = call(bound("Abs"), x)
    if p > 0:
        # |0|**p is 0, but its derivative p |0|**(p-1) is inf or NaN for p < 1 or at a zero norm: keep the
        # zeros out of Pow (torch's gradient there is 0).
        nonzero = call(bound("Not"), call(bound("Equal"), a, np.zeros((), dtype)))
        safe = call(bound("Where"), nonzero, a, np.ones((), dtype))
        powered = call(bound("Where"), nonzero, call(bound("Pow"), safe, np.asarray(p, dtype)), np.zeros((), dtype))
    else:
        powered = call(bound("Pow"), a, np.asarray(p, dtype))
    return call(bound("Pow"), reduce_over("ReduceSum", powered, dim, keepdim, name), np.asarray(1 / p, dtype))


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The legacy ``torch.norm``: a vector ``p``-norm (``'fro'`` is 2) over ``dim`` or all elements.

    ``p`` may be a number (``inf``, ``-inf`` and 0 included), ``'fro'`` or ``'nuc'`` (the nuclear
    norm of the matrices over the two dims ``dim``, by ``torch.linalg.matrix_norm``).
    """
    x = tensor_arg(input, "norm")
    target = np_dtype_arg(dtype, "norm")
    if target is not None:
        if target not in _FLOATS:
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{type_name(target)}")
        if not _dispatch.can_cast(x.array.dtype, target) or np.dtype(target).itemsize < x.array.dtype.itemsize:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({type_name(x.array.dtype)}) should be "
                               f"convertible without narrowing to the specified dtype ({type_name(target)})")
        x = cast(x, target)
    if x.array.dtype not in _FLOATS and x.array.dtype.kind != "c":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(x.array.dtype)}")
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        dims = tuple(range(x.array.ndim)) if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        if p == "nuc" or (dim is not None and len(dims) > 2):  # a matrix norm
            if len(dims) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
            from vfw.frontends.torch import linalg
            return finish(linalg.matrix_norm(x, p, dims, keepdim), out, "norm")
        p = 2
    elif p is None:
        p = 2
    elif not isinstance(p, (int, float, np.number)) or isinstance(p, bool):
        raise TypeError(f"norm(): argument 'p' must be a number or str, not {type(p).__name__}")
    return finish(_vector_norm(x, float(p), dim, keepdim, "linalg.vector_norm"), out, "norm")


TENSOR_METHODS = {name: globals()[name] for name in ("std", "var", "logsumexp", "norm")}
