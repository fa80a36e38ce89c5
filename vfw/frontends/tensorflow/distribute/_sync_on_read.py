"""Sync-on-read variables: what ``tf.Variable(..., synchronization=ON_READ)`` is under a vfw MPI strategy.

Each replica (process) updates its own copy; a read in cross-replica context (outside ``strategy.run``, with or
without the scope open, as TF) combines the copies over every process with the variable's aggregation: SUM or
MEAN.  This is how Keras metrics created under the scope and read with ``result()`` outside ``strategy.run``
give the value over all the workers' data (TF's multi-worker custom training loop).  Inside ``strategy.run``
(replica context) reads and updates see this replica's own copy.
"""

import numpy as np

from vfw.frontends.tensorflow._variables import (
    ResourceVariable,
    VariableAggregationV2,
    VariableSynchronization,
    _UnreadVariable,
)

__all__ = ["SyncOnReadVariable", "is_sync_on_read", "make_sync_on_read"]

_NOT_REDUCIBLE = ("Could not convert from `tf.VariableAggregation` {} to`tf.distribute.ReduceOp` type")  # TF's
# message, its missing space included


def make_sync_on_read(variable, strategy):
    """Turn ``variable`` (just created under ``strategy``'s scope) into a ``SyncOnReadVariable`` when its
    synchronization is ON_READ; other variables are returned as they are."""
    if type(variable) is ResourceVariable and \
            VariableSynchronization(variable.synchronization) is VariableSynchronization.ON_READ:
        variable.__class__ = SyncOnReadVariable  # same storage and state: only the reads change
        variable._distribute_strategy = strategy
    return variable


def is_sync_on_read(variable):
    """Whether ``variable`` (a tf.Variable, or a Keras variable holding one) is a ``SyncOnReadVariable``."""
    return isinstance(variable, SyncOnReadVariable) or isinstance(getattr(variable, "_tf_variable", None),
                                                                   SyncOnReadVariable)


class SyncOnReadVariable(ResourceVariable):
    """A variable each replica updates on its own, combined over the replicas when read in cross-replica context.

    Reads outside ``strategy.run`` (``read_value()``, ``numpy()``, ``value()``, use as a tensor, also inside a
    ``tf.function``) all-reduce the replicas' copies with the variable's aggregation (``SUM`` or ``MEAN``;
    ``ONLY_FIRST_REPLICA`` reads this worker's copy; ``NONE`` raises ValueError, as TF).  Such a read is a
    collective: every worker must read the variable, in the same order (TF has the same requirement; one
    worker reading alone waits for the others until vfw's collective timeout).

    ``assign`` in cross-replica context gives each replica ``value / num_replicas`` for ``SUM`` (so that the
    read gives ``value``) and ``value`` otherwise; ``assign_add``/``assign_sub`` there raise ValueError for
    ``SUM`` (as TF).  Inside ``strategy.run`` everything is this replica's.
    """

    @property
    def distribute_strategy(self):
        """The strategy the variable was created under."""
        return self._distribute_strategy

    def _cross_replica(self):
        from vfw.frontends.tensorflow.distribute import _contexts

        return not _contexts.replica

    def _combined(self, local):
        """``local`` (this replica's value) combined over the replicas, as a read in this context gives it."""
        if not self._cross_replica():
            return local
        aggregation = VariableAggregationV2(self.aggregation.value)
        if aggregation is VariableAggregationV2.ONLY_FIRST_REPLICA:
            return local  # TF reads this worker's first (and vfw's only) replica: no collective
        if aggregation is VariableAggregationV2.NONE:
            raise ValueError(_NOT_REDUCIBLE.format(self.aggregation))
        return self._distribute_strategy.batch_all_reduce(aggregation.name, [local])[0]

    def _as_tensor(self):
        return self._combined(super()._as_tensor())

    def numpy(self):
        """A numpy copy of the value this context reads (combined over the replicas in cross-replica context)."""
        return self._combined(self._current()).numpy()

    def __array__(self, dtype=None, copy=None):
        return np.array(self.numpy(), dtype=dtype)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        if self._cross_replica() and VariableAggregationV2(self.aggregation.value) is VariableAggregationV2.SUM:
            # each replica holds a share, so that the sum read back is ``value`` (TF's rule, integers truncated)
            import vfw.tensorflow as tf

            share = tf.convert_to_tensor(value, self.dtype) / self._distribute_strategy.num_replicas_in_sync
            value = tf.cast(share, self.dtype)
        return super().assign(value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        self._refuse_sum_update("assign_add")
        return super().assign_add(delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        self._refuse_sum_update("assign_sub")
        return super().assign_sub(delta, use_locking, name, read_value)

    def _result(self, read_value):
        if read_value and not self._cross_replica():
            # an update in a replica returns that replica's copy (TF: its component variable), read as it is later
            local = object.__new__(ResourceVariable)
            local.__dict__.update(self.__dict__)  # the same storage: it sees this replica's later writes
            return _UnreadVariable.of(local)
        return super()._result(read_value)

    def _refuse_sum_update(self, method):
        if self._cross_replica() and VariableAggregationV2(self.aggregation.value) is VariableAggregationV2.SUM:
            raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                             "aggregation is set to `tf.VariableAggregation.SUM`.")
