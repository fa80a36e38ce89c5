"""Reading an iterator inside a traced tf.function: ``next(iterator)``, ``get_next()``, ``get_next_as_optional()``.

TF's IteratorGetNext is an op of the function's graph: every call of the function pulls the next
element from the iterator's state.  vfw records a PyFunc op whose callback pulls the next element
from the Python iterator at every run of the graph.  The graph passes treat PyFunc ops as stateful
(never merged, folded or pruned away) and the executor runs them in graph order, so two reads give
two elements, in the order the function asked for them.

- The tracing run of a read at the top of the function is a real read: it is the first call's element.
- The tracing run of a control-flow body (``tf.while_loop``, a converted ``while``) reads nothing: it
  sees zeros of the element spec (its unknown dims of size 2); the body's op reads when the graph runs.
- The dims the element spec leaves unknown (a partial last batch) follow each run's element.
- At the end of the sequence the op raises ``tf.errors.OutOfRangeError`` ("End of sequence"), as TF's
  (``next()`` too: inside a function TF's graph raises, it does not stop a Python loop).

``Dataset.reduce`` inside a traced function is a graph loop over the dataset (:func:`reduce_in_graph`).
"""

import numpy as np

from vfw.core.graph.subgraph import tracing_subgraph
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _context_ops, _dispatch
from vfw.frontends.tensorflow._optional import Optional, OptionalSpec
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow._traced_shapes import checked_at_run, value_shaped
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import out_of_range


def graph_trace():
    """The graph trace an iterator read made now is recorded into (None when running eagerly)."""
    return current_trace() if _tracing else None


def pulled(pull):
    """``pull()`` outside a graph trace; inside a tf.function that runs eagerly (a call under a recording tape), the
    end raises OutOfRangeError, as the graph's read does, rather than StopIteration."""
    from vfw.frontends.tensorflow._function import in_function_trace

    if not in_function_trace():
        return pull()
    try:
        return pull()
    except StopIteration:
        raise out_of_range() from None


class reading:  # noqa: N801  (a context manager used as a statement)
    """The dataset code a read's callback runs executes eagerly, outside the traces (and may read datasets)."""

    def __enter__(self):
        from vfw.frontends.tensorflow import _function

        self._scope = _context_ops.init_scope()
        self._datasets = _function.reading_datasets()
        self._scope.__enter__()
        self._datasets.__enter__()

    def __exit__(self, *exc):
        self._datasets.__exit__(*exc)
        return self._scope.__exit__(*exc)


def _leaves(spec):
    leaves = structure.flatten(spec)
    for leaf in leaves:
        if not isinstance(leaf, TensorSpec):
            raise NotImplementedError(f"vfw.tensorflow: reading an iterator inside tf.function is supported for "
                                      f"elements of dense tensors only, not {spec!r}: read it outside the function "
                                      "and pass the element")
    return leaves


def _components(element, leaves):
    """The flat arrays of ``element`` as the op's outputs (each the dtype of its spec leaf)."""
    values = structure.flatten(element)
    return tuple(np.asarray(_dispatch.convert_to_tensor(v).array, dtype=leaf.dtype.np)
                 for v, leaf in zip(values, leaves))


def _relaxed(tensors, leaves):
    """Note the dims the spec leaves unknown as following each run's values."""
    for leaf, tensor in zip(leaves, tensors):
        dims = leaf.shape.as_list() if leaf.shape.rank is not None else None
        if dims is None or None in dims:
            value_shaped(tensor, dims)


def read_next(spec, pull):
    """The next element (of ``spec``) that ``pull()`` gives, read by an op of the graph being traced.

    Parameters
    ----------
    spec : nested structure of TensorSpec
        The element spec (the iterator's).
    pull : callable
        Gives the next element eagerly, or raises StopIteration at the end.
    """
    leaves = _leaves(spec)
    example = tuple(structure.example_component(leaf, 2, 0) for leaf in leaves)

    def get_next():
        if tracing_subgraph():
            return example
        with reading():
            try:
                element = pull()
            except StopIteration:
                raise out_of_range() from None
            return _components(element, leaves)

    outputs = _dispatch.callback(graph_trace(), get_next)
    _relaxed(outputs, leaves)
    return structure.packer(spec)([t.array for t in outputs])


def read_optional(spec, pull):
    """``get_next_as_optional()`` in the graph being traced: an Optional whose ``has_value()`` is the op's output."""
    leaves = _leaves(spec)
    example = tuple(structure.example_component(leaf, 2, 0) for leaf in leaves)
    empty = tuple(structure.example_component(leaf, 0, 0) for leaf in leaves)

    def get_next():
        if tracing_subgraph():
            return (np.ones((), np.bool_), *example)
        with reading():
            try:
                element = pull()
            except StopIteration:
                return (np.zeros((), np.bool_), *empty)
            return (np.ones((), np.bool_), *_components(element, leaves))

    outputs = _dispatch.callback(graph_trace(), get_next)
    _relaxed(outputs[1:], leaves)
    optional = _ReadOptional._make(structure.packer(spec)([t.array for t in outputs[1:]]), spec)
    optional._has = outputs[0]
    return optional


def _check_has_value(has):
    if not has:
        from vfw.frontends.tensorflow._function import run_time_error

        raise run_time_error("The given optional does not have a value.", "OptionalGetValue")


class _ReadOptional(Optional):
    """An Optional read in the graph: whether it holds a value is known when the graph runs.

    A composite value (see ``_composites``): graph control flow carries it as its tensors (``has_value()`` and the
    value's), so it may be a loop variable (``while optional.has_value(): ... optional = it.get_next_as_optional()``).
    """

    @property
    def _type_spec(self):
        return _ReadOptionalSpec(self._spec)

    def has_value(self, name=None):
        """A scalar bool tensor: whether the read found an element."""
        return self._has

    def get_value(self, name=None):
        """The element read (InvalidArgumentError when the graph runs a read that found none, as TF)."""
        checked_at_run(_check_has_value, self._has)
        return self._value

    def __repr__(self):
        return f"<tf.experimental.Optional element_spec={self._spec!r}>"


class _ReadOptionalSpec(OptionalSpec):
    """The spec of a :class:`_ReadOptional`: its components are ``has_value()`` and the value's tensors."""

    def _to_components(self, value):
        return [value._has, *structure.flatten(value._value)]

    def _from_components(self, components):
        optional = _ReadOptional._make(structure.pack(self._element_spec, list(components[1:])), self._element_spec)
        optional._has = components[0]
        return optional

    def _undecided(self):
        return False

    def _component_invariants(self):
        # The value's unknown dims (a partial last batch) may change from one iteration to the next.
        return [None] + [None if leaf.shape.is_fully_defined() else leaf.shape
                         for leaf in structure.flatten(self._element_spec)]


def reduce_in_graph(dataset, initial_state, reduce_func):
    """``dataset.reduce(initial_state, reduce_func)`` inside a traced tf.function: a graph loop over the dataset's
    elements read at every call (see ``_autograph_datasets.for_dataset``), ``reduce_func`` converted by AutoGraph
    and traced as its body, as TF traces it as a dataset function."""
    from vfw.frontends.tensorflow._autograph_datasets import for_dataset
    from vfw.frontends.tensorflow._autograph_runtime import convert
    from vfw.frontends.tensorflow.data._functional import check_state, initial_state_of, normalized_output

    state, state_spec = initial_state_of(initial_state)
    _leaves(state_spec)
    init = [_dispatch.as_tf(_dispatch.convert_to_tensor(leaf)) for leaf in structure.flatten(state)]
    function = convert(reduce_func)

    def body(element, *flat_state):
        new_state = normalized_output(function(structure.pack(state_spec, list(flat_state)), element))
        check_state(structure.structure_of(new_state), state_spec)
        return tuple(structure.flatten(new_state))

    names = tuple(f"reduce_state_{k}" for k in range(len(init)))
    final = for_dataset(dataset, None, body, init, names, names, {})
    return structure.pack(state_spec, list(final))
