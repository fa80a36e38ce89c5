"""torch.distributed.constants: the default timeouts of process groups."""

from datetime import timedelta  # noqa: F401  (torch's module has it too)

from vfw.frontends.torch.distributed._groups import default_pg_timeout

__all__ = ["default_pg_timeout", "default_pg_nccl_timeout"]

_DEFAULT_PG_TIMEOUT = default_pg_timeout  # 30 minutes, the same object as torch.distributed.default_pg_timeout

default_pg_nccl_timeout = None
"""NCCL's own default (torch sets it only in builds with NCCL; vfw runs on the CPU)."""
