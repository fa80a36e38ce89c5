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


_registry = {"live": [], "created": 0, "outside": []}  # the live groups (the world first), torch's group count,
# and the ranks of the group this process was last left out of (torch files every such group under one key, -100)


class ProcessGroup:
    """A process group handle: the engine's :class:`~vfw.core.distributed.ProcessGroup` and the backend name.

    A group of fewer ranks than the world (``new_group(ranks)``) has an engine group of its own, over an MPI
    communicator of its members; ``new_group`` handles of every rank share the world's engine group.  Destroying
    a handle unregisters it (and frees its own engine group); the world lives on.

    Parameters
    ----------
    engine : vfw.core.distributed.ProcessGroup
        The engine group the collectives run on (its ranks are the group ranks).
    backend : str
        The backend name.
    parent : ProcessGroup, optional
        The world handle a ``new_group`` handle was made from (``None``: the world itself).
    ranks : list of int, optional
        The members' global ranks in group-rank order (default: every rank).
    """

    def __init__(self, engine, backend, parent=None, ranks=None):
        self.engine = engine
        self.backend = backend
        self._parent = parent
        self.ranks = list(range(engine.size)) if ranks is None else list(ranks)
        self._owns_engine = parent is not None and engine is not parent.engine
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

    def group_rank(self, global_rank):
        """The rank within this group of the process of global rank ``global_rank`` (torch's ValueError when it is
        not a member; the world's ranks are the global ranks)."""
        if self._parent is None:
            return global_rank
        if global_rank not in self.ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}")
        return self.ranks.index(global_rank)

    def check_rank(self, rank, name, argument):
        """``rank`` if it is one of the group's, else a RuntimeError naming the function and argument (torch's)."""
        self.check_registered()
        if rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        if not 0 <= int(rank) < self.engine.size:
            raise RuntimeError(f"{name}: invalid {argument} rank: {rank} (the group has ranks "
                               f"0..{self.engine.size - 1})")
        return int(rank)

    def peer(self, global_rank, group_rank, name, argument):
        """The group rank of a peer named by its ``global_rank`` or its ``group_rank`` (torch's errors for neither,
        both, or a global rank outside the group)."""
        if global_rank is not None and group_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if global_rank is not None:
            self.check_registered()
            return self.check_rank(self.group_rank(int(global_rank)), name, argument)
        return self.check_rank(group_rank, name, argument)


def not_member(group):
    """Whether ``group`` is what ``new_group`` gave a process left out of the group (torch's int -100)."""
    return type(group) is int and group == GroupMember.NON_GROUP_MEMBER


def skip_outside(name, result=None, root=None):
    """Decorate collective ``name`` so that a process outside its ``group`` argument warns and returns ``result``
    without taking part, as torch's do.

    ``root``: the argument naming a root by global rank (``"src"``, ``"dst"``), which torch translates into a group
    rank first: a rank outside the group then fails, and torch's error logging turns that into "Invalid process
    group specified" (it asks the backend of the group the process is not in).
    """
    import functools
    import inspect
    import warnings

    def decorate(function):
        names = list(inspect.signature(function).parameters)
        position = names.index("group")

        @functools.wraps(function)
        def collective(*args, **kwargs):
            group = kwargs.get("group") if len(args) <= position else args[position]
            if type(group) is int and not_member(group):
                if root is not None:
                    at = names.index(root)
                    rank = kwargs.get(root) if len(args) <= at else args[at]
                    if rank is not None and rank not in _registry["outside"]:
                        raise ValueError("Invalid process group specified")
                world = GroupMember.WORLD
                warnings.warn(f"Running {name} on global rank {-1 if world is None else world.rank()} which does not "
                              "belong to the given group.", stacklevel=2)
                return result
            return function(*args, **kwargs)

        return collective

    return decorate


def unregister(pg):
    """Forget ``pg`` (destroyed), freeing an engine group of its own; the world takes every group with it, and
    resets the group count (as torch)."""
    doomed = list(_registry["live"]) if pg._parent is None else [pg]
    for g in doomed:
        if g._owns_engine:
            g.engine.destroy()
    if pg._parent is None:
        _registry["live"].clear()
        _registry["created"] = 0
        _registry["outside"] = []
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
