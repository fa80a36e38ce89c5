"""``torch.distributed.nn.functional``: differentiable collectives.

Each forward runs the ordinary :mod:`torch.distributed` collective on a copy of its input; each backward runs
the collective that carries the gradients back (torch's pairing): broadcast <-> reduce, gather <-> scatter,
all_gather -> an all_to_all whose parts are summed, all_to_all -> all_to_all, reduce_scatter -> all_gather,
all_reduce -> all_reduce (with the forward's op, as torch: exact for SUM only).  Every process of the group must
run the backward too (the gradient collectives are collectives).
"""

import warnings

from vfw.frontends.torch.autograd.function import Function
from vfw.frontends.torch.distributed._c10d import ReduceOp

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "gather", "reduce",
           "reduce_scatter", "scatter"]


def _dist():
    # torch.distributed imports this module's package lazily; resolve it at call time (no import cycle)
    from vfw.frontends.torch import distributed

    return distributed


def _deprecated(name, suggestion):
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use "
                  f"torch.distributed._functional_collectives.{suggestion} instead.", FutureWarning, stacklevel=3)


def _zeros_like(tensor):
    from vfw.frontends.torch._creation import zeros_like

    return zeros_like(tensor)


def _empty(shape, like):
    from vfw.frontends.torch._creation import empty

    return empty(tuple(shape), dtype=like.dtype)


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor`` on every process; the gradient is summed onto ``src`` (zero elsewhere).

    Parameters
    ----------
    tensor : Tensor
        The value to send (on ``src``) or whose shape and dtype to receive into.
    src : int
        The source rank.
    group : ProcessGroup, optional
        The default group when ``None``.

    Returns
    -------
    Tensor
        A new tensor holding ``src``'s value.
    """
    _deprecated("broadcast", "broadcast")
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=None):
    """Every process's ``tensor`` as a tuple (one per rank) on ``dst``; other ranks get zeros.  The gradient
    of each part is scattered back to its rank."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=None):
    """``tensors[r]`` of rank ``src`` on rank ``r`` (every rank passes ``world_size`` tensors of the output's
    shape); the gradients are gathered back onto ``src``."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced with ``op`` onto ``dst`` (a new tensor); its gradient is ``dst``'s, broadcast."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """This rank's part of the reduction of every process's ``input_list`` (a new tensor shaped as
    ``output``); the gradients of ``input_list`` are every rank's output gradient (an all_gather)."""
    _deprecated("reduce_scatter", "reduce_scatter_single")
    return _Reduce_Scatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=None):
    """Every process's ``tensor`` as a tuple, one per rank (contrastive losses over the global batch).

    The backward gives rank ``r`` the sum over all processes of their gradient of part ``r``.
    """
    _deprecated("all_gather", "all_gather_single")
    return _AllGather.apply(group, tensor)


def _all_gather_base(output_tensor, input_tensor, group=None):
    """``all_gather_into_tensor`` of ``input_tensor`` into ``output_tensor`` (returned); gloo has no backward for
    it (a RuntimeError, as torch's)."""
    return _AllGatherBase.apply(output_tensor, input_tensor, group)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """``input_tensor_list[r]`` to rank ``r``; returns the received tensors (shaped as ``output_tensor_list``) as a
    tuple.  The gradients travel back the same way."""
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None):
    """:func:`torch.distributed.all_to_all_single` into ``output`` (returned), differentiable: the gradient is
    exchanged back with the split sizes swapped."""
    _deprecated("all_to_all_single", "all_to_all_single")
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced with ``op`` over every process (a new tensor); the backward all-reduces the gradient
    with the same ``op`` (torch's: the true gradient for ``SUM`` only)."""
    _deprecated("all_reduce", "all_reduce")
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        ctx.rank = _dist().get_rank(group)
        out = tensor.clone()
        _dist().broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            grad = _zeros_like(grad)  # only the source's tensor reached every output
        return None, None, grad


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        parts = [_zeros_like(tensor) for _ in range(_dist().get_world_size(group))]
        tensor = tensor.contiguous()
        _dist().gather(tensor, parts if _dist().get_rank(group) == dst else None, dst, group)
        return tuple(parts)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs))


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        rank = _dist().get_rank(group)
        shapes = {tuple(t.shape) for t in tensors}
        if len(shapes) != 1:
            raise AssertionError(f"scatter: every tensor must have the same size, got {sorted(shapes)}")
        out = _zeros_like(tensors[rank])
        _dist().scatter(out, list(tensors) if rank == src else None, src, group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = tensor.clone()
        _dist().reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output))


class _Reduce_Scatter(Function):  # noqa: N801  (torch's name: its backward is _Reduce_ScatterBackward)
    @staticmethod
    def forward(ctx, op, group, tensor, *input_tensor_list):
        ctx.group = group
        out = tensor.clone()
        _dist().reduce_scatter(out, [t.contiguous() for t in input_tensor_list], op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        parts = [_empty(tensor.shape, tensor) for _ in range(_dist().get_world_size(group))]
        _dist().all_gather(parts, tensor.contiguous(), group=group)
        return tuple(parts)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # part r's gradient lives on every rank: send each its part, and add what arrives
        received = _AlltoAll.apply(ctx.group, [_zeros_like(g) for g in grad_outputs], *grad_outputs)
        from vfw.frontends.torch._joining import stack

        return None, stack(list(received)).sum(dim=0)


class _AllGatherBase(Function):
    @staticmethod
    def forward(ctx, output_tensor, input_tensor, group):
        ctx.group = group
        _dist().all_gather_into_tensor(output_tensor, input_tensor.contiguous(), group=group)
        return output_tensor

    @staticmethod
    def backward(ctx, grad_output):
        # torch reduce-scatters the gradient on NCCL only; gloo has no backward for it
        raise RuntimeError("Backend not supported!")


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, group, out_tensor_list, *tensors):
        ctx.group = group
        ctx.input_shapes = [tuple(t.shape) for t in tensors]
        parts = [_empty(t.shape, t) for t in out_tensor_list]
        _dist().all_to_all(parts, [t.contiguous() for t in tensors], group=group)
        return tuple(parts)

    @staticmethod
    def backward(ctx, *grad_outputs):
        buffers = [_empty(shape, grad_outputs[0]) for shape in ctx.input_shapes]
        return (None, None) + _AlltoAll.apply(ctx.group, buffers, *grad_outputs)


class _AlltoAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group, ctx.input_shape = group, tuple(input.shape)
        ctx.output_split_sizes, ctx.input_split_sizes = input_split_sizes, output_split_sizes  # swapped back
        _dist().all_to_all_single(output, input, output_split_sizes=output_split_sizes,
                                  input_split_sizes=input_split_sizes, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        buffer = _empty(ctx.input_shape, grad_output)
        return (None, None, None, None, _AlltoAllSingle.apply(ctx.group, buffer, ctx.output_split_sizes,
                                                              ctx.input_split_sizes, grad_output.contiguous()))


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group, ctx.op = group, op
        out = tensor.clone()
        _dist().all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output))

