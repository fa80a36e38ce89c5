"""Fetchers: turn what the index sampler yields into one (collated) item of a DataLoader.

A map-style fetcher indexes the dataset (a whole batch through ``__getitems__`` when the
dataset has it); an iterable fetcher pulls the next samples from the dataset's iterator and
raises StopIteration once it is exhausted.
"""


class DatasetFetcher:
    """What both fetchers hold: the dataset, whether indices come in batches, the collate function."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, possibly_batched_index):
        raise NotImplementedError


class MapDatasetFetcher(DatasetFetcher):
    """Fetch ``dataset[i]`` for one index, or the samples of a batch of indices, and collate them."""

    def fetch(self, possibly_batched_index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            samples = getitems(possibly_batched_index)
        else:
            samples = [self.dataset[i] for i in possibly_batched_index]
        return self.collate_fn(samples)


class IterableDatasetFetcher(DatasetFetcher):
    """Pull the next sample (or as many samples as the batch has indices) from the dataset's iterator."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        samples = []
        for _ in possibly_batched_index:
            try:
                samples.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(samples)


MAP, ITERABLE = 0, 1  # dataset kinds (torch.utils.data._DatasetKind.Map / .Iterable)


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    """The fetcher for a dataset of ``kind`` (``MAP`` or ``ITERABLE``)."""
    fetcher = IterableDatasetFetcher if kind == ITERABLE else MapDatasetFetcher
    return fetcher(dataset, auto_collation, collate_fn, drop_last)
