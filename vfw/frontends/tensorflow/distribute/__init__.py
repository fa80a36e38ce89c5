"""tf.distribute over MPI: ``MultiWorkerMirroredStrategy`` and ``MirroredStrategy`` with one replica per process.

Every process an MPI launcher started (``python -m vfw.distributed.run --nproc N script.py`` or ``mpirun -n
N python script.py``) is one replica and one worker; collectives go through vfw's engine process group
(:mod:`vfw.core.distributed`).  Inside ``strategy.scope()`` new variables start from rank 0's values;
``strategy.run(fn)`` runs ``fn`` on this process's replica; ``strategy.reduce`` and a replica context's
``all_reduce`` combine values over the processes; ``experimental_distribute_dataset`` gives each replica
its slice of every global batch (TF's DATA sharding: the larger slices first; ``AutoShardPolicy.OFF``: every
worker reads each global batch whole, as per-replica batches; AUTO and FILE under
``MultiWorkerMirroredStrategy``: a dataset reading files gives each worker whole files, as TF, see
``_file_shards.py``); Keras optimizers created under the scope sum gradients over the replicas
(Keras divides each replica's loss by the number of replicas, so the update is that of the global batch).

Variables created ON_READ inside the scope (Keras metrics' state) are ``SyncOnReadVariable``s: each replica
updates its own copy inside ``strategy.run`` (and in Keras' steps) and a read outside it combines the copies over
every process (a collective: every worker must read, as in TF).  Keras ``fit``/``evaluate`` run each step in a
replica context on the replica's slice of the global batch; as Keras on TF, callbacks get each batch's logs
averaged over the replicas and each epoch's metrics combined over all the data, and ``train_on_batch`` gives
every replica the whole batch.

Every process must shuffle alike (the same seed, as TF's DATA sharding needs too), since each takes its slice
of the same global batch.  Differences from TF: one replica per process (``devices`` and cluster resolvers are
accepted, the MPI launcher decides the processes); values of ``strategy.run`` are this replica's (``PerReplica``
values do not exist: ``experimental_local_results`` returns a 1-tuple).
"""

import contextlib
import enum
import threading

import numpy as np

from vfw.core import distributed as _engine
from vfw.core.distributed import DistributedError
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dispatch, _variables, nest
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow.distribute import cluster_resolver, experimental
from vfw.frontends.tensorflow.distribute import cluster_resolver as _cluster_resolver
from vfw.frontends.tensorflow.distribute._buckets import all_reduce_tensors
from vfw.frontends.tensorflow.distribute._cross_device import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from vfw.frontends.tensorflow.distribute._extended import CPU_DEVICE, StrategyExtended
from vfw.frontends.tensorflow.distribute._gather import gather_uneven
from vfw.frontends.tensorflow.distribute._sync_on_read import is_sync_on_read, make_sync_on_read
from vfw.frontends.tensorflow.distribute._values import (
    DistributedDataset,
    DistributedDatasetsFromFunction,
    DistributedIterator,
    DistributedValues,
    InputOptions,
    InputReplicationMode,
    RunOptions,
)
from vfw.frontends.tensorflow.distribute.experimental import CommunicationOptions

__all__ = ["CrossDeviceOps", "DistributedDataset", "DistributedIterator", "DistributedValues",
           "HierarchicalCopyAllReduce", "InputContext", "InputOptions", "InputReplicationMode", "MirroredStrategy",
           "MultiWorkerMirroredStrategy", "NcclAllReduce", "OneDeviceStrategy", "ReduceOp", "ReductionToOneDevice",
           "ReplicaContext", "RunOptions", "Strategy", "StrategyExtended", "cluster_resolver", "experimental",
           "experimental_set_strategy", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context"]


class ReduceOp(enum.Enum):
    """How ``reduce``/``all_reduce`` combine the replicas' values."""

    SUM = "SUM"
    MEAN = "MEAN"


_ENGINE_REDUCTIONS = {ReduceOp.SUM: "sum", ReduceOp.MEAN: "avg"}


def _reduce_op(op):
    if isinstance(op, str):
        return ReduceOp(op.upper())  # TF's ValueError: "'MAX' is not a valid ReduceOp"
    if isinstance(op, ReduceOp):
        return op
    raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN (or 'SUM'/'MEAN'), got {op!r}")


_CROSS_REPLICA_ONLY = "Method requires being in cross-replica context, use get_replica_context().merge_call()"
_STRATEGY_NAME = "tf.distribute.Strategy"


class _Contexts(threading.local):
    def __init__(self):
        self.scopes = []  # strategies whose scope() is open, innermost last
        self.replica = []  # ReplicaContexts of running strategy.run calls
        self.global_scope = None  # the open scope of experimental_set_strategy's strategy


_contexts = _Contexts()


class InputContext:
    """What ``distribute_datasets_from_function``'s function learns: its pipeline and the replica count."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """``global_batch_size / num_replicas_in_sync`` (a ValueError when it does not divide)."""
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync} ")  # TF's trailing space
        return global_batch_size // self.num_replicas_in_sync


class ReplicaContext:
    """The context ``strategy.run``'s function runs in: its replica id and all-reduces over the replicas."""

    def __init__(self, strategy):
        self.strategy = strategy

    @property
    def num_replicas_in_sync(self):
        return self.strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        if self.strategy is _DEFAULT:  # TF's default replica context gives a Python int
            return 0
        return convert_to_tensor(np.int32(self.strategy._rank))

    @property
    def devices(self):
        """The devices of this replica (a tuple of device strings; ``("",)`` for the default strategy)."""
        return ("",) if self.strategy is _DEFAULT else (CPU_DEVICE,)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` in cross-replica context (one replica: its values as they are)."""
        replica = _contexts.replica.pop() if _contexts.replica and _contexts.replica[-1] is self else None
        try:
            return merge_fn(self.strategy, *args, **(kwargs or {}))
        finally:
            if replica is not None:
                _contexts.replica.append(replica)

    def all_gather(self, value, axis, options=None):
        """Every replica's ``value`` (a nested structure of tensors) concatenated along ``axis`` (rank order)."""
        return nest.map_structure(lambda v: self.strategy._gather(v, axis), value)

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a nested structure of tensors) reduced over every replica; every replica gets it."""
        op = _reduce_op(reduce_op)
        flat = [convert_to_tensor(v) for v in nest.flatten(value)]
        return nest.pack_sequence_as(value, self.strategy.batch_all_reduce(op, flat))


class Strategy:
    """A distribution strategy; this base class is TF's default strategy: one replica, this process."""

    _has_devices = False  # the default strategy has no devices of its own (TF's extended raises for them)
    _between_graph = False  # whether each worker runs its own program (multi-worker strategies)

    def __init__(self, extended=None):
        self.extended = extended if extended is not None else StrategyExtended(self, self._between_graph)

    @property
    def num_replicas_in_sync(self):
        return 1

    @property
    def _rank(self):
        return 0

    @property
    def cluster_resolver(self):
        return None

    def batch_all_reduce(self, reduce_op, tensors):
        """Each of ``tensors`` reduced over the replicas (vfw's; one collective per bucket, traceable)."""
        return list(tensors)

    def _require_cross_replica(self, message=_CROSS_REPLICA_ONLY):
        if _contexts.replica:
            raise RuntimeError(message)

    def scope(self):
        """Make this the current strategy; variables created inside start from rank 0's values.

        Raises
        ------
        RuntimeError
            Inside ``strategy.run`` (a replica context), or inside another strategy's scope.
        """
        self._require_cross_replica()
        return self._scope()

    @contextlib.contextmanager
    def _scope(self):
        current = get_strategy()
        if current is not _DEFAULT and current is not self:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {current} is not {self}")
        _contexts.scopes.append(self)
        try:
            with _variables.variable_creator_scope(self._create_variable):
                yield self
        finally:
            _contexts.scopes.pop()

    def _create_variable(self, next_creator, **kwargs):
        variable = next_creator(**kwargs)
        self.extended._record_created(variable)
        return variable

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on this process's replica, in a replica context."""
        self._require_cross_replica()
        _contexts.replica.append(ReplicaContext(self))
        try:
            with self._scope():
                return fn(*args, **(kwargs or {}))
        finally:
            _contexts.replica.pop()

    def reduce(self, reduce_op, value, axis=None):
        """Combine ``value`` over the replicas (and over ``axis`` of each, when given): a tensor every process gets."""
        self._require_cross_replica()
        op = _reduce_op(reduce_op)
        if isinstance(self, MultiWorkerMirroredStrategy) and isinstance(value, dict):  # TF converts the value
            raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a "
                             "Tensor.")
        if nest.is_nested(value):  # TF's one-device strategies return each tensor of a nested structure
            return nest.map_structure(lambda v: self.reduce(op, v, axis), value)
        value = convert_to_tensor(value)
        if axis is None:
            return self.batch_all_reduce(op, [value])[0]
        import vfw.tensorflow as tf

        total = self.batch_all_reduce(ReduceOp.SUM, [tf.reduce_sum(value, axis=axis)])[0]
        if op is ReduceOp.SUM:
            return total
        count = self.batch_all_reduce(ReduceOp.SUM, [convert_to_tensor(np.float64(value.shape[axis]))])[0]
        return total / tf.cast(count, total.dtype)

    def gather(self, value, axis):
        """Every replica's ``value`` (a nested structure of tensors) concatenated along ``axis`` (rank order)."""
        self._require_cross_replica(f"{_STRATEGY_NAME}.gather method requires cross-replica context, use "
                                    "get_replica_context().all_gather() instead")
        return nest.map_structure(lambda v: self._gather(v, axis), value)

    def _gather(self, value, axis):
        return convert_to_tensor(value)

    def experimental_local_results(self, value):
        """This process's values: ``(value,)`` (one replica per process)."""
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset of this replica: each global batch's ``rank``-th slice (sizes as even as possible)."""
        return DistributedDataset(self, dataset)

    def experimental_distribute_values_from_function(self, value_fn):
        """``value_fn(ValueContext)``: this process's replica's value."""
        return value_fn(experimental.ValueContext(self._rank, self.num_replicas_in_sync))

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)``'s dataset, distributed (its function shards by ``input_pipeline_id``
        itself: its batches are this replica's)."""
        context = InputContext(self.num_replicas_in_sync, self._rank, self.num_replicas_in_sync)
        dataset = dataset_fn(context)
        if not hasattr(dataset, "element_spec"):  # not a dataset: returned as it is (vfw's tests read the context)
            return dataset
        return DistributedDatasetsFromFunction(self, dataset)

    def shard_batch(self, batch):
        """This replica's slice of a global batch (a nested structure of tensors/arrays, batch dim first)."""
        return batch


class _MPIStrategy(Strategy):
    """One replica per MPI process, all processes of the world group."""

    _has_devices = True

    def __init__(self, world_size=None, source=""):
        super().__init__()
        try:
            self._group = _engine.init(world_size=world_size)
        except DistributedError as e:
            raise RuntimeError(f"{type(self).__name__}: {source}{e}") from None

    @property
    def num_replicas_in_sync(self):
        return self._group.size

    @property
    def _rank(self):
        return self._group.rank

    def batch_all_reduce(self, reduce_op, tensors):
        tensors = [convert_to_tensor(t) for t in tensors]
        if self._group.size == 1:
            return tensors
        return all_reduce_tensors(tensors, _ENGINE_REDUCTIONS[_reduce_op(reduce_op)], self._group)

    def _create_variable(self, next_creator, **kwargs):
        if _variables.VariableSynchronization(kwargs["synchronization"]) is _variables.VariableSynchronization.AUTO:
            # TF's mirrored variables resolve AUTO: written on every replica in sync
            kwargs["synchronization"] = _variables.VariableSynchronization.ON_WRITE
        variable = super()._create_variable(next_creator, **kwargs)
        if self._group.size > 1 and not _tracing:  # a traced function creates its variables once, eagerly
            variable.assign(self._group.broadcast(np.array(variable.numpy(), order="C"), 0))
        return make_sync_on_read(variable, self)  # ON_READ variables combine the replicas when read

    def broadcast_variables(self, variables):
        """Overwrite every variable with rank 0's value (one broadcast per bucket); sync-on-read variables (metric
        state) are each replica's own and are left as they are."""
        variables = [v for v in variables if not is_sync_on_read(v)]
        if self._group.size == 1 or not variables:
            return
        arrays = [np.array(v.numpy(), order="C") for v in variables]
        _engine.Buckets([(a.shape, a.dtype) for a in arrays]).broadcast(self._group, arrays)
        for v, a in zip(variables, arrays):
            v.assign(a)

    def _gather(self, value, axis):
        """The replicas' ``value`` concatenated along ``axis``: their sizes along it may differ (a short last
        batch), the other dims must match."""
        import vfw.tensorflow as tf

        value = convert_to_tensor(value)
        if self._group.size == 1:
            return value
        if _tracing:  # the sizes are known when the graph runs: gathered there, in numpy
            return tf.numpy_function(lambda array: gather_uneven(self._group, array, axis), [value], value.dtype)
        sizes = self._group.all_gather(np.array([value.shape[axis]], np.int64))
        if (sizes != sizes[0]).any():
            return convert_to_tensor(gather_uneven(self._group, value.numpy(), axis, sizes))
        stacked = _dispatch.call("AllGather", value, group=self._group.group_id)
        return tf.concat(tf.unstack(stacked), axis=axis)

    def shard_batch(self, batch):
        size, rank = self._group.size, self._group.rank
        if size == 1:
            return batch
        bounds = _split_bounds(_batch_rows(batch), size)
        return _rows_of(batch, bounds[rank], bounds[rank + 1])

    def every_replica_batch(self, batch, full_rows, last=False):
        """``AutoShardPolicy.OFF``: this worker reads every global batch whole, as ``size`` per-replica batches.

        As TF, the per-replica sizes are those of a full global batch of ``full_rows`` (larger first), rotated
        so that this worker's own comes first; a shorter ``last`` batch fills them in order.  When it ends
        exactly where a per-replica batch ends and the next one would be smaller, TF's rebatching gives one more,
        empty, batch (what TF 2.21 does with 2 workers).
        """
        size, rank = self._group.size, self._group.rank
        if size == 1:
            return [batch]
        sizes = np.roll(np.diff(_split_bounds(full_rows, size)), -rank)
        full_bounds = np.concatenate([[0], np.cumsum(sizes)])
        rows = _batch_rows(batch)
        bounds = np.minimum(full_bounds, rows)
        parts = [_rows_of(batch, bounds[i], bounds[i + 1]) for i in range(size) if bounds[i + 1] > bounds[i]]
        ended = np.flatnonzero(full_bounds[1:-1] == rows)  # the per-replica batch the last rows completed
        if last and ended.size and sizes[ended[0]] > sizes[ended[0] + 1]:
            parts.append(_rows_of(batch, rows, rows))
        return parts


def _split_bounds(rows, parts):
    """Row bounds of ``rows`` split into ``parts`` slices as TF's DATA sharding: the larger slices first."""
    base, extra = divmod(int(rows), parts)
    return np.concatenate([[0], np.cumsum([base + 1] * extra + [base] * (parts - extra))]).astype(int)


def _batch_rows(batch):
    """The batch dimension of a nested batch (its first tensor's first dim)."""
    first = next(x for x in nest.flatten(batch) if x is not None)
    return int(np.shape(first.numpy() if hasattr(first, "numpy") else first)[0])


def _rows_of(batch, start, stop):
    def part(x):
        if x is None:
            return None
        array = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
        return convert_to_tensor(array[start:stop])

    return nest.map_structure(part, batch)


class MultiWorkerMirroredStrategy(_MPIStrategy):
    """Synchronous data parallelism over every process the MPI launcher started (one replica each).

    Parameters
    ----------
    cluster_resolver : tf.distribute.cluster_resolver.ClusterResolver, optional
        What ``strategy.cluster_resolver`` returns (MPI knows the processes); by default a
        ``TFConfigClusterResolver``, which names this process ``("worker", rank)`` when there are several
        and ``TF_CONFIG`` names no task.
    communication_options : tf.distribute.experimental.CommunicationOptions, optional
    """

    _between_graph = True

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is not None and not isinstance(communication_options, CommunicationOptions):
            raise ValueError(f"communication_options must be a tf.distribute.experimental.CommunicationOptions, got "
                             f"{type(communication_options).__name__}")
        given = cluster_resolver
        if cluster_resolver is None:
            cluster_resolver = _cluster_resolver.TFConfigClusterResolver()
        # the cluster's chief and workers are the replicas: a TF_CONFIG naming several while MPI started another
        # number of processes (each worker launched on its own, as with TF's gRPC servers) would train apart
        workers = sum(len(cluster_resolver.cluster_spec().as_dict().get(job, ())) for job in ("chief", "worker"))
        super().__init__(world_size=workers if workers > 1 else None,
                         source=f"the cluster spec names {workers} chief/worker tasks; " if workers > 1 else "")
        self.communication_options = communication_options or CommunicationOptions()
        if given is None:
            if self._group.size > 1 and cluster_resolver.task_type is None:
                cluster_resolver.task_type, cluster_resolver.task_id = "worker", self._group.rank
        self._cluster_resolver = cluster_resolver

    @property
    def cluster_resolver(self):
        """The cluster resolver of the workers (see the class docstring)."""
        return self._cluster_resolver


class MirroredStrategy(_MPIStrategy):
    """``MirroredStrategy`` with one replica per process (``devices`` accepted: vfw runs on the CPU).

    Parameters
    ----------
    devices : list of str, optional
    cross_device_ops : tf.distribute.CrossDeviceOps, optional
        How values are reduced (``ReductionToOneDevice``, ``HierarchicalCopyAllReduce``, ``NcclAllReduce``):
        accepted, vfw reduces over the processes through MPI.
    """

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__()
        self.devices = tuple(devices) if devices else ("/cpu:0",)
        self.extended._cross_device_ops = cross_device_ops


class CentralStorageStrategy(MirroredStrategy):
    """``tf.distribute.experimental.CentralStorageStrategy``: variables on one device, computation on
    ``compute_devices`` (vfw: a ``MirroredStrategy``, one replica per process on the CPU)."""

    _between_graph = True

    def __init__(self, compute_devices=None, parameter_device=None):
        super().__init__(compute_devices)


class OneDeviceStrategy(Strategy):
    """Everything on one device: a single replica in this process (the default strategy's behaviour) that
    ``scope()`` makes current, e.g. for ``model.fit``. vfw computes on the CPU whatever ``device`` names.

    Parameters
    ----------
    device : str
        A device string such as ``"/cpu:0"`` (parsed as ``tf.DeviceSpec.from_string``: ValueError if invalid).
    """

    _has_devices = True

    def __init__(self, device):
        from vfw.frontends.tensorflow._framework_extras import DeviceSpec

        self._device = DeviceSpec.from_string(device).to_string()
        super().__init__()


_DEFAULT = Strategy()


def experimental_set_strategy(strategy):
    """Make ``strategy`` current for the rest of the program (as if inside its scope); ``None`` restores the
    default strategy.

    Raises
    ------
    RuntimeError
        When called inside a strategy's scope.
    """
    if _contexts.global_scope is not None:
        _contexts.global_scope.__exit__(None, None, None)
        _contexts.global_scope = None
    elif _contexts.scopes:
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _contexts.global_scope = scope


def get_strategy():
    """The strategy whose scope is open (innermost), else the default one-replica strategy."""
    return _contexts.scopes[-1] if _contexts.scopes else _DEFAULT


def has_strategy():
    """Whether a strategy other than the default one is current."""
    return get_strategy() is not _DEFAULT


def get_replica_context():
    """The replica context of a running ``strategy.run``; ``None`` in a scope outside ``run`` (cross-replica
    context); the default strategy's replica context otherwise."""
    if _contexts.replica:
        return _contexts.replica[-1]
    if has_strategy():
        return None
    return ReplicaContext(_DEFAULT)


def in_cross_replica_context():
    """True inside a strategy's scope but outside ``strategy.run``."""
    return has_strategy() and not _contexts.replica


class _DeprecatedMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """``tf.distribute.experimental.MultiWorkerMirroredStrategy``: the deprecated form, whose first argument is the
    ``communication`` implementation (a ``CommunicationImplementation``)."""

    def __init__(self, communication=experimental.CommunicationImplementation.AUTO, cluster_resolver=None):
        super().__init__(cluster_resolver, CommunicationOptions(implementation=communication))


# tf.distribute.experimental's strategies derive from the ones above (experimental.py is imported first)
experimental.CentralStorageStrategy = CentralStorageStrategy
experimental.MultiWorkerMirroredStrategy = _DeprecatedMultiWorkerMirroredStrategy
_DeprecatedMultiWorkerMirroredStrategy.__name__ = "MultiWorkerMirroredStrategy"
