"""ATen's "native" entry points at the top level of torch: ``native_dropout`` (output and keep-mask),
``native_norm`` (sparse COO tensors, full reductions), ``native_group_norm`` (output, mean, rstd),
``norm_except_dim`` (weight norm's norm), ``as_strided_``, ``slice_inverse`` (also a Tensor method), the
``*_copy`` forms of the sparse-part and complex-view accessors, and ``torch.special.airy_ai`` (engine op
``AiryAi``).

Each is composed from existing torch functions (so autograd follows theirs) or runs an engine op.
"""

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.frontends.torch import _complex, _config, _dispatch, _dtype, _linalg_norms, _shape
from vfw.frontends.torch._creation import ones_like
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op, not_implemented, tensor_arg
from vfw.frontends.torch._special_extra import _engine
from vfw.frontends.torch.autograd.function import Function
from vfw.frontends.torch.nn.functional._dropout import _noise

__all__ = ["as_strided_", "native_dropout", "native_norm", "native_group_norm", "norm_except_dim", "slice_inverse",
           "values_copy", "indices_copy", "crow_indices_copy", "col_indices_copy", "ccol_indices_copy",
           "row_indices_copy", "view_as_real_copy", "view_as_complex_copy"]


def native_dropout(input, p, train):
    """Dropout returning ``(output, mask)``: ``mask`` (bool) marks the kept elements, ``output = input * mask /
    (1 - p)``. With ``train=False`` the output is a copy of ``input`` and the mask all True; ``train=None`` trains.

    The mask is drawn as ``torch.nn.functional.dropout`` draws it (torch's numbers from the same seed).
    """
    x = tensor_arg(input, "native_dropout")
    if train is not None and not train:
        return x.clone(), ones_like(x, dtype=_dtype.bool)
    keep = 1.0 - float(p)
    if not 0.0 <= keep <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={keep}")
    if keep == 0.0:
        noise = _dispatch.wrap(np.zeros(x.shape, x.array.dtype))
    else:
        noise = _noise(x, x.array.shape, keep)
    mask = _dispatch.wrap(noise.array != 0)
    if x.array.dtype.kind not in "fc":  # torch draws, then cannot scale in the input's dtype
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_dispatch.type_name(x.array.dtype)}")
    scale = 0.0 if keep == 0.0 else 1.0 / keep
    scaled_noise = _dispatch.wrap(noise.array * np.asarray(scale, x.array.dtype))
    if train is None:  # torch's backward for train=None multiplies by the mask alone (scale 1)
        return _UnscaledBackwardDropout.apply(x, scaled_noise, noise), mask
    return run(_op("Mul"), x, scaled_noise), mask


class _UnscaledBackwardDropout(Function):
    """``input * scaled_noise`` whose gradient is ``grad * noise``: torch's ``native_dropout(train=None)``."""

    @staticmethod
    def forward(ctx, input, scaled_noise, noise):
        ctx.save_for_backward(noise)
        return run(_op("Mul"), input, scaled_noise)

    @staticmethod
    def backward(ctx, grad):
        (noise,) = ctx.saved_tensors
        return grad * noise, None, None


def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of all values of a sparse COO tensor (torch has this kernel for sparse tensors only).

    ``dim`` may only list every dimension (a full reduction); ``keepdim`` and ``dtype`` are refused, as in torch.
    """
    x = tensor_arg(input, "native_norm")
    layout = str(x.layout)
    if layout != "torch.sparse_coo":
        backend = {"torch.strided": "CPU", "torch.sparse_csr": "SparseCsrCPU"}.get(layout, "CPU")
        raise NotImplementedError(f"Could not run 'aten::native_norm' with arguments from the '{backend}' backend. "
                                  "This could be because the operator doesn't exist for this backend.")
    if dim is not None and len(dim) and set(_shape.wrap_dims(dim, x.dim())) != set(range(x.dim())):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    if keepdim:
        raise RuntimeError("norm_sparse currently does not support keepdim=True")
    if dtype is not None:
        raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    values = x.coalesce().values()
    if values.array.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dispatch.type_name(values.array.dtype)} instead.")
    return _linalg_norms.vector_norm(values, p)


def _group_norm_checks(x, weight, bias, n, c, hxw, group):
    if x.array.dtype.kind != "f":
        raise not_implemented("GroupNormKernelImpl", x.array.dtype)
    shape = list(x.shape)
    if c % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {shape} and num_groups={group}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and (param.dim() != 1 or param.numel() != c):
            # torch's bias message shows the weight's shape ([0] without a weight)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {shown} and input of shape {shape}")
    if x.numel() != n * c * hxw:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalization returning ``(output, mean, rstd)``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` with ``prod(*) == HxW``.
    weight, bias : Tensor or None
        ``(C,)`` affine parameters.
    N, C, HxW, group : int
        Batch size, channels, spatial size and number of groups (``C`` divisible by ``group``).
    eps : float

    Returns
    -------
    tuple of Tensor
        The normalized input (``input``'s shape), and the per-(sample, group) mean and ``1 / sqrt(var + eps)``
        (biased variance), both ``(N, group)``.
    """
    x = tensor_arg(input, "native_group_norm")
    _group_norm_checks(x, weight, bias, N, C, HxW, group)
    grouped = x.reshape(N, group, -1)
    mean = grouped.mean(-1)
    rstd = (grouped.var(-1, unbiased=False) + eps).rsqrt()
    output = ((grouped - mean.unsqueeze(-1)) * rstd.unsqueeze(-1)).reshape(x.shape)
    channel_shape = (C,) + (1,) * (x.dim() - 2)
    if weight is not None:
        output = output * weight.reshape(channel_shape)
    if bias is not None:
        output = output + bias.reshape(channel_shape)
    return output, mean, rstd


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002  (torch's argument name)
    """The ``pow``-norm of ``v`` over every dim but ``dim``, kept as size-1 dims (``dim=-1``: of all of ``v``, 0-d).

    What ``torch.nn.utils.weight_norm`` divides by.
    """
    tensor_arg(v, "norm_except_dim", "v")
    if isinstance(pow, (bool, float, np.floating)) or not isinstance(pow, (int, np.integer)):
        raise TypeError(f"norm_except_dim(): argument 'pow' (position 2) must be int, not {type(pow).__name__}")
    if v.array.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dispatch.type_name(v.array.dtype)} instead.")
    if dim == -1:
        return _linalg_norms.vector_norm(v, pow)
    if v.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    kept = _shape.wrap_dim(dim, v.dim())
    others = tuple(d for d in range(v.dim()) if d != kept)
    return _linalg_norms.vector_norm(v, pow, others, keepdim=True)


def as_strided_(input, size, stride, storage_offset=None):
    """``input.as_strided_(size, stride, storage_offset)``: give ``input`` itself a new geometry over its memory."""
    return tensor_arg(input, "as_strided_").as_strided_(size, stride, storage_offset)


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """``input``'s memory seen with ``src``'s sizes, strides and storage offset (the inverse of slicing ``src``
    along ``dim`` when ``input`` is that slice; ``dim``/``start``/``end``/``step`` locate it and are not read)."""
    tensor_arg(input, "slice_inverse")
    tensor_arg(src, "slice_inverse", "src", 2)
    return input.as_strided(src.shape, src.stride(), src.storage_offset())


def _copied(tensor):
    return tensor.clone(memory_format=_config.contiguous_format)


def values_copy(input):
    """A copy of the values of a sparse CSR tensor (torch has no COO kernel for this copy)."""
    tensor_arg(input, "values_copy")
    if str(input.layout) == "torch.sparse_coo":
        raise NotImplementedError("Could not run 'aten::values_copy' with arguments from the 'SparseCPU' backend.")
    return _copied(input.values())


def indices_copy(input):
    """Refused as torch refuses it: its ``indices_copy`` has no kernel for sparse COO tensors either."""
    tensor_arg(input, "indices_copy")
    if str(input.layout) == "torch.sparse_coo":
        raise NotImplementedError("Could not run 'aten::indices_copy' with arguments from the 'SparseCPU' backend.")
    return _copied(input.indices())


def crow_indices_copy(input):
    """A copy of a sparse CSR tensor's compressed row indices."""
    return _copied(tensor_arg(input, "crow_indices_copy").crow_indices())


def col_indices_copy(input):
    """A copy of a sparse CSR tensor's column indices."""
    return _copied(tensor_arg(input, "col_indices_copy").col_indices())


def ccol_indices_copy(input):
    """A copy of a sparse CSC tensor's compressed column indices (vfw has no CSC tensors: torch's error)."""
    return _copied(tensor_arg(input, "ccol_indices_copy").ccol_indices())


def row_indices_copy(input):
    """A copy of a sparse CSC tensor's row indices (vfw has no CSC tensors: torch's error)."""
    return _copied(tensor_arg(input, "row_indices_copy").row_indices())


def view_as_real_copy(input):
    """``torch.view_as_real(input)`` in fresh memory."""
    return _copied(_complex.view_as_real(tensor_arg(input, "view_as_real_copy")))


def view_as_complex_copy(input):
    """``torch.view_as_complex(input)`` in fresh memory (refused while recording autograd, as in torch)."""
    if tensor_arg(input, "view_as_complex_copy").requires_grad and is_grad_enabled():
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for outputs with complex "
                           "dtype.")
    return _copied(_complex.view_as_complex(tensor_arg(input, "view_as_complex_copy")))


TENSOR_METHODS = {"slice_inverse": slice_inverse}


def airy_ai(input, *, out=None):
    """Airy function of the first kind ``Ai(x)`` (float32/float64; integers give the default dtype; not
    differentiable, as in torch)."""
    x = tensor_arg(input, "special_airy_ai", "x")
    if x.array.dtype.kind == "c":
        raise not_implemented("airy_ai_cpu", x.array.dtype)
    return _engine("AiryAi", "airy_ai", x.detach(), out=out)
