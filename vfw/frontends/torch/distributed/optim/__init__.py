"""``torch.distributed.optim``: :class:`ZeroRedundancyOptimizer` (optimizer state sharded over the processes)."""

from vfw.frontends.torch.distributed.optim import zero_redundancy_optimizer
from vfw.frontends.torch.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer", "zero_redundancy_optimizer"]
