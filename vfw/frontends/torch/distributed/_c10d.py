"""torch.distributed's objects: Backend names, ReduceOp, the ProcessGroup handle, async Work handles."""

import enum


class Backend(str):
    """A backend name (lower case): ``"gloo"`` and ``"mpi"`` run over MPI; ``"nccl"`` and others need devices."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    _SERVED = (GLOO, MPI)

    def __new__(cls, name):
        # Any name, as torch's (a third-party backend's too): init_process_group/new_group check it (served).
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())

    @classmethod
    def served(cls, name):
        """The backend ``name`` names here (``"gloo"`` or ``"mpi"``; the CPU entry of a ``"cpu:gloo,cuda:nccl"``
        map), or the error: accelerator backends need devices, other names are unknown."""
        value = cls(name)
        if value.startswith("cpu:"):
            value = cls(value.split(",")[0][4:])
        if value in (cls.NCCL, cls.UCC, "xccl", "hccl"):
            raise RuntimeError(f"Backend '{name}' needs accelerators; vfw runs on the CPU, where 'gloo' and 'mpi' "
                               "are served by MPI")
        if value not in cls._SERVED:
            raise ValueError(f"Invalid backend: '{name}'")
        return value


class RedOpType(int, enum.Enum):
    """torch's reduction kinds (the values torch gives them; they compare and convert as ints, as torch's)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    __str__ = enum.Enum.__str__  # "RedOpType.MAX", as torch prints it
    __format__ = enum.Enum.__format__


_ENGINE_REDUCTIONS = {RedOpType.SUM: "sum", RedOpType.AVG: "avg", RedOpType.PRODUCT: "prod", RedOpType.MIN: "min",
                      RedOpType.MAX: "max", RedOpType.BAND: "band", RedOpType.BOR: "bor", RedOpType.BXOR: "bxor"}


class _ReduceOpType(type):
    def __instancecheck__(cls, obj):  # torch's RedOpType members are ReduceOps too
        return isinstance(obj, RedOpType) or type.__instancecheck__(cls, obj)


class ReduceOp(metaclass=_ReduceOpType):
    """``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR``; ``ReduceOp(op)`` wraps a
    kind (equal to it)."""

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM

    def __init__(self, op):
        self.op = RedOpType(op.op if type.__instancecheck__(ReduceOp, op) else op)

    def __eq__(self, other):
        return self.op == (other.op if type.__instancecheck__(ReduceOp, other) else other)

    def __hash__(self):
        return hash(self.op)

    @staticmethod
    def engine_name(op):
        """The engine's name of reduction ``op`` (``"sum"``...)."""
        if type.__instancecheck__(ReduceOp, op):
            op = op.op
        name = _ENGINE_REDUCTIONS.get(op) if isinstance(op, RedOpType) else None
        if name is None:  # torch's binding refuses it (PREMUL_SUM: a CUDA-only reduction)
            raise TypeError("(): incompatible function arguments. The following argument types are supported:\n"
                            "    1. (self: AllreduceOptions, arg0: ReduceOp) -> None\n\n"
                            f"Invoked with: {op!r} (vfw reduces with {', '.join(o.name for o in _ENGINE_REDUCTIONS)})")
        return name


def supports_complex(reduceOp):  # noqa: N803  (torch's argument name)
    """Whether ``reduceOp`` is defined on complex tensors (not MAX, MIN, PRODUCT or the bitwise ops)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


class Work:
    """The handle an ``async_op=True`` collective, ``isend`` or ``irecv`` returns.

    vfw's collectives have finished by the time they return; a point-to-point ``isend``/``irecv`` is in flight
    (an engine :class:`~vfw.core.distributed.group.Transfer`) until ``wait()`` or ``is_completed()`` sees it done.
    """

    def __init__(self, tensors, transfer=None, receive=False):
        self._tensors = list(tensors)
        self._transfer = transfer
        self._receive = receive

    def wait(self, timeout=None):
        """Block until the operation is done: True.  ``timeout`` (a timedelta) bounds the wait for a send or
        receive in flight: a RuntimeError when it has not completed by then (as gloo's)."""
        if self._transfer is None:
            return True
        if timeout is None:
            return self._transfer.wait()
        seconds = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
        if not self._transfer.wait(seconds):
            raise RuntimeError(f"Timed out waiting {int(seconds * 1000)}ms for "
                               f"{'recv' if self._receive else 'send'} operation to complete")
        return True

    def is_completed(self):
        return True if self._transfer is None else self._transfer.test()

    def is_success(self):
        return True

    def source_rank(self):
        """The rank a receive's message came from (-1 until ``wait()`` has seen it arrive, as gloo's)."""
        if not self._receive:
            raise RuntimeError("sourceRank() may only be called on work objects that correspond to a recv or "
                               "recv-from-any call.")
        return self._transfer.source if self._transfer.done else -1

    def result(self):
        """The tensors the collective wrote."""
        if self._transfer is not None:  # torch's point-to-point work has no result
            raise RuntimeError("result() not implemented.")
        return list(self._tensors)

    def exception(self):
        return None

    def get_future(self):
        """A completed ``torch.futures.Future`` whose value is the list of tensors the collective wrote."""
        if self._transfer is not None:
            raise RuntimeError("Work::getFuture not implemented.")
        from vfw.frontends.torch.futures import Future

        future = Future()
        future.set_result(list(self._tensors))
        return future


_registry = {"live": [], "created": 0}  # the live groups (the world first), and torch's group count


class ProcessGroup:
    """A process group handle: the engine's :class:`~vfw.core.distributed.ProcessGroup` and the backend name.

    ``new_group`` handles (of every rank) share the world's engine group, so their collectives run on the world
    communicator; destroying one unregisters the handle and leaves the world intact.
    """

    def __init__(self, engine, backend, parent=None):
        self.engine = engine
        self.backend = backend
        self._parent = parent  # the world handle a new_group handle was made from (None: the world itself)
        _registry["live"].append(self)
        _registry["created"] += 1

    def rank(self):
        return self.engine.rank

    def size(self):
        return self.engine.size

    def name(self):
        return self.backend

    def __repr__(self):
        return f"<vfw ProcessGroup rank={self.engine.rank} size={self.engine.size} backend={self.backend}>"

    def is_registered(self):
        """Whether the group is alive (not destroyed by ``destroy_process_group``)."""
        return any(g is self for g in _registry["live"])

    def check_registered(self):
        """torch's ValueError for a destroyed group, where an operation translates ranks (or asks its backend)."""
        if not self.is_registered():
            raise ValueError(f"Process group {self} is not initialized in the world group map. Please initialize "
                             "the group first.")

    def check_rank(self, rank, name, argument):
        """``rank`` if it is one of the group's, else a RuntimeError naming the function and argument (torch's)."""
        self.check_registered()
        if rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        if not 0 <= int(rank) < self.engine.size:
            raise RuntimeError(f"{name}: invalid {argument} rank: {rank} (the group has ranks "
                               f"0..{self.engine.size - 1})")
        return int(rank)


def unregister(pg):
    """Forget ``pg`` (destroyed); the world takes every group with it, and resets the group count (as torch)."""
    if pg._parent is None:
        _registry["live"].clear()
        _registry["created"] = 0
    else:
        _registry["live"][:] = [g for g in _registry["live"] if g is not pg]


def pg_count():
    """How many process groups were created since the world was (torch's ``get_pg_count``)."""
    return _registry["created"]


class GroupMember:
    """``GroupMember.WORLD``: the default group (``None`` before ``init_process_group``)."""

    WORLD = None
    NON_GROUP_MEMBER = -100


class _GroupNamespace(type):
    @property
    def WORLD(cls):
        return GroupMember.WORLD


class group(metaclass=_GroupNamespace):  # noqa: N801  (torch.distributed.group)
    """``torch.distributed.group.WORLD``: the default group."""


def default_group():
    """The default :class:`ProcessGroup`, or ``None`` before ``init_process_group``."""
    return GroupMember.WORLD


def resolve_group(pg, name):
    """``pg``, or the default group for ``None``; torch's ValueError when none is initialized."""
    if pg is None or pg is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        return GroupMember.WORLD
    if not isinstance(pg, ProcessGroup):
        raise TypeError(f"{name}: group must be a ProcessGroup, got {type(pg).__name__}")
    if pg._parent is not None and pg._parent is not GroupMember.WORLD:  # its world was destroyed
        if GroupMember.WORLD is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        pg.check_registered()
    return pg
