"""Averaging arrays over the processes of one machine through an MPI shared-memory window.

When every process of a group runs on one machine, MPI can give them one shared-memory window
(``MPI_Win_allocate_shared``) in which each process owns a slot and reads the others' directly.  DDP's
average of a step's gradients then takes two passes over them: each process writes its gradients divided by
the world size into its slot (the division it needs anyway), a barrier, and each process sums every slot, in
rank order, into its own gradients (the same order on every process, so every replica gets the same bits).
Each slot holds two copies used in turn, so that no barrier is needed after the reads: a process writes a copy
again two averagings later, after the next averaging's barrier, which every peer reaches only once it has
read this one (a second barrier per step waited for the slower process twice).  An MPI all-reduce after the
division moves the data through MPI's own shared segment instead: a copy in, the peer's read and reduction,
a copy out (the MLP step of ``benchmarks/distributed.py``, 2.7 MB of gradients: 0.25-0.3 ms less a step).

Only floating-point arrays of 4 or 8 bytes take this route; :meth:`SharedAverage.create` returns ``None``
(callers keep MPI's all-reduce) when the group spans machines, when an array has another dtype, when MPI
cannot allocate the window, or when ``VFW_DISTRIBUTED_SHARED_MEMORY=0``.
"""

import os

import numpy as np

from vfw.core.distributed.group import divide_by

SHARED_MEMORY_VARIABLE = "VFW_DISTRIBUTED_SHARED_MEMORY"
"""Environment variable: ``0`` keeps gradient averaging on MPI's all-reduce even within one machine."""


class SharedAverage:
    """Averages a fixed list of arrays (shapes and dtypes) over a group whose processes share a machine.

    Build it with :meth:`create` (a collective: every process of the group calls it with the same specs).
    """

    def __init__(self, group, specs, window, slots, offsets):
        self._group = group
        self.specs = specs
        self._window = window
        half = len(slots[0]) // 2
        # views[copy][rank][i]: array i in copy 0 or 1 of rank's slot (bytes) of the shared window, made once
        self._views = [[[slot[base + start:base + start + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize]
                         .view(dtype).reshape(shape) for (shape, dtype), start in zip(specs, offsets)]
                        for slot in slots] for base in (0, half)]
        self._copy = 0

    @classmethod
    def create(cls, group, specs):
        """A :class:`SharedAverage` of ``specs`` (``(shape, dtype)`` each) over ``group``, or ``None`` where the
        group spans machines, a dtype is not float32/float64, MPI cannot share the memory, or the environment
        variable ``VFW_DISTRIBUTED_SHARED_MEMORY`` is ``0``.  Collective over ``group``."""
        specs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in specs]
        if (group.size < 2 or os.environ.get(SHARED_MEMORY_VARIABLE, "1").strip() == "0"
                or any(dtype.kind != "f" or dtype.itemsize not in (4, 8) for _, dtype in specs)):
            return None
        offsets, nbytes = [], 0
        for shape, dtype in specs:
            nbytes = -(-nbytes // dtype.itemsize) * dtype.itemsize  # aligned for the dtype
            offsets.append(nbytes)
            nbytes += int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        nbytes = -(-nbytes // 64) * 64  # the second copy starts on a cache line
        shared = group.shared_window(2 * nbytes)
        return None if shared is None else cls(group, specs, *shared, offsets)

    def average(self, arrays, divisor=None):
        """Average ``arrays`` (in the order of the specs) over the group, in place.

        ``None`` counts as zeros and gets a new array.  ``divisor``: what the sum is divided by (default the
        group's size; fewer when some processes contribute zeros, as DDP's join does).  Returns the averaged
        arrays.
        """
        group, rank = self._group, self._group.rank
        group._check_live("SharedAverage.average")  # the window is freed with the group
        if len(arrays) != len(self.specs):
            raise ValueError(f"SharedAverage: expected {len(self.specs)} arrays, got {len(arrays)}")
        views = self._views[self._copy]
        self._copy ^= 1
        for i, array in enumerate(arrays):
            mine = views[rank][i]
            if array is None:
                mine[...] = 0
            else:
                divide_by(array, divisor or group.size, out=mine)
        group.shared_barrier(self._window, "averaging in shared memory")
        results = list(arrays)
        for i, array in enumerate(arrays):
            out = np.empty(self.specs[i][0], self.specs[i][1]) if array is None else array
            np.add(views[0][i], views[1][i], out=out)
            for peer in range(2, group.size):
                np.add(out, views[peer][i], out=out)
            results[i] = out
        return results
