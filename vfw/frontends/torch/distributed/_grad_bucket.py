"""``GradBucket``, what a DDP communication hook gets, and running a hook over DDP's gradient buckets."""

import numpy as np

from vfw.frontends.torch import _dispatch

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket of DDP gradients: a flat buffer holding consecutive parameters' gradients of one dtype.

    Parameters
    ----------
    index : int
        The bucket's position among the model's buckets.
    buffer : Tensor
        The flattened gradients (this process's, not yet reduced).
    parameters : list of Tensor
        The parameters whose gradients the buffer holds, in buffer order.
    is_last : bool
        Whether this is the last bucket of the backward pass.
    """

    def __init__(self, index, buffer, parameters, is_last):
        self._index, self._buffer, self._parameters, self._is_last = index, buffer, list(parameters), is_last

    def index(self):
        return self._index

    def buffer(self):
        """The flat gradient tensor."""
        return self._buffer

    def gradients(self):
        """Each parameter's gradient: views of :meth:`buffer`, shaped as the parameters."""
        views, start = [], 0
        for p in self._parameters:
            stop = start + p.array.size
            views.append(self._buffer[start:stop].view(tuple(p.array.shape)))
            start = stop
        return views

    def parameters(self):
        return list(self._parameters)

    def is_last(self):
        return self._is_last

    def set_buffer(self, buffer):
        """Replace the bucket's buffer (a tensor of the same number of elements)."""
        self._buffer = buffer


def reduce_with_hook(hook, state, buckets, parameters, grads, used, write=True):
    """Run ``hook(state, GradBucket)`` on each of ``buckets`` (a :class:`vfw.core.distributed.Buckets` layout of
    ``parameters``) and write the tensor its future gives into the gradients.

    ``grads`` holds each parameter's gradient array or ``None`` (packed as zeros; it gets a new gradient where
    ``used`` says some process used the parameter).  ``write=False`` runs the hooks only (a DDP process that
    joined shadows the others' reduction with zeros).
    """
    count = len(buckets.buckets)
    for index, bucket in enumerate(buckets.buckets):
        members = list(zip(bucket.indices, bucket.offsets, bucket.offsets[1:]))
        flat = np.empty_like(bucket.buffer)
        for i, start, stop in members:
            flat[start:stop] = 0 if grads[i] is None else grads[i].reshape(-1)
        grad_bucket = GradBucket(index, _dispatch.wrap(flat), [parameters[i] for i, _, _ in members],
                                 index == count - 1)
        future = hook(state, grad_bucket)
        if not hasattr(future, "wait"):
            raise RuntimeError(f"DDP communication hook must return a torch.futures.Future, got "
                               f"{type(future).__name__}")
        reduced = future.wait()
        reduced = reduced[0] if isinstance(reduced, (list, tuple)) else reduced
        result = np.asarray(reduced.array).reshape(-1)
        if result.size != flat.size:
            raise RuntimeError(f"DDP communication hook: the future's tensor has {result.size} elements but bucket "
                               f"{index} holds {flat.size}")
        if not write:
            continue
        for i, start, stop in members:
            p, part = parameters[i], result[start:stop].reshape(parameters[i].array.shape)
            if grads[i] is not None:
                np.copyto(grads[i], part, casting="unsafe")
                _dispatch.bump_version(p.grad)
            elif used[i]:
                p.grad = _dispatch.wrap(part.astype(p.array.dtype, copy=True))
