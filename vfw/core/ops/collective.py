"""Collective ops over a process group (``vfw.core.distributed``): AllReduce, AllGather, ReduceScatter, Broadcast.

They are not ONNX operators: they let eager code and traced graphs communicate between processes.
The ``group`` attribute names a live process group (0: the world group), so graphs holding them run only
in processes that initialized it.  Each process of the group must run the same collectives in the same
order; the graph passes treat them as side-effecting (see ``graph/passes/cse.py``): never merged, folded
or pruned, so every process's graph makes the same calls.

Gradients follow from the global loss being the sum of every process's loss: AllReduce(sum)'s gradient
is AllReduce(sum) of the output gradients (avg: AllReduce(avg)), AllGather's is ReduceScatter(sum),
ReduceScatter(sum)'s is AllGather, and Broadcast's is the summed gradient on the root, zero elsewhere.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.distributed.group import REDUCE_OPS, get_group
from vfw.core.errors import OpInputError
from vfw.core.ops._common import array_of, execute
from vfw.core.registry import Attr, TensorInfo, defop

_TYPES = {"T": dt.NUMERIC | {dt.bool_}}
_GROUP = Attr("int", 0)


def _same(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[0].dtype)]


def _size(attrs):
    return get_group(attrs["group"]).size


def _gathered(attrs, infos):
    shape = infos[0].shape
    return [TensorInfo(None if shape is None else (_size(attrs),) + shape, infos[0].dtype)]


def _scattered(attrs, infos):
    shape = infos[0].shape
    if shape is None or not shape or shape[0] is None:
        return [TensorInfo(None if shape is None else (None,) + shape[1:], infos[0].dtype)]
    return [TensorInfo((shape[0] // _size(attrs),) + shape[1:], infos[0].dtype)]


@defop("AllReduce", inputs="X:T", outputs="Y:T", types=_TYPES, infer=_same,
       attrs={"reduction": Attr("string", "sum", choices=REDUCE_OPS), "group": _GROUP})
def all_reduce(reduction, group):
    """``X`` reduced elementwise over every process of the group (``avg``: the sum over the group size)."""

    def kernel(x, out=None):
        return get_group(group).all_reduce(x, reduction, out=out)

    return kernel


@defop("AllGather", inputs="X:T", outputs="Y:T", types=_TYPES, infer=_gathered, attrs={"group": _GROUP})
def all_gather(group):
    """Every process's ``X`` stacked along a new leading axis (rank order): shape ``(size, *X.shape)``."""

    def kernel(x, out=None):
        return get_group(group).all_gather(x)

    return kernel


@defop("ReduceScatter", inputs="X:T", outputs="Y:T", types=_TYPES, infer=_scattered,
       attrs={"reduction": Attr("string", "sum", choices=REDUCE_OPS), "group": _GROUP})
def reduce_scatter(reduction, group):
    """``X`` (first dim ``size * k``) reduced over the group; process ``r`` gets rows ``[r*k, (r+1)*k)``."""

    def kernel(x, out=None):
        return get_group(group).reduce_scatter(x, reduction)

    return kernel


@defop("Broadcast", inputs="X:T", outputs="Y:T", types=_TYPES, infer=_same,
       attrs={"root": Attr("int", 0), "group": _GROUP})
def broadcast(root, group):
    """Process ``root``'s ``X`` on every process (a new array: the input is not written)."""

    def kernel(x, out=None):
        return get_group(group).broadcast(np.array(x, order="C"), root)

    return kernel


def _reduction_of(node):
    reduction = node.attrs["reduction"]
    if reduction not in ("sum", "avg"):
        raise OpInputError(f"{node.op.schema.op_type}: the gradient is defined for reductions 'sum' and 'avg' "
                           f"only, got {reduction!r}")
    return reduction


@register_gradient("AllReduce")
def _all_reduce_grad(node, gy):
    return (execute("AllReduce", gy, reduction=_reduction_of(node), group=node.attrs["group"]),)


@register_gradient("AllGather")
def _all_gather_grad(node, gy):
    flat = execute("Reshape", gy, np.array((-1,) + array_of(gy).shape[2:], np.int64))
    return (execute("ReduceScatter", flat, reduction="sum", group=node.attrs["group"]),)


@register_gradient("ReduceScatter")
def _reduce_scatter_grad(node, gy):
    gathered = execute("AllGather", gy, group=node.attrs["group"])
    grad = execute("Reshape", gathered, np.array(array_of(node.inputs[0]).shape, np.int64))
    if _reduction_of(node) == "avg":
        grad = execute("Div", grad, np.array(_size(node.attrs), array_of(grad).dtype))
    return (grad,)


@register_gradient("Broadcast")
def _broadcast_grad(node, gy):
    group = get_group(node.attrs["group"])
    summed = execute("AllReduce", gy, reduction="sum", group=group.group_id)
    keep = np.array(1 if group.rank == node.attrs["root"] else 0, array_of(gy).dtype)
    return (execute("Mul", summed, keep),)

