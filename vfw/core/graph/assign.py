"""Writes into tensors: eagerly in place, and under tracing as new values the graph writes back.

:func:`assign` is the engine's state update (a variable, a parameter, a running statistic); :func:`write` stores
an array into a tensor without recording anything.
"""

import numpy as np

from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor


def assign(target, value):
    """Write ``value`` into the tensor ``target`` (a variable, a parameter, a running statistic...).

    Eagerly, the array of ``target`` is overwritten in place when shapes agree
    (views of it see the change; the value is cast to ``target``'s dtype), else,
    or when ``target`` has a true ``copy_on_write`` attribute, replaced by a copy
    of the value cast to that dtype.  Under tracing the
    write is recorded: later reads of ``target`` (and of views sharing its
    memory) in the traced function see the new value, and when ``target`` is
    a captured tensor or an argument the graph writes the value into it after
    each run.

    Parameters
    ----------
    target : Tensor
    value : Tensor or numpy.ndarray

    Returns
    -------
    Tensor
        ``target``.
    """
    array = value.array if isinstance(value, Tensor) else np.asarray(value)
    trace = current_trace()
    in_place = _writes_in_place(target, array)
    if trace is not None and in_place:
        trace.record_write(target, value)
        trace.confirm_write(target)
    write(target, array)
    if trace is not None and not in_place:
        trace.bind_copy(target.array, value)
    return target


def _writes_in_place(target, array):
    # A copy-on-write tensor (a tf.Variable's storage) always gets a new array: tensors read from it keep their value.
    data = target.array
    return data.shape == array.shape and data.flags.writeable and not getattr(target, "copy_on_write", False)


def write(target, array):
    """Store ``array`` into ``target``: in place when the shape allows, else as a new array of ``target``'s dtype."""
    if _writes_in_place(target, array):
        np.copyto(target.array, array, casting="unsafe")
    else:
        target.array = np.array(array, dtype=target.array.dtype)
