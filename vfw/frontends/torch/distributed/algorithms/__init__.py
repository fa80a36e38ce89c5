"""``torch.distributed.algorithms``: DDP communication hooks (``ddp_comm_hooks``) and the :class:`Join` context
manager for uneven inputs (``join``)."""

from vfw.frontends.torch.distributed.algorithms import ddp_comm_hooks, join
from vfw.frontends.torch.distributed.algorithms.join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable", "ddp_comm_hooks", "join"]
