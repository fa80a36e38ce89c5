"""tf.distribute's input and run options and the base types of distributed values, datasets and iterators.

vfw's strategies have one replica per process, so ``strategy.run`` returns this replica's plain values (TF, on
one device, returns plain tensors too); ``DistributedValues`` exists for ``isinstance`` checks.  A distributed
dataset iterates this replica's slice of every global batch (all of them, as per-replica batches, when the
dataset's ``auto_shard_policy`` is ``OFF``; the batches of this worker's files, when a multi-worker strategy
shards a dataset reading files by FILE).
"""

import collections
import enum

import numpy as np

__all__ = ["DistributedDataset", "DistributedDatasetsFromFunction", "DistributedIterator", "DistributedValues",
           "InputOptions", "InputReplicationMode", "RunOptions"]


class InputReplicationMode(enum.Enum):
    """Whether an input pipeline serves one worker (``PER_WORKER``) or one replica (``PER_REPLICA``)."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


_InputOptionsFields = collections.namedtuple("InputOptions", [
    "experimental_fetch_to_device", "experimental_replication_mode", "experimental_place_dataset_on_device",
    "experimental_per_replica_buffer_size"])


class InputOptions(_InputOptionsFields):
    """How ``experimental_distribute_dataset`` places and replicates its input (accepted; vfw runs on the CPU).

    ``experimental_fetch_to_device`` defaults to True, as in TF.
    """

    __slots__ = ()

    def __new__(cls, experimental_fetch_to_device=None, experimental_replication_mode=InputReplicationMode.PER_WORKER,
                experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(cls, experimental_fetch_to_device, experimental_replication_mode,
                               experimental_place_dataset_on_device, experimental_per_replica_buffer_size)


_RunOptionsFields = collections.namedtuple("RunOptions", [
    "experimental_enable_dynamic_batch_size", "experimental_bucketizing_dynamic_shape", "experimental_xla_options"])


class RunOptions(_RunOptionsFields):
    """Options of ``strategy.run`` (TPU compilation options in TF; accepted)."""

    __slots__ = ()

    def __new__(cls, experimental_enable_dynamic_batch_size=True, experimental_bucketizing_dynamic_shape=False,
                experimental_xla_options=None):
        return super().__new__(cls, experimental_enable_dynamic_batch_size, experimental_bucketizing_dynamic_shape,
                               experimental_xla_options)


class DistributedValues:
    """Base type of values that hold one value per replica (vfw's strategies return plain values)."""


class DistributedIterator:
    """Iterator over a distributed dataset: ``next``, ``get_next``, ``get_next_as_optional`` and ``element_spec``.

    Inside a traced tf.function each read is an op of the graph pulling the next element at every call, as
    TF's (see ``data._graph_reads``).
    """

    _tf_trace_kind = "distributed_iterator"  # a tf.function's trace type: this and the element spec

    def __init__(self, iterator, shard, element_spec, read_spec):
        self._iterator = iterator  # the dataset's iterator
        self._shard = shard  # this replica's part of an element
        self.element_spec = element_spec
        self._read_spec = read_spec  # the spec of this replica's part

    def __iter__(self):
        return self

    def _pull(self):
        return self._shard(next(self._iterator))

    def __next__(self):
        from vfw.frontends.tensorflow.data._graph_reads import graph_trace, pulled, read_next

        if graph_trace() is not None:
            return read_next(self._read_spec, self._pull)
        return pulled(self._pull)

    def get_next(self):
        """The next element; ``tf.errors.OutOfRangeError`` at the end, as TF's iterator op."""
        from vfw.frontends.tensorflow.data._dataset import out_of_range

        try:
            return next(self)
        except StopIteration:
            raise out_of_range() from None

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` (empty at the end)."""
        from vfw.frontends.tensorflow.data._graph_reads import graph_trace, read_optional
        from vfw.frontends.tensorflow.data._iterator import Optional

        if graph_trace() is not None:
            return read_optional(self._read_spec, self._pull)
        try:
            return Optional.from_value(self._pull())
        except StopIteration:
            return Optional.empty(self.element_spec)


def _per_replica_spec(spec):
    """``spec`` with the batch dim unknown: a replica's slice of a global batch may be one row shorter."""
    from vfw.frontends.tensorflow import nest
    from vfw.frontends.tensorflow._tensor_spec import TensorSpec

    def relaxed(leaf):
        if isinstance(leaf, TensorSpec) and leaf.shape.rank:
            return TensorSpec([None] + leaf.shape.as_list()[1:], leaf.dtype, leaf.name)
        return leaf
    return nest.map_structure(relaxed, spec)


class DistributedDataset:
    """This replica's part of a dataset: iterating yields this replica's slice of every global batch."""

    _per_replica = False  # whether ``_dataset`` already gives this replica's batches (else global batches)
    _tf_trace_kind = "distributed_dataset"  # a tf.function's trace type: this and the element spec

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset
        self.element_spec = getattr(dataset, "element_spec", None)
        self._worker_files = _worker_files(strategy, dataset) if not self._per_replica else None

    @property
    def cardinality(self):
        """int: the number of batches (``tf.data.INFINITE_CARDINALITY``/``UNKNOWN_CARDINALITY`` as tf.data)."""
        return int(self._dataset.cardinality())

    @property
    def _read_spec(self):
        """The spec of this replica's elements (what a read inside tf.function gives)."""
        if self._per_replica or self._strategy.num_replicas_in_sync == 1:
            return self.element_spec
        return _per_replica_spec(self.element_spec)

    def __iter__(self):
        from vfw.frontends.tensorflow._autograph_datasets import InFunctionIterator
        from vfw.frontends.tensorflow.data._graph_reads import graph_trace

        if graph_trace() is not None and hasattr(self._dataset, "element_spec"):
            return InFunctionIterator(self)  # a new iteration at every call of the function being traced
        if self._worker_files is not None:  # FILE sharding: this worker's files, as per-replica batches
            batches = _every_replica_batches(iter(self._worker_files), self._strategy)
            return DistributedIterator(_in_step(batches, self._strategy, self.element_spec), _same,
                                       self.element_spec, self._read_spec)
        if not self._per_replica and _shard_policy(self._dataset) == "OFF" and \
                hasattr(self._strategy, "every_replica_batch"):
            batches = _every_replica_batches(iter(self._dataset), self._strategy)
            return DistributedIterator(batches, _same, self.element_spec, self._read_spec)
        shard = _same if self._per_replica else self._strategy.shard_batch
        return DistributedIterator(iter(self._dataset), shard, self.element_spec, self._read_spec)

    def reduce(self, initial_state, reduce_func):
        """``reduce_func(state, element)`` folded over the elements from ``initial_state``."""
        state = initial_state
        for element in self:
            state = reduce_func(state, element)
        return state


def _same(element):
    return element


def _shard_policy(dataset):
    """The name of ``dataset``'s ``experimental_distribute.auto_shard_policy`` (``"AUTO"`` by default)."""
    options = dataset.options() if hasattr(dataset, "options") else None
    policy = getattr(getattr(options, "experimental_distribute", None), "auto_shard_policy", None)
    return getattr(policy, "name", "AUTO")


def _worker_files(strategy, dataset):
    """The dataset reading this worker's files (TF's FILE sharding, for the AUTO and FILE policies of a
    multi-worker strategy), or None: not sharded by file."""
    from vfw.frontends.tensorflow.distribute import MultiWorkerMirroredStrategy
    from vfw.frontends.tensorflow.distribute._file_shards import file_sharded

    policy = _shard_policy(dataset)
    if policy not in ("AUTO", "FILE") or not isinstance(strategy, MultiWorkerMirroredStrategy) or \
            strategy.num_replicas_in_sync == 1 or not hasattr(dataset, "_inputs_opened_with_iterator"):
        return None
    return file_sharded(dataset, strategy.num_replicas_in_sync, strategy._rank, policy)


def _in_step(batches, strategy, spec):
    """``batches``, then empty batches until every worker's have ended (workers reading other files may have
    more batches: TF gives the others empty ones).  One collective per batch: every worker must iterate."""
    from vfw.frontends.tensorflow.distribute import _rows_of

    empty = None
    while True:
        batch = next(batches, _NOTHING)
        more = np.array(batch is not _NOTHING, np.int32)
        if not strategy._group.all_reduce(more, op="max"):
            return
        if batch is _NOTHING:
            yield _empty_batch(spec) if empty is None else empty
            continue
        empty = _rows_of(batch, 0, 0)
        yield batch


def _empty_batch(spec):
    """A batch of no rows for the element ``spec`` (unknown inner dims are 0)."""
    from vfw.frontends.tensorflow import _dispatch, nest

    def empty(leaf):
        dims = [0] + [0 if d is None else d for d in leaf.shape.as_list()[1:]]
        return _dispatch.convert_to_tensor(np.zeros(dims, leaf.dtype.as_numpy_dtype))
    return nest.map_structure(empty, spec)


def _every_replica_batches(iterator, strategy):
    """Unsharded input (``AutoShardPolicy.OFF``): each global batch as this worker's per-replica batches."""
    from vfw.frontends.tensorflow.distribute import _batch_rows

    full_rows = None  # the first batch's size: TF splits every batch by the full batch size
    batch = _NOTHING
    for following in iterator:  # one batch behind: the last one may end with an empty batch
        if batch is not _NOTHING:
            yield from strategy.every_replica_batch(batch, full_rows)
        batch = following
        full_rows = _batch_rows(batch) if full_rows is None else full_rows
    if batch is not _NOTHING:
        yield from strategy.every_replica_batch(batch, full_rows, last=True)


_NOTHING = object()


class DistributedDatasetsFromFunction(DistributedDataset):
    """What ``distribute_datasets_from_function`` returns: the function's dataset gives this replica's batches."""

    _per_replica = True
