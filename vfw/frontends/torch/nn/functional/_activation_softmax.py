"""The softmax family of torch.nn.functional (softmax, softmin, log_softmax, gumbel_softmax) and glu.

``dim=None`` follows torch's legacy rule (dim 0 for 0-, 1- and 3-D inputs, else 1) with its
deprecation warning; the numerics are the engine's Softmax / LogSoftmax through the torch
functions of the same names.
"""

from vfw.core import dtypes as dt
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _joining, _pointwise
from vfw.frontends.torch._pointwise import _op, _run, not_implemented, tensor_arg
from vfw.frontends.torch._shape import wrap_dim

__all__ = ["softmax", "softmin", "log_softmax", "gumbel_softmax", "glu"]


def legacy_softmax_dim(name, ndim):
    """The dim torch picks when ``dim`` is None (0 for 0-, 1- and 3-D inputs, else 1), with its warning."""
    warn_for_user(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  "argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(input) / sum(exp(input))`` along ``dim``.

    Parameters
    ----------
    input : Tensor
    dim : int, optional
        The dim that sums to 1 (None: torch's deprecated implicit choice, with a warning).
    dtype : torch.dtype, optional
        Cast ``input`` to it first.
    """
    tensor_arg(input, "softmax")
    if dim is None:
        dim = legacy_softmax_dim("softmax", input.array.ndim)
    return _pointwise.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim`` (arguments as :func:`softmax`; the negation comes before the cast)."""
    tensor_arg(input, "softmin")
    if dim is None:
        dim = legacy_softmax_dim("softmin", input.array.ndim)
    return _pointwise.softmax(_pointwise.neg(input), dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(input))`` along ``dim``, computed stably (arguments as :func:`softmax`)."""
    tensor_arg(input, "log_softmax")
    if dim is None:
        dim = legacy_softmax_dim("log_softmax", input.array.ndim)
    return _pointwise.log_softmax(input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution over ``dim``.

    Gumbel noise ``-log(E)`` (E exponential, drawn as torch draws it) is added to ``logits`` and
    the sum divided by ``tau`` goes through softmax.  With ``hard`` the result is one-hot at the
    maximum in the forward pass while the gradient is the soft sample's (straight-through).

    Parameters
    ----------
    logits : Tensor
        Unnormalized log-probabilities.
    tau : float
        Temperature.
    hard : bool
    eps : float
        Deprecated and unused (a warning when changed).
    dim : int
    """
    if eps != 1e-10:
        warn_for_user("`eps` parameter is deprecated and has no effect.")
    tensor_arg(logits, "gumbel_softmax", "logits")
    gumbels = _creation.empty_like(logits).exponential_().log().neg()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def glu(input, dim=-1):
    """Gated linear unit: ``a * sigmoid(b)`` where ``a`` and ``b`` are the halves of ``input`` along ``dim``.

    Parameters
    ----------
    input : Tensor
        Its size along ``dim`` must be even.
    dim : int
    """
    x = tensor_arg(input, "glu")
    if x.array.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, x.array.ndim)
    n = x.array.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    if x.array.dtype not in dt.FLOATS:
        raise not_implemented("glu_cpu", x.array.dtype)
    a, b = _joining.chunk(x, 2, d)
    return _run(_op("Mul"), a, _run(_op("Sigmoid"), b))
