"""tf.distribute's cross-device reductions (``CrossDeviceOps`` and the three kinds ``MirroredStrategy`` accepts).

vfw's strategies have one replica per process, so the value given for "every replica" is this process's
replica's: a reduction combines it over the current strategy's processes (nothing to combine with the default
strategy or one process, where TF's single-device reduction returns the value unchanged too) and a broadcast
returns the tensor.  ``destinations`` (devices, variables or tensors) only name where TF would put the result:
vfw computes on the CPU.
"""

from vfw.frontends.tensorflow._dispatch import convert_to_tensor

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce", "ReductionToOneDevice"]


def _current_strategy():
    from vfw.frontends.tensorflow import distribute

    return distribute.get_strategy()


class CrossDeviceOps:
    """Base class of cross-device reductions: ``reduce``, ``batch_reduce`` and ``broadcast``."""

    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """``per_replica_value`` reduced over the replicas with ``reduce_op`` (``ReduceOp`` or "SUM"/"MEAN")."""
        return self.batch_reduce(reduce_op, [(per_replica_value, destinations)], options)[0]

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        """Each value of the ``(value, destinations)`` pairs reduced over the replicas (a list)."""
        values = [convert_to_tensor(value) for value, _ in value_destination_pairs]
        strategy = _current_strategy()
        if strategy.num_replicas_in_sync == 1:  # one replica: its value is the reduction, as in TF
            return values
        return strategy.batch_all_reduce(reduce_op, values)

    def broadcast(self, tensor, destinations):
        """``tensor`` as every destination gets it."""
        return convert_to_tensor(tensor)

    def reduce_implementation(self, reduce_op, per_replica_value, destinations, options):
        """What ``reduce`` runs (subclasses of TF's override this one)."""
        return self.reduce(reduce_op, per_replica_value, destinations, options)

    def batch_reduce_implementation(self, reduce_op, value_destination_pairs, options):
        """What ``batch_reduce`` runs."""
        return self.batch_reduce(reduce_op, value_destination_pairs, options)

    def broadcast_implementation(self, tensor, destinations):
        """What ``broadcast`` runs."""
        return self.broadcast(tensor, destinations)


class ReductionToOneDevice(CrossDeviceOps):
    """Reduce by copying every value to one device (``reduce_to_device``) and combining them there with
    ``accumulation_fn`` (``tf.math.add_n`` by default)."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduce(CrossDeviceOps):
    _LABEL = ""  # how TF's error names the algorithm

    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError(f"{self._LABEL} requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs


class HierarchicalCopyAllReduce(_AllReduce):
    """All-reduce along TF's hierarchical copy tree (``num_packs``: how many packs tensors are packed into)."""

    _LABEL = "HierarchicalCopy"


class NcclAllReduce(_AllReduce):
    """All-reduce through NCCL on GPUs (``num_packs``: how many packs tensors are packed into)."""

    _LABEL = "NCCL all-reduce"
