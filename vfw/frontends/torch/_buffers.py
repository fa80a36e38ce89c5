"""Tensors over other objects' memory: ``torch.frombuffer`` (the buffer protocol) and DLPack
(``torch.from_dlpack`` / ``torch.to_dlpack``, ``Tensor.__dlpack__``), plus ``torch.binomial``."""

import numpy as np

from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._count_samplers import binomial_draws
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch._random_draws import FLOATS, link_zero_grad, rng_of, tracked
from vfw.frontends.torch._traced import replayed

__all__ = ["binomial", "from_dlpack", "frombuffer", "to_dlpack"]


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of ``buffer`` (sharing its memory), skipping ``offset`` bytes and reading
    ``count`` elements (-1: to the end)."""
    np_dtype = _dtype.to_np(dtype)
    length = memoryview(buffer).nbytes
    size = np_dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif count * size > length - offset:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    if memoryview(buffer).readonly:
        warn_once("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
                      "may want to copy the buffer to protect its data or make it writable before converting it to a "
                      "tensor. This type of warning will be suppressed for the rest of this program.", UserWarning)
    t = _dispatch.wrap(np.frombuffer(buffer, np_dtype, count, offset))
    return t.requires_grad_(True) if requires_grad else t


class _Capsule:
    """A DLPack capsule presented as an exporter (numpy imports objects with ``__dlpack__``)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of ``ext_tensor``: an object with ``__dlpack__`` (a numpy array, a tensor of
    another library) or a DLPack capsule (used once)."""
    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    return _dispatch.wrap(np.from_dlpack(source))


def to_dlpack(tensor):
    """A DLPack capsule over ``tensor``'s memory (for another library's ``from_dlpack``)."""
    return tensor_arg(tensor, "to_dlpack").array.__dlpack__()


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return self.array.__dlpack__()


def _dlpack_device(self):
    return (1, 0)


def binomial(count, prob, generator=None):
    """Binomial draws: successes among ``count`` trials of probability ``prob`` (float tensors of one dtype,
    broadcast), torch's sampler replayed on the generator's stream (torch's numbers)."""
    tensor_arg(count, "binomial", "count")
    tensor_arg(prob, "binomial", "prob", 2)
    if count.array.dtype not in FLOATS:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dispatch.type_name(count.array.dtype)}")
    if prob.array.dtype != count.array.dtype:
        raise RuntimeError(f"Found dtype {_dispatch.type_name(prob.array.dtype)} but expected "
                           f"{_dispatch.type_name(count.array.dtype)}")
    try:
        np.broadcast_shapes(count.array.shape, prob.array.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({count.shape[-1]}) must match the size of tensor b "
                           f"({prob.shape[-1]}) at non-singleton dimension 0") from None
    rng = rng_of(generator, "binomial")

    result = replayed(lambda n, p: binomial_draws(rng, n, p), count, prob)
    if tracked(count, prob):
        result = link_zero_grad(result, (count, prob), "Binomial")
    return result


TENSOR_METHODS = {"__dlpack__": _dlpack, "__dlpack_device__": _dlpack_device}
