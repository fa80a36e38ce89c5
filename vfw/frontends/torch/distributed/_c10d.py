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
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value.startswith("cpu:"):  # torch's "cpu:gloo,cuda:nccl" device map: the CPU entry serves here
            value = value.split(",")[0][4:]
        if value in (cls.NCCL, cls.UCC, "xccl", "hccl"):
            raise RuntimeError(f"Backend '{name}' needs accelerators; vfw runs on the CPU, where 'gloo' and 'mpi' "
                               "are served by MPI")
        if value not in cls._SERVED:
            raise ValueError(f"Invalid backend: '{name}'")
        return super().__new__(cls, value)


class RedOpType(enum.Enum):
    """torch's reduction kinds (the values torch gives them)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


_ENGINE_REDUCTIONS = {RedOpType.SUM: "sum", RedOpType.AVG: "avg", RedOpType.PRODUCT: "prod", RedOpType.MIN: "min",
                      RedOpType.MAX: "max", RedOpType.BAND: "band", RedOpType.BOR: "bor", RedOpType.BXOR: "bxor"}


class ReduceOp:
    """``ReduceOp.SUM``, ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR``."""

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
    UNUSED = RedOpType.UNUSED

    @staticmethod
    def engine_name(op):
        """The engine's name of reduction ``op`` (``"sum"``...)."""
        name = _ENGINE_REDUCTIONS.get(op)
        if name is None:
            raise ValueError(f"Unsupported reduction operation {op!r} (supported: "
                             f"{', '.join(o.name for o in _ENGINE_REDUCTIONS)})")
        return name


class Work:
    """The handle an ``async_op=True`` collective returns; vfw's collectives have finished by then."""

    def __init__(self, tensors):
        self._tensors = list(tensors)

    def wait(self, timeout=None):
        """Block until the collective is done (it is): True."""
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True

    def result(self):
        """The tensors the collective wrote."""
        return list(self._tensors)

    def exception(self):
        return None

    def get_future(self):
        """A completed ``torch.futures.Future`` whose value is the list of tensors the collective wrote."""
        from vfw.frontends.torch.futures import Future

        future = Future()
        future.set_result(list(self._tensors))
        return future


class ProcessGroup:
    """A process group handle: the engine's :class:`~vfw.core.distributed.ProcessGroup` and the backend name."""

    def __init__(self, engine, backend):
        self.engine = engine
        self.backend = backend

    def rank(self):
        return self.engine.rank

    def size(self):
        return self.engine.size

    def name(self):
        return self.backend

    def __repr__(self):
        return f"<vfw ProcessGroup rank={self.engine.rank} size={self.engine.size} backend={self.backend}>"

    def check_rank(self, rank, name, argument):
        """``rank`` if it is one of the group's, else a RuntimeError naming the function and argument (torch's)."""
        if rank is None:
            raise ValueError(f"{name}: {argument} must be given")
        if not 0 <= int(rank) < self.engine.size:
            raise RuntimeError(f"{name}: invalid {argument} rank: {rank} (the group has ranks "
                               f"0..{self.engine.size - 1})")
        return int(rank)


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
    return pg
