"""What a traced tf.function receives for an iterator argument (see ``_function_arguments``).

Its reads are ops of the graph that pull from the iterator the call passed (the tf.function's slot
for the argument holds it when the graph runs): one graph serves every iterator of the spec.
"""

from vfw.frontends.tensorflow.data._graph_reads import graph_trace, read_next, read_optional
from vfw.frontends.tensorflow.data._iterator import Iterator


class IteratorParameter(Iterator):
    """What a traced tf.function gets for an iterator argument: its reads pull from the iterator of each call.

    Outside graph traces (the callbacks of the read ops, eager code) it reads the call's iterator directly.
    """

    _tf_trace_kind = "iterator"

    def __init__(self, slot):
        self._slot = slot
        iterator = slot.current
        self._spec = iterator.element_spec
        self._read_spec = getattr(iterator, "_read_spec", self._spec)  # (a replica's part of distributed elements)

    @property
    def element_spec(self):
        return self._spec

    def _pull(self):
        return next(self._slot.current)

    def __iter__(self):
        return self

    def __next__(self):
        if graph_trace() is not None:
            return read_next(self._read_spec, self._pull)
        return next(self._slot.current)

    def get_next(self):
        if graph_trace() is not None:
            return read_next(self._read_spec, self._pull)
        return self._slot.current.get_next()

    def get_next_as_optional(self):
        if graph_trace() is not None:
            return read_optional(self._read_spec, self._pull)
        return self._slot.current.get_next_as_optional()

    def __getattr__(self, name):
        # other attributes (``output_types``...) are the call's iterator's, which has the same element spec
        if name.startswith("__") or name in ("_slot", "_spec", "_read_spec"):
            raise AttributeError(name)
        return getattr(self._slot.current, name)
