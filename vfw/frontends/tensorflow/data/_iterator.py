"""Iterators over datasets (``iter(dataset)``, ``as_numpy_iterator``)."""

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow._optional import Optional
from vfw.frontends.tensorflow._sparse_tensor import SparseTensorSpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _randomness, _seeds
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import out_of_range
from vfw.frontends.tensorflow.data._graph_reads import graph_trace, pulled, read_next, read_optional


class Iterator:
    """``tf.data.Iterator``: the interface of dataset iterators."""

    @property
    def element_spec(self):
        raise NotImplementedError

    def get_next(self):
        raise NotImplementedError

    def get_next_as_optional(self):
        raise NotImplementedError


class OwnedIterator(Iterator):
    """An iterator over a dataset's elements (what ``iter(dataset)`` returns).

    ``next()`` raises StopIteration at the end, ``get_next()`` TF's ``OutOfRangeError``.  Inside a traced
    tf.function, each read is an op of the graph pulling the next element at every call (see ``_graph_reads``).
    """

    _tf_trace_kind = "iterator"  # a tf.function's trace type: this and the element spec (see _trace_types.trace_key)

    def __init__(self, dataset):
        self._dataset = dataset
        # the random kernels of this iteration's dataset functions (see _randomness) and the seeds its random
        # datasets drew when it was created (see _seeds)
        self._kernels = {}
        _seeds.draw_at_creation(dataset, self._kernels)
        # (copies of the seeds drawn: a checkpoint restore rewinding the iterator starts its pipeline anew)
        self._seeds_at_creation = {generator: list(seeds) for generator, seeds in self._kernels.items()}
        self._produced = 0  # elements pulled so far: the position a tf.train.Checkpoint saves
        self._start()
        self._pack = dataset._pack

    def _start(self):
        previous = _randomness.enter_iteration(self._kernels)
        try:
            self._elements = self._dataset._elements()
        finally:
            _randomness.leave_iteration(previous)

    def _restore_position(self, position):
        """Move to just after the first ``position`` elements (a ``tf.train.Checkpoint`` restoring this iterator):
        from the start of a new pass when it is already past them, drawing the seeds it was created with, so a
        deterministic pipeline (seeded shuffles included) continues as the saved one did."""
        if position < self._produced:
            self._kernels = {generator: list(seeds) for generator, seeds in self._seeds_at_creation.items()}
            self._produced = 0
            self._start()
        while self._produced < position:
            try:
                self._pull()
            except StopIteration:
                break

    @property
    def element_spec(self):
        """The element spec of the dataset."""
        return self._dataset.element_spec

    @property
    def _type_spec(self):
        from vfw.frontends.tensorflow.data._experimental_ops import IteratorSpec

        return IteratorSpec(self._dataset.element_spec)

    def __iter__(self):
        return self

    def __next__(self):
        if graph_trace() is not None:
            return read_next(self.element_spec, self._pull)
        return pulled(self._pull)

    def _pull(self):
        """The next element, read now (StopIteration at the end)."""
        previous = _randomness.enter_iteration(self._kernels)
        try:
            element = self._pack(next(self._elements))
        finally:
            _randomness.leave_iteration(previous)
        self._produced += 1
        return element

    def get_next(self):
        """The next element (``tf.errors.OutOfRangeError`` "End of sequence" after the last)."""
        if graph_trace() is not None:
            return read_next(self.element_spec, self._pull)
        try:
            return next(self)
        except StopIteration:
            raise out_of_range() from None

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` (empty after the last)."""
        if graph_trace() is not None:
            return read_optional(self.element_spec, self._pull)
        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(self.element_spec)

    def next(self):
        """The next element (``next(iterator)``; StopIteration after the last)."""
        return next(self)

    # TF 1's structure properties, which TF 2 keeps on its iterators (deprecated there for ``element_spec``)
    @property
    def output_types(self):
        """The dtype of every component of the elements (the structure of ``element_spec``)."""
        return _map_specs(lambda spec: spec.dtype, self.element_spec)

    @property
    def output_shapes(self):
        """The TensorShape of every component of the elements."""
        return _map_specs(lambda spec: spec.shape, self.element_spec)

    @property
    def output_classes(self):
        """The Python type of every component of the elements: ``tf.Tensor`` or ``tf.SparseTensor``; as TF, other
        components (ragged tensors...) give their spec."""
        return _map_specs(lambda spec: spec.value_type if isinstance(spec, (TensorSpec, SparseTensorSpec)) else spec,
                          self.element_spec)


def _map_specs(fn, element_spec):
    return nest.map_structure(fn, element_spec)


def _numpy(leaf):
    return leaf.numpy()


class NumpyIterator:
    """``dataset.as_numpy_iterator()``: elements with numpy leaves (scalars as numpy scalars, strings as bytes)."""

    def __init__(self, dataset):
        self._iterator = OwnedIterator(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        element = next(self._iterator)
        if isinstance(element, tuple) and type(element) is tuple and all(hasattr(x, "numpy") for x in element):
            return tuple([x.numpy() for x in element])
        if not structure.is_structure(element):
            return element.numpy()
        return structure.map_structure(_numpy, element)

    next = __next__

    def __repr__(self):
        return f"NumpyIterator(iterator={self._iterator!r})"
