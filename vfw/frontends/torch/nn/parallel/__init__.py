"""torch.nn.parallel: ``DistributedDataParallel`` (one model replica per process, gradients averaged over MPI),
``DataParallel`` (CPU only: the module itself runs the batch) and the functional pieces of data parallelism
(``scatter``/``gather``/``replicate``/``parallel_apply``/``data_parallel``) on vfw's one device."""

from vfw.frontends.torch.nn.modules.data_parallel import DataParallel
from vfw.frontends.torch.nn.parallel.distributed import DistributedDataParallel
from vfw.frontends.torch.nn.parallel.parallel_apply import data_parallel, parallel_apply, replicate
from vfw.frontends.torch.nn.parallel.scatter_gather import gather, scatter

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "parallel_apply", "replicate",
           "scatter"]
