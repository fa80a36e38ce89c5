"""``strategy.extended`` (``tf.distribute.StrategyExtended``): the devices and the lower-level reduce/update API.

vfw's strategies have one replica per process on the CPU: the devices are this process's CPU, ``update`` applies
``fn`` to the variable itself, and reductions combine this replica's value over the processes.
"""

import contextlib
import weakref

from vfw.frontends.tensorflow._dispatch import convert_to_tensor

__all__ = ["StrategyExtended"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class StrategyExtended:
    """Additional API of a strategy (``strategy.extended``)."""

    def __init__(self, strategy, between_graph=False):
        self._strategy = strategy
        self._between_graph = between_graph
        self._created = weakref.WeakValueDictionary()  # id -> variable created in the strategy's scope (unhashable)

    def _is_default(self):
        return not self._strategy._has_devices

    def _devices(self, what):
        if self._is_default():
            raise RuntimeError(f"{what}() method unsupported by default tf.distribute.Strategy.")
        return (CPU_DEVICE,)

    @property
    def parameter_devices(self):
        """The devices variables are placed on (a tuple of device strings)."""
        return self._devices("parameter_devices")

    @property
    def worker_devices(self):
        """The devices replicas run on (a tuple of device strings)."""
        return self._devices("worker_devices")

    @property
    def worker_devices_by_replica(self):
        """Each replica's devices."""
        return [list(self._devices("worker_devices"))]

    @property
    def experimental_require_static_shapes(self):
        """Whether the strategy needs static shapes (False: it does not)."""
        return False

    @property
    def should_checkpoint(self):
        """Whether this worker should save checkpoints (the chief: rank 0)."""
        return self._strategy._rank == 0

    @property
    def should_save_summary(self):
        """Whether this worker should write summaries (the chief: rank 0)."""
        return self._strategy._rank == 0

    @property
    def experimental_between_graph(self):
        """Whether each worker runs its own program (multi-worker strategies)."""
        if self._is_default():
            raise NotImplementedError("must be implemented in descendants")
        return self._between_graph

    @property
    def experimental_should_init(self):
        """Whether this worker should initialize variables."""
        if self._is_default():
            raise NotImplementedError("must be implemented in descendants")
        return True

    @property
    def experimental_enable_get_next_as_optional(self):
        """Whether distributed iterators use ``get_next_as_optional`` for partial batches."""
        return not self._is_default()

    def _record_created(self, variable):
        self._created[id(variable)] = variable

    def variable_created_in_scope(self, v):
        """Whether ``v`` was created inside this strategy's scope."""
        return self._created.get(id(v)) is v

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """``value`` reduced over the replicas (``destinations`` name the devices TF would place it on)."""
        return self.batch_reduce_to(reduce_op, [(value, destinations)], options)[0]

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """Each value of ``(value, destinations)`` pairs reduced over the replicas."""
        from vfw.frontends.tensorflow.distribute import _reduce_op

        values = [convert_to_tensor(value) for value, _ in value_destination_pairs]
        op = _reduce_op(reduce_op)
        return self._strategy.batch_all_reduce(op, values) if self._strategy.num_replicas_in_sync > 1 else values

    def broadcast_to(self, tensor, destinations):
        """``tensor`` as the destinations get it."""
        return convert_to_tensor(tensor)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """``fn(var, *args, **kwargs)``: the update of the variable (its one copy in vfw)."""
        return fn(var, *args, **(kwargs or {}))

    def update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True):
        """``fn(*args, **kwargs)`` on the device of ``colocate_with``."""
        return fn(*args, **(kwargs or {}))

    def non_slot_devices(self, var_list):
        """The devices of variables that are not slots."""
        return self._devices("non_slot_devices")

    def value_container(self, value):
        """The container of ``value`` (the value itself: variables are not mirrored in vfw)."""
        return value

    def read_var(self, replica_local_var):
        """The value of a variable, read in cross-replica context."""
        return convert_to_tensor(replica_local_var)

    def colocate_vars_with(self, colocate_with_variable):
        """Context manager placing new variables with ``colocate_with_variable`` (one device: nothing to do)."""
        return contextlib.nullcontext()

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """``fn(*args, **kwargs)`` on each replica (this process's), as ``strategy.run``."""
        return self._strategy.run(fn, args, kwargs)
