"""torch.utils.data samplers: which dataset indices a DataLoader fetches, and in which order.

The random samplers draw exactly what torch's do, from the same generators and at the
same moments (a sampler's iterator draws on its first ``next``), so a seeded program
visits torch's orders and leaves the generators in torch's states.
"""

from typing import Generic, TypeVar

from vfw.frontends.torch import _creation
from vfw.frontends.torch._dtype import float64, int64
from vfw.frontends.torch._random import multinomial, randint, randperm
from vfw.frontends.torch.random import Generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T_co = TypeVar("T_co", covariant=True)
_CHUNK = 32  # RandomSampler with replacement draws its indices 32 at a time, as torch does


def _positive_int(value, name):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _check_bool(value, name, error=ValueError):
    if not isinstance(value, bool):
        raise error(f"{name} should be a boolean value, but got {name}={value}")


def draw_seed(generator=None):
    """One int64 draw (``torch.empty((), dtype=torch.int64).random_(generator=...)``) as a Python int.

    This is how torch derives fresh seeds from a generator (the default one when ``None``):
    a sampler's private generator, a DataLoader iterator's base seed.
    """
    return int(_creation.empty((), dtype=int64).random_(generator=generator).item())


class Sampler(Generic[T_co]):
    """Base class of samplers: subclasses implement ``__iter__`` (indices, or lists of indices), maybe ``__len__``."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order.

    Parameters
    ----------
    data_source : Sized
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices into ``data_source``: a shuffled order, or independent draws with ``replacement``.

    Parameters
    ----------
    data_source : Sized
    replacement : bool
        Draw each index independently (``randint``) instead of permuting (``randperm``).
    num_samples : int, optional
        How many indices per pass (default ``len(data_source)``); without replacement, whole
        permutations are chained and the last one cut.
    generator : torch.Generator, optional
        Drawn from directly. Without one, each pass seeds a private generator from one draw
        of the default generator.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _check_bool(replacement, "replacement", TypeError)
        num = self.num_samples
        if not isinstance(num, int) or num <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num}")

    @property
    def num_samples(self):
        """int: indices yielded per pass."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator()
            generator.manual_seed(draw_seed())
        count = self.num_samples
        if self.replacement:
            for size in [_CHUNK] * (count // _CHUNK) + [count % _CHUNK]:
                yield from randint(high=n, size=(size,), dtype=int64, generator=generator).tolist()
        else:
            for _ in range(count // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:count % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (one ``randperm`` per pass).

    Parameters
    ----------
    indices : sequence of int
    generator : torch.Generator, optional
        The default generator when ``None``.
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (``torch.multinomial``).

    Parameters
    ----------
    weights : sequence of float
        One non-negative weight per index (1-D).
    num_samples : int
    replacement : bool
        With replacement (default) an index can repeat.
    generator : torch.Generator, optional
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _positive_int(num_samples, "num_samples")
        _check_bool(replacement, "replacement")
        weights = _creation.as_tensor(weights, dtype=float64)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    Parameters
    ----------
    sampler : Sampler or iterable of int
    batch_size : int
    drop_last : bool
        Drop a last, shorter batch instead of yielding it.
    """

    def __init__(self, sampler, batch_size, drop_last):
        _positive_int(batch_size, "batch_size")
        _check_bool(drop_last, "drop_last")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)
