"""torch.nn.parallel: ``DistributedDataParallel`` (one model replica per process, gradients averaged over MPI)
and ``DataParallel`` (CPU only: the module itself runs the batch)."""

from vfw.frontends.torch.nn.modules.data_parallel import DataParallel
from vfw.frontends.torch.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
