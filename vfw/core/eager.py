"""Eager executor: run one op now.

``run`` works on numpy arrays; ``execute`` on :class:`~vfw.core.tensor.Tensor`
objects, and records the op for autograd when an input requires grad.  Neither builds a protobuf
message: the op instance (attributes validated once) comes from the current
workspace's cache, and input dtypes are checked once per signature.
"""

from vfw.core import autograd
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.registry import Op
from vfw.core.tensor import Tensor
from vfw.core.workspace import current_workspace

_new = object.__new__


def get_op(op_type, attrs=None, device="cpu"):
    """The cached :class:`~vfw.core.registry.Op` of the current workspace."""
    return current_workspace().op(op_type, attrs, device)


def run(op, *inputs, out=None, **attrs):
    """Run ``op`` on numpy arrays and return its output array(s).

    Parameters
    ----------
    op : str or Op
        An op type name (with ``attrs`` as keyword arguments) or a bound op.
    *inputs : numpy.ndarray or None
        Inputs in schema order; ``None`` for an absent optional input.
    out : numpy.ndarray, optional
        Buffer the kernel may write the (single) output into.

    Returns
    -------
    numpy.ndarray or tuple
        One array, or a tuple for ops with several outputs.
    """
    if type(op) is not Op:
        op = current_workspace().op(op, attrs)
    return op(*inputs, out=out)


def execute(op, *inputs, **attrs):
    """Run ``op`` on tensors and return output :class:`Tensor` object(s).

    Outputs have the ``result_class`` of the first tensor input (so frontend
    tensor classes flow through while subclasses such as parameters give plain
    tensors), or :class:`Tensor` when no input is one.

    Parameters
    ----------
    op : str or Op
        An op type name (with ``attrs`` as keyword arguments) or a bound op.
    *inputs : Tensor, numpy.ndarray or None

    Returns
    -------
    Tensor or tuple[Tensor or None, ...]
    """
    if type(op) is not Op:
        op = current_workspace().op(op, attrs)
    cls = Tensor
    arrays = []
    needs_grad = False
    for x in inputs:
        if isinstance(x, Tensor):
            if cls is Tensor:
                cls = x.result_class
            needs_grad = needs_grad or x.requires_grad
            arrays.append(x.array)
        else:
            arrays.append(x)
    result = op(*arrays)
    if type(result) is tuple:
        outputs = tuple([None if r is None else cls.wrap(r) for r in result])
    else:  # Tensor.wrap inlined: this is the hottest path of eager execution
        outputs = _new(cls)
        outputs.array = result
        outputs.requires_grad = False
        outputs.grad_node = None
    if needs_grad and autograd.is_grad_enabled():
        autograd.record(op, inputs, outputs)
    if _tracing:
        trace = current_trace()
        if trace is not None:
            trace.record(op, inputs, outputs)
    return outputs


def execute_gradient_op(op, grad, *others):
    """:func:`execute` of the bound single-output ``op`` on ``grad`` (a tensor) and ``others``, for gradient makers.

    The same result; while nothing can record it (gradients disabled, as in a backward without
    ``create_graph``, and no graph trace) it skips the executor's bookkeeping: makers run once per node
    of every backward.
    """
    if _tracing or autograd.is_grad_enabled():
        return execute(op, grad, *others)
    arrays = [grad.array]
    for x in others:  # (a loop: a comprehension's frame costs more)
        arrays.append(x.array if isinstance(x, Tensor) else x)
    result = op(*arrays)
    output = _new(grad.result_class)
    output.array = result
    output.requires_grad = False
    output.grad_node = None
    return output
