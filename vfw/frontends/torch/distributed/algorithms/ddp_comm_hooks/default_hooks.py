"""DDP's default communication hooks: average each gradient bucket over the processes, optionally sending it in
half precision (float16 or bfloat16) to halve the bytes moved.

A hook is called as ``hook(state, bucket)`` with ``state`` the process group (``None``: the default group) and
returns a ``torch.futures.Future`` of the bucket's averaged flat gradient.
"""

from vfw.frontends.torch import distributed as dist
from vfw.frontends.torch.futures import Future

__all__ = ["allreduce_hook", "bf16_compress_hook", "bf16_compress_wrapper", "fp16_compress_hook",
           "fp16_compress_wrapper"]


def _average(process_group, tensor):
    """All-reduce ``tensor`` divided by the group's size, in place; a completed future of it."""
    tensor.div_(dist.get_world_size(process_group))
    dist.all_reduce(tensor, group=process_group)
    future = Future()
    future.set_result(tensor)
    return future


def allreduce_hook(process_group, bucket):
    """Average ``bucket``'s gradients over ``process_group`` (what DDP does without a hook)."""
    return _average(process_group, bucket.buffer())


def _compressed(process_group, bucket, dtype):
    """Average ``bucket`` sent as ``dtype``; the result is written back into the bucket's buffer."""
    buffer = bucket.buffer()
    averaged = _average(process_group, buffer.to(getattr(_torch(), dtype))).value()
    buffer.copy_(averaged)
    future = Future()
    future.set_result(buffer)
    return future


def fp16_compress_hook(process_group, bucket):
    """Average ``bucket``'s gradients sent in float16 (divided by the world size before the sum, as torch)."""
    return _compressed(process_group, bucket, "float16")


def bf16_compress_hook(process_group, bucket):
    """Average ``bucket``'s gradients sent in bfloat16."""
    return _compressed(process_group, bucket, "bfloat16")


def _compress_wrapper(hook, dtype):
    def wrapped(state, bucket):
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(getattr(_torch(), dtype)))
        reduced = hook(state, bucket).wait()
        buffer.copy_(reduced)
        future = Future()
        future.set_result(buffer)
        return future

    return wrapped


def fp16_compress_wrapper(hook):
    """``hook`` run on the bucket cast to float16; its result cast back into the bucket's dtype."""
    return _compress_wrapper(hook, "float16")


def bf16_compress_wrapper(hook):
    """``hook`` run on the bucket cast to bfloat16; its result cast back."""
    return _compress_wrapper(hook, "bfloat16")


def _torch():
    """vfw.torch (imported when a hook runs: this module loads while vfw.torch may still be initializing)."""
    import vfw.torch

    return vfw.torch
