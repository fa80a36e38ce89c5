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
from vfw.frontends.tensorflow import _autograph_control, _context_ops, _control_flow, _dispatch, _function, _variables
from vfw.frontends.tensorflow._traced_shapes import value_shaped


def _dataset_class():
    from vfw.frontends.tensorflow.data._dataset import Dataset

    return Dataset


def _owned_iterator_class():
    from vfw.frontends.tensorflow.data._iterator import OwnedIterator

    return OwnedIterator


class InFunctionIterator:
    """``iter(dataset)`` called inside a traced tf.function: a new iterator at every call of the function.

    A ``for`` loop over it is a dataset loop; reading it with ``next()`` in the function is not supported.
    """

    def __init__(self, dataset):
        self.dataset = dataset

    @property
    def element_spec(self):
        return self.dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        raise NotImplementedError("vfw.tensorflow: next() on an iterator made inside a tf.function is not supported "
                                  "(the traced graph would replay the elements read while tracing): loop over it "
                                  "with `for`, or iterate outside the function")

    get_next = __next__


def is_source(x):
    """Whether ``x`` is what a converted ``for`` iterates as a graph dataset loop inside tf.function."""
    return isinstance(x, (InFunctionIterator, _dataset_class(), _owned_iterator_class()))


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
        spec = dataset.element_spec
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
                self.iterator = _owned_iterator_class()(source) if isinstance(source, _dataset_class()) else source
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


class _reading:  # noqa: N801  (a context manager used as a statement)
    """The dataset code a callback runs executes eagerly, outside the traces (and may read datasets)."""

    def __enter__(self):
        self._scope = _context_ops.init_scope()
        self._datasets = _function.reading_datasets()
        self._scope.__enter__()
        self._datasets.__enter__()

    def __exit__(self, *exc):
        self._datasets.__exit__(*exc)
        return self._scope.__exit__(*exc)


def for_dataset(source, extra_test, body, init, names, live, options):
    """The values of ``names`` after ``for item in source: body(item, ...)`` as a graph loop (see the module)."""
    from vfw.core.graph.trace import current_trace
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
