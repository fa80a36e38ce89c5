"""tf.distribute.experimental: communication options of the multi-worker strategy (accepted: MPI decides),
``ValueContext``; ``CentralStorageStrategy`` and the deprecated ``MultiWorkerMirroredStrategy`` are attached by the
package (they derive from its strategies)."""

import enum

__all__ = ["CollectiveCommunication", "CollectiveHints", "CommunicationImplementation", "CommunicationOptions",
           "ValueContext"]


class CommunicationImplementation(enum.Enum):
    """Which collective library TF would use; vfw always uses MPI."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation  # TF's deprecated name of the same enum


class CommunicationOptions:
    """Options of cross-replica collectives: ``bytes_per_pack``, ``timeout_seconds``, ``implementation`` (accepted)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"Argument `bytes_per_pack` must be >=0, Received {bytes_per_pack}.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


def CollectiveHints(bytes_per_pack=0, timeout_seconds=None):  # noqa: N802 (TF's deprecated class name)
    """The deprecated form of ``CommunicationOptions(bytes_per_pack, timeout_seconds)``."""
    return CommunicationOptions(bytes_per_pack, timeout_seconds)


class ValueContext:
    """What ``experimental_distribute_values_from_function``'s function learns: its replica and the replica count."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index."""
        return self._replica_id_in_sync_group

    @property
    def num_replicas_in_sync(self):
        """How many replicas run in sync."""
        return self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.ValueContext(replica id {self._replica_id_in_sync_group},  total replicas in sync: "
                f"{self._num_replicas_in_sync})")
