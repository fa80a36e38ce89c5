"""torch.utils.data: datasets, samplers and DataLoader.

Random orders (``shuffle``, :class:`RandomSampler`, :func:`random_split`) and the seeds of
worker processes are drawn as torch draws them, so a program seeded with
``torch.manual_seed`` visits torch's orders and its later draws stay torch's.
"""

from vfw.frontends.torch.utils.data import _utils, dataloader, dataset, distributed, sampler  # noqa: F401
from vfw.frontends.torch.utils.data.dataloader import (
    DataLoader,
    _DatasetKind,
    default_collate,
    default_convert,
    get_worker_info,
)
from vfw.frontends.torch.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from vfw.frontends.torch.utils.data.distributed import DistributedSampler
from vfw.frontends.torch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "_DatasetKind", "default_collate",
           "default_convert", "get_worker_info", "random_split"]
