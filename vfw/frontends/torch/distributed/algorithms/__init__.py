"""``torch.distributed.algorithms``: DDP communication hooks (``ddp_comm_hooks``)."""

from vfw.frontends.torch.distributed.algorithms import ddp_comm_hooks

__all__ = ["ddp_comm_hooks"]
