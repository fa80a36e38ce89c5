"""tf.function arguments as the engine's trace cache sees them, and as the traced Python function sees them.

The engine picks a traced graph by the equality of the call's arguments.  Numpy arrays enter it as
tensors (as TF), variables and other unhashable objects by identity (:class:`_Same`).

Iterators: TF's trace type of an iterator is its element spec, and a call passing another iterator
of a covered spec runs the same graph, which reads *that* iterator (the canonical custom training
loop makes ``iter(dataset)`` at every epoch and calls ``train_step(iterator)``).  So an iterator
enters the engine as an :class:`IteratorArgument`, equal for every iterator of one spec at one
position of the call, which binds the call's iterator to a :class:`_Slot` of the tf.function; the
Python function traced receives an ``IteratorParameter`` (``_function_iterators``), whose reads are
ops of the graph pulling from the iterator the slot holds when the graph runs.  Datasets are still
traced once per dataset object by the engine: a function may build new datasets from its dataset
argument, which a graph cannot redo.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._tensor_spec import TensorSpec


def as_argument(x):
    """An argument as the engine's trace cache sees it: numpy arrays as tensors (as TF); variables and other
    unhashable objects by identity."""
    if isinstance(x, np.ndarray):
        return _dispatch.convert_to_tensor(x)
    if hasattr(x, "_as_tensor") and not isinstance(x, CoreTensor):
        return _Same(x)
    if not isinstance(x, CoreTensor):
        try:
            hash(x)
        except TypeError:
            return _Same(x)
    return x


class _Same:
    """An argument hashed and compared by identity (a variable: the engine traces once per variable, as its
    graph captures the variable it read, while TF's trace count follows the variable's shape and dtype)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return type(other) is _Same and other.value is self.value


def unwrapped(x):
    """The object the caller passed for an engine argument."""
    cls = type(x)
    if cls is _Same:
        return x.value
    return x.iterator if cls is IteratorArgument else x


def parameter(x):
    """An engine argument as the function traced into the engine's graph sees it: an iterator whose reads pull
    from the iterator each call passes."""
    if type(x) is IteratorArgument:
        from vfw.frontends.tensorflow._function_iterators import IteratorParameter

        return IteratorParameter(x.slot)
    return unwrapped(x)


# -- iterators and datasets ------------------------------------------------------------------------
def element_spec_key(spec, shapes, tensors):
    """The trace type of a dataset's element spec: its structure and dtypes, the shapes of its TensorSpecs appended
    to ``shapes`` (so that, as in TF, a trace for ``(None, 2)`` batches serves ``(2, 2)`` ones), and a None to
    ``tensors`` (when given) for each: no tensor of the call stands for it."""
    from vfw.frontends.tensorflow.data import _structure

    def leaf_key(leaf):
        if isinstance(leaf, TensorSpec):
            shapes.append(None if leaf.shape.rank is None else tuple(leaf.shape.as_list()))
            if tensors is not None:
                tensors.append(None)
            return ("tensor", leaf.dtype)
        return repr(leaf)
    return repr(_structure.map_structure(leaf_key, spec))


class _Slot:
    """The iterator the graphs of one argument position and spec read: the one the latest call passed."""

    __slots__ = ("current",)

    def __init__(self):
        self.current = None


def iterator_argument(slots, iterator, position):
    """The engine's argument for ``iterator``, the ``position``-th iterator of a call; binds it to its slot in
    ``slots`` (the tf.function's)."""
    key = (position, type(iterator), repr(iterator.element_spec))
    slot = slots.get(key)
    if slot is None:
        slot = slots[key] = _Slot()
    slot.current = iterator
    return IteratorArgument(slot, iterator)


class IteratorArgument:
    """An iterator argument as the engine's trace cache sees it: equal for every iterator of its slot."""

    __slots__ = ("slot", "iterator")

    def __init__(self, slot, iterator):
        self.slot = slot
        self.iterator = iterator  # this call's

    def __hash__(self):
        return id(self.slot)

    def __eq__(self, other):
        return type(other) is IteratorArgument and other.slot is self.slot
