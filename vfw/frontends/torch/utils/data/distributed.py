"""``DistributedSampler``: each of ``num_replicas`` processes loads its own share of a dataset."""

import math

from vfw.frontends.torch._random import randperm
from vfw.frontends.torch.random import Generator
from vfw.frontends.torch.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of replica ``rank`` among ``num_replicas``: every ``num_replicas``-th index from ``rank`` on.

    All replicas see the same (shuffled) order, padded by repeating its start to a multiple of
    ``num_replicas`` (or cut to one with ``drop_last``), so they get equally many indices.

    Parameters
    ----------
    dataset : Dataset
        A sized dataset.
    num_replicas, rank : int, optional
        Default: the world size and rank of the default process group (``torch.distributed``).
    shuffle : bool
        Shuffle with a generator seeded ``seed + epoch`` (the same order in every replica).
    seed : int
    drop_last : bool

    Notes
    -----
    Call :meth:`set_epoch` before each epoch for a new order.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from vfw.frontends.torch import distributed

            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            order = randperm(n, generator=g).tolist()
        else:
            order = list(range(n))
        if self.drop_last:
            order = order[:self.total_size]
        else:
            padding = self.total_size - len(order)
            order += (order * math.ceil(padding / len(order)))[:padding] if padding else []
        return iter(order[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch, which (added to ``seed``) seeds the next shuffle."""
        self.epoch = epoch
