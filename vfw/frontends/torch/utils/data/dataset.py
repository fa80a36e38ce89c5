"""torch.utils.data datasets: map-style and iterable datasets, their combinations, and ``random_split``.

A map-style dataset answers ``dataset[key]`` (and usually ``len(dataset)``); an
iterable dataset yields its samples from ``iter(dataset)``. ``a + b`` concatenates
map-style datasets (:class:`ConcatDataset`) and chains iterable ones
(:class:`ChainDataset`).
"""

import bisect
import math
from collections.abc import Iterable
from typing import Generic, TypeVar

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch._random import randperm
from vfw.frontends.torch.random import default_generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets: subclasses implement ``__getitem__`` (and usually ``__len__``).

    A subclass may also implement ``__getitems__(indices)`` returning a list of samples:
    :class:`~torch.utils.data.DataLoader` then fetches a whole batch with one call.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable):
    """Base class of datasets that are streams: subclasses implement ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset;
    :func:`~torch.utils.data.get_worker_info` inside ``__iter__`` tells a copy which worker
    it serves, so it can yield only its share.
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows of tensors sharing their first dimension: ``dataset[i]`` is ``(t[i] for t in tensors)``.

    Parameters
    ----------
    *tensors : Tensor
        Tensors with equal ``size(0)``.
    """

    def __init__(self, *tensors):
        if tensors and any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Equal-length datasets side by side: ``dataset[i]`` is a tuple (positional) or dict (keywords) of their samples.

    Parameters
    ----------
    *args : Dataset
        Datasets whose samples form a tuple.
    **kwargs : Dataset
        Datasets whose samples form a dict (keys are the keyword names). Not with ``args``.
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not (args or kwargs):
            raise ValueError("At least one dataset should be passed")
        parts = args or list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def _named(self):
        """``(key, dataset)`` pairs: dict keys, or positions for the tuple form."""
        return self.datasets.items() if isinstance(self.datasets, dict) else enumerate(self.datasets)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        # one column per dataset (batched where the dataset can), then one sample per index
        columns = {}
        for key, d in self._named():
            if callable(getattr(d, "__getitems__", None)):
                column = d.__getitems__(indices)
                if len(column) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                     f"got {len(column)}")
            else:
                column = [d[i] for i in indices]
            columns[key] = column
        if isinstance(self.datasets, dict):
            return [{k: column[j] for k, column in columns.items()} for j in range(len(indices))]
        return [tuple(column[j] for column in columns.values()) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another: indices run through the first, then the second...

    Parameters
    ----------
    datasets : iterable of Dataset
        At least one; no :class:`IterableDataset` (use :class:`ChainDataset`).

    Attributes
    ----------
    cumulative_sizes : list of int
        ``cumulative_sizes[i]`` is the total length of datasets ``0 .. i``.
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    @staticmethod
    def cumsum(sequence):
        """Running totals of the lengths of ``sequence``'s items."""
        totals, running = [], 0
        for d in sequence:
            running += len(d)
            totals.append(running)
        return totals

    @property
    def cummulative_sizes(self):
        """Deprecated spelling of :attr:`cumulative_sizes`."""
        warn_for_user("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning)
        return self.cumulative_sizes

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _only_iterable(datasets):
    for d in datasets:
        if not isinstance(d, IterableDataset):
            raise AssertionError("ChainDataset only supports IterableDataset")
        yield d


class ChainDataset(IterableDataset):
    """Iterable datasets streamed one after another (lazily).

    Parameters
    ----------
    datasets : iterable of IterableDataset
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in _only_iterable(self.datasets):
            yield from d

    def __len__(self):
        return sum(len(d) for d in _only_iterable(self.datasets))


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``: ``subset[i]`` is ``dataset[indices[i]]``.

    Parameters
    ----------
    dataset : Dataset
    indices : sequence of int

    Notes
    -----
    A subclass that overrides ``__getitem__`` must override ``__getitems__`` too
    (DataLoader fetches batches through ``__getitems__``).
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing Subset and overriding "
                "__getitem__, you must also override __getitems__ to ensure DataLoader works correctly with your "
                "custom logic. A simple implementation:\n\ndef __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        inner = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self):
        return len(self.indices)


def _fraction_lengths(n, fractions):
    """Split lengths from fractions as torch does: floors, then the remainder one by one round-robin."""
    lengths = []
    for i, frac in enumerate(fractions):
        if not 0 <= frac <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warn_for_user(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` into non-overlapping random :class:`Subset` s of the given lengths.

    Parameters
    ----------
    dataset : Dataset
        A sized dataset.
    lengths : sequence of int or float
        The sizes of the pieces, or fractions summing to 1 (each piece gets ``floor(frac * n)``
        items; the items left over go one at a time to the pieces in order).
    generator : torch.Generator, optional
        Draws the permutation (one ``randperm(n)``); the default generator by default.

    Returns
    -------
    list of Subset
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
        total = sum(lengths)
    if total != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(total, generator=generator).tolist()
    pieces, start = [], 0
    for length in lengths:
        pieces.append(Subset(dataset, order[start:start + length]))
        start += length
    return pieces
