"""``tf.distribute.cluster_resolver``: who the tasks of a cluster are (``TF_CONFIG`` or given explicitly).

Bookkeeping only: vfw's processes are the MPI launcher's.  ``MultiWorkerMirroredStrategy().cluster_resolver`` is
a ``TFConfigClusterResolver``; with several MPI processes and no ``TF_CONFIG`` task it names this process task
``("worker", rank)``, so the usual chief test (``task_type == "worker" and task_id == 0``) picks rank 0.
"""

import collections
import json
import os

from vfw.frontends.tensorflow._train_cluster import ClusterSpec

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver"]


class ClusterResolver:
    """Base class: ``cluster_spec()``, ``master()``, ``task_type``/``task_id`` and the accelerators of a task."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        """The cluster's ``tf.train.ClusterSpec``."""
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (this one by default), prefixed ``rpc_layer://`` when there is one."""
        raise NotImplementedError

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """Accelerator type -> count of a task: none (vfw computes on the CPU)."""
        return collections.defaultdict(int)


def _address(cluster_spec, task_type, task_id, rpc_layer):
    if task_type is None or task_id is None or task_type not in cluster_spec.jobs:
        return ""
    address = cluster_spec.task_address(task_type, task_id)
    return f"{rpc_layer}://{address}" if rpc_layer else address


class SimpleClusterResolver(ClusterResolver):
    """A resolver of what it is given: a ``ClusterSpec``, the master address and this task."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="", num_accelerators=None,
                 rpc_layer=None):
        self._cluster_spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self.environment = environment
        self.rpc_layer = rpc_layer
        self._num_accelerators = dict(num_accelerators or {})

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            return _address(self._cluster_spec, task_type, task_id, rpc_layer or self.rpc_layer)
        master = self._master
        rpc_layer = rpc_layer or self.rpc_layer
        return f"{rpc_layer}://{master}" if rpc_layer and master else master

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return collections.defaultdict(int, self._num_accelerators)


class TFConfigClusterResolver(ClusterResolver):
    """The cluster and task of the ``TF_CONFIG`` environment variable (JSON: ``cluster``, ``task``, ``rpc_layer``,
    ``environment``), read when asked; explicit ``task_type``/``task_id``/``rpc_layer`` take precedence."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config():
        return json.loads(os.environ.get("TF_CONFIG") or "{}")

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        task_type = self._config().get("task", {}).get("type")
        return None if task_type is None else str(task_type)

    @task_type.setter
    def task_type(self, value):
        self._task_type = value

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        task_id = self._config().get("task", {}).get("index")
        return None if task_id is None else int(task_id)

    @task_id.setter
    def task_id(self, value):
        self._task_id = value

    @property
    def rpc_layer(self):
        return self._rpc_layer if self._rpc_layer is not None else self._config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, value):
        self._rpc_layer = value

    @property
    def environment(self):
        return self._environment if self._environment is not None else self._config().get("environment")

    def cluster_spec(self):
        """The ``cluster`` of ``TF_CONFIG`` (an empty ``ClusterSpec`` without one)."""
        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (this one by default; ``""`` when ``TF_CONFIG`` does not name it)."""
        if task_type is None or task_id is None:
            task_type, task_id = self.task_type, self.task_id
        return _address(self.cluster_spec(), task_type, task_id, rpc_layer or self.rpc_layer)
