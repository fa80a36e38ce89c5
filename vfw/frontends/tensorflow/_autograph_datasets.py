"""AutoGraph's ``for`` over a ``tf.data`` dataset (or iterator) inside tf.function: a graph loop.

As TF's MakeIterator / IteratorGetNext, three PyFunc ops run the dataset's Python iterator at
every call of the traced function, so each call reads the elements of its own iteration (a
reshuffled order, new random ``map`` draws, a generator run again):

- *start*, before the loop: a fresh iterator of the dataset (an iterator made outside the
  function is read where it stands, as TF reads its captured iterator);
- *more*, the loop's test: fetches the next element and tells whether there was one;
- *take*, at the top of the body: the element fetched, as the body's tensors.

The loop variables follow AutoGraph's rules for tensor loops (:mod:`_autograph_control`); a
variable used after the loop must be defined before it (TF's ValueError).  The element's dims
that ``element_spec`` leaves unknown (a partial last batch) may change from one iteration to the
next: the body's tracing run sees zeros with those dims of size 2, and the traced body is marked
as following run-time shapes.  The tracing runs of control-flow bodies read nothing (their ops
read when the graph runs).
"""

import numpy as np

from vfw.core.graph.subgraph import tracing_subgraph
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _autograph_control, _control_flow, _dispatch, _function, _variables
from vfw.frontends.tensorflow._traced_shapes import value_shaped
from vfw.frontends.tensorflow.data._graph_reads import reading as _reading


def _dataset_class():
    from vfw.frontends.tensorflow.data._dataset import Dataset

    return Dataset


def _iterator_class():
    from vfw.frontends.tensorflow.data._iterator import Iterator

    return Iterator


class InFunctionIterator:
    """``iter(dataset)`` called inside a traced tf.function: a new iterator at every call of the function.

    ``dataset`` is a ``tf.data.Dataset`` or a distributed dataset.  A ``for`` loop over it is a dataset
    loop; ``next()``, ``get_next()`` and ``get_next_as_optional()`` are ops of the graph reading the
    iterator of the call (see ``data._graph_reads``).
    """

    def __init__(self, dataset):
        self.dataset = dataset
        self._live = None  # the iterator of this run of the graph, made at its first read
        trace = current_trace()
        if trace is not None:
            # (a PyFunc op where iter() is called: each run of the graph, or of the loop body calling iter(),
            # starts a new iteration)
            _dispatch.callback(trace, self._restart)

    def _restart(self):
        if not tracing_subgraph():
            self._live = None
        return np.zeros((), np.bool_)

    def _pull(self):
        if self._live is None:
            self._live = iter(self.dataset)
        return next(self._live)

    @property
    def element_spec(self):
        return self.dataset.element_spec

    def __iter__(self):
        return self

    @property
    def _read_spec(self):
        """The spec of the elements read (a replica's part of a distributed dataset's)."""
        return getattr(self.dataset, "_read_spec", self.dataset.element_spec)

    def __next__(self):
        from vfw.frontends.tensorflow.data._graph_reads import read_next

        return read_next(self._read_spec, self._pull)

    def get_next(self):
        """The next element (``tf.errors.OutOfRangeError`` when the graph reads past the last)."""
        return next(self)

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` whose ``has_value()`` the graph computes."""
        from vfw.frontends.tensorflow.data._graph_reads import read_optional

        return read_optional(self._read_spec, self._pull)


def is_source(x):
    """Whether ``x`` is what a converted ``for`` iterates as a graph dataset loop inside tf.function."""
    from vfw.frontends.tensorflow.distribute._values import DistributedDataset, DistributedIterator

    # (tf.data.Iterator: an iterator made outside, or the argument standing for the iterator of each call)
    return isinstance(x, (InFunctionIterator, _dataset_class(), _iterator_class(), DistributedDataset,
                          DistributedIterator))


def is_dataset(x):
    """Whether ``x`` is a ``tf.data.Dataset``."""
    return isinstance(x, _dataset_class())


def iterator_in_function(dataset):
    """``iter(dataset)`` in converted code while a tf.function is traced (None when ``dataset`` is not one)."""
    if is_dataset(dataset) and _function.in_function_trace():
        return InFunctionIterator(dataset)
    return None


class _Reader:
    """The Python iteration one run of the graph performs (the callbacks of its PyFunc ops)."""

    def __init__(self, source):
        from vfw.frontends.tensorflow.data import _structure

        dataset = source.dataset if isinstance(source, InFunctionIterator) else source
        spec = getattr(dataset, "_read_spec", dataset.element_spec)  # (a replica's part of distributed elements)
        leaves = _structure.flatten(spec)
        for leaf in leaves:
            if isinstance(leaf, _structure.DatasetSpec):
                raise NotImplementedError(f"vfw.tensorflow: a `for` loop inside tf.function over a dataset whose "
                                          f"elements hold datasets ({spec!r}) is not supported: iterate outside the "
                                          "function")
        self.source = source
        self.spec = spec
        self.leaves = leaves
        # Unknown dims of 2, not 1: a dim of 1 broadcasts, so the gradients traced on it (a bias added to a batch)
        # could not follow the batches of later runs.
        self.example = tuple(_structure.example_component(leaf, 2, 0) for leaf in leaves)
        self.iterator = None
        self.pending = None

    def start(self):
        if not tracing_subgraph():
            with _reading():
                source = self.source
                if isinstance(source, InFunctionIterator):
                    source = source.dataset
                self.iterator = iter(source)  # a new one of a dataset; an iterator is read where it stands
            self.pending = None
        return np.zeros((), np.bool_)

    def more(self, *_):
        """Fetch the next element; whether there was one."""
        if tracing_subgraph():
            return np.zeros((), np.bool_)
        if self.iterator is None:
            raise RuntimeError("vfw.tensorflow: a dataset loop read before its iterator was made")
        with _reading():
            try:
                element = next(self.iterator)
            except StopIteration:
                self.pending = None
                return np.zeros((), np.bool_)
        from vfw.frontends.tensorflow.data import _structure

        self.pending = tuple(_dispatch.convert_to_tensor(leaf).array for leaf in _structure.flatten(element))
        return np.ones((), np.bool_)

    def take(self, *_):
        """The element ``more`` fetched (during a tracing run: zeros of the element's spec), and an order token."""
        if tracing_subgraph():
            components = self.example
        else:
            components, self.pending = self.pending, None
            if components is None:
                raise RuntimeError("vfw.tensorflow: a dataset loop's body ran without an element")
        return (*components, np.zeros((), np.bool_))


def for_dataset(source, extra_test, body, init, names, live, options):
    """The values of ``names`` after ``for item in source: body(item, ...)`` as a graph loop (see the module)."""
    from vfw.frontends.tensorflow.data import _structure

    reader = _Reader(source)
    trace = current_trace()
    token = [_dispatch.callback(trace, reader.start)[0]]
    pack = _structure.packer(reader.spec)

    def fetch():
        return _dispatch.callback(current_trace(), reader.more, token[0])[0]

    def test(*state):
        if extra_test is None:
            return fetch()
        going = extra_test(*state)
        if going is True or going is False:
            return fetch() if going else _dispatch.wrap(np.zeros((), np.bool_))
        return _control_flow.cond(going, fetch, lambda: _dispatch.wrap(np.zeros((), np.bool_)))

    def step(*state):
        outputs = _dispatch.callback(current_trace(), reader.take)
        token[0] = outputs[-1]
        components = []
        for leaf, tensor in zip(reader.leaves, outputs[:-1]):
            dims = leaf.shape.as_list() if leaf.shape.rank is not None else None
            if dims is None or None in dims:
                value_shaped(tensor, dims)
            components.append(tensor.array)
        # TF runs the body as a dataset function (a graph of its own): the variables it creates (a Keras
        # optimizer's slots on the first step) are not the function's, so they do not make it trace again.
        with _variables.creator_scopes_suspended():
            return body(pack(components), *state)

    loop = _autograph_control._GraphLoop(names, live, options, undefined_zeros=False)
    return loop.run(tuple(init), test, step)
