"""DataLoader in the main process (num_workers=0) against real torch 2.13: batches, orders, generator states, errors."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch.data.common import LIBS, check_same


def tensors(torch, data, n=10):
    return data.TensorDataset(torch.arange(n, dtype=torch.float32).reshape(n, 1) / 2, torch.arange(n) * 3)


class Records:
    """Samples of mixed types: a dict with a numpy array, a Python int and float, a string."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.full(2, i, np.float32), "label": i % 2, "weight": i / 4, "name": f"s{i}"}


def streamed(data, n, length=None):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n if length is None else length
    return Stream()


def epochs(loader, count=2):
    return [list(loader) for _ in range(count)]


def seeded(fn, seed=0):
    def run(torch, data):
        torch.manual_seed(seed)
        out = fn(torch, data)
        return out, torch.rand(3)
    return run


# -- batching -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 10},
                                {"batch_size": 11}, {"batch_size": 11, "drop_last": True}, {"batch_size": None}])
def test_batches_and_len(kw):
    def f(torch, data):
        loader = data.DataLoader(tensors(torch, data), **kw)
        return epochs(loader), len(loader), loader.batch_size, loader.drop_last
    check_same(seeded(f))


@pytest.mark.parametrize("kw", [{"batch_size": 2}, {"batch_size": None}, {"batch_size": 2, "collate_fn": list}])
def test_mixed_samples(kw):
    check_same(seeded(lambda torch, data: list(data.DataLoader(Records(), **kw))))


def test_plain_sequences_and_arrays():
    def f(torch, data):
        return (list(data.DataLoader(range(5), batch_size=2)), list(data.DataLoader([[1, 2.5]] * 3, batch_size=2)),
                list(data.DataLoader(np.arange(6).reshape(3, 2), batch_size=2)),
                list(data.DataLoader(np.arange(3.0), batch_size=None)))
    check_same(seeded(f))


def test_getitems_fetches_whole_batches():
    def f(torch, data):
        calls = []

        class Batched(data.Dataset):
            def __len__(self):
                return 5

            def __getitem__(self, i):
                raise AssertionError("not used")

            def __getitems__(self, indices):
                calls.append(list(indices))
                return [i * 10 for i in indices]
        return list(data.DataLoader(Batched(), batch_size=2)), calls
    check_same(seeded(f))


# -- shuffling and the random streams -----------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3, 2024])
@pytest.mark.parametrize("kw", [{"batch_size": 3}, {"batch_size": 4, "drop_last": True}, {"batch_size": None},
                                {"batch_size": 1}])
def test_shuffle_default_generator(seed, kw):
    check_same(seeded(lambda torch, data: epochs(data.DataLoader(tensors(torch, data), shuffle=True, **kw)), seed))


@pytest.mark.parametrize("kw", [{"batch_size": 3}, {"batch_size": 5, "drop_last": True}, {"batch_size": None}])
def test_shuffle_own_generator(kw):
    def f(torch, data):
        g = torch.Generator().manual_seed(11)
        batches = epochs(data.DataLoader(tensors(torch, data), shuffle=True, generator=g, **kw))
        return batches, torch.rand(2, generator=g)
    check_same(seeded(f))


def test_iterators_draw_when_created_and_when_started():
    def f(torch, data):
        loader = data.DataLoader(tensors(torch, data), batch_size=4, shuffle=True)
        it = iter(loader)  # draws the base seed
        after_create = torch.rand(1)
        first = next(it)  # the sampler draws its seed now
        after_first = torch.rand(1)
        partial = iter(loader)  # abandoned after one batch
        return after_create, first, after_first, next(partial), list(it), list(loader)
    check_same(seeded(f))


def test_unshuffled_loader_still_draws_a_base_seed():
    check_same(seeded(lambda torch, data: [list(data.DataLoader(range(3))) for _ in range(3)]))


@pytest.mark.parametrize("sampler", ["random", "random_replacement", "subset", "sequential"])
def test_given_sampler(sampler):
    def f(torch, data):
        ds = tensors(torch, data, 7)
        g = torch.Generator().manual_seed(5)
        s = {"random": lambda: data.RandomSampler(ds),
             "random_replacement": lambda: data.RandomSampler(ds, replacement=True, num_samples=9, generator=g),
             "subset": lambda: data.SubsetRandomSampler([6, 0, 3], generator=g),
             "sequential": lambda: data.SequentialSampler(ds)}[sampler]()
        loader = data.DataLoader(ds, batch_size=2, sampler=s)
        return epochs(loader), len(loader), torch.rand(1, generator=g)
    check_same(seeded(f))


def test_given_batch_sampler():
    def f(torch, data):
        ds = tensors(torch, data, 7)
        loader = data.DataLoader(ds, batch_sampler=data.BatchSampler(data.RandomSampler(ds), 3, drop_last=True))
        plain = data.DataLoader(ds, batch_sampler=[[0, 1], [6], [2, 3, 4]])
        return epochs(loader), len(loader), list(plain), len(plain), loader.batch_size, loader.drop_last
    check_same(seeded(f))


def test_random_split_then_load():
    def f(torch, data):
        train, test = data.random_split(tensors(torch, data, 12), [0.75, 0.25])
        return list(data.DataLoader(train, batch_size=4, shuffle=True)), list(data.DataLoader(test, batch_size=4))
    check_same(seeded(f, 42))


# -- iterable datasets --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None},
                                {"batch_size": 4, "collate_fn": sum}])
def test_iterable_dataset(kw):
    def f(torch, data):
        loader = data.DataLoader(streamed(data, 5), **kw)
        return epochs(loader), len(loader)
    check_same(seeded(f))


@pytest.mark.parametrize("batch_size", [None, 2])
def test_iterable_length_warning(batch_size):
    def f(torch, data):
        loader = data.DataLoader(streamed(data, 5, length=2), batch_size=batch_size)
        before_len = list(loader)  # no warning: len() not asked yet
        return before_len, len(loader), list(loader)
    check_same(f)


@LIBS
def test_iterable_length_warning_text(lib, data):
    loader = data.DataLoader(streamed(data, 3, length=1))
    len(loader)
    with pytest.warns(UserWarning) as record:
        list(loader)
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and messages[0].startswith("Length of IterableDataset <")
    assert all(m.endswith(f"was reported to be 1(when accessing len(dataloader)), but {n} samples have been fetched. ")
               for m, n in zip(messages, (2, 3)))


# -- argument checks ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [
    {"sampler": [0, 1], "shuffle": True}, {"batch_sampler": [[0]], "batch_size": 2},
    {"batch_sampler": [[0]], "shuffle": True}, {"batch_sampler": [[0]], "sampler": [0]},
    {"batch_sampler": [[0]], "drop_last": True}, {"batch_size": None, "drop_last": True},
    {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"num_workers": 1, "prefetch_factor": -1},
    {"persistent_workers": True}, {"multiprocessing_context": "fork"},
    {"num_workers": 1, "multiprocessing_context": "bogus"}, {"num_workers": 1, "multiprocessing_context": 3},
    {"batch_size": 0}, {"batch_size": 2.0}, {"drop_last": None},
    {"shuffle": 0}, {"shuffle": 1},
])
def test_argument_errors(kw):
    def loaded(torch, data):
        torch.manual_seed(0)  # shuffled cases draw from the global generator
        return list(data.DataLoader(range(4), **kw))
    check_same(loaded)


def test_too_many_workers_warning():
    # constructing only: iterating would start the workers
    check_same(lambda torch, data: data.DataLoader(range(4), num_workers=512).num_workers)


@pytest.mark.parametrize("kw", [{"shuffle": True}, {"shuffle": False}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_iterable_dataset_argument_errors(kw):
    check_same(lambda torch, data: list(data.DataLoader(streamed(data, 2), **kw)), message=False)


@pytest.mark.parametrize("name", ["batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                  "persistent_workers", "num_workers", "collate_fn"])
def test_frozen_attributes(name):
    def f(torch, data):
        loader = data.DataLoader(range(4))
        setattr(loader, name, None)
        return getattr(loader, name)
    check_same(f)


def test_timeout_needs_workers():
    check_same(seeded(lambda torch, data: iter(data.DataLoader(range(3), timeout=1))))


@pytest.mark.parametrize("kw", [{"pin_memory": True}, {"pin_memory": True, "pin_memory_device": "cuda"},
                                {"pin_memory_device": "cuda"}, {"in_order": False}])
def test_accepted_options(kw):
    check_same(seeded(lambda torch, data: list(data.DataLoader(range(3), batch_size=2, **kw))))


@LIBS
def test_loader_attributes(lib, data):
    ds = tensors(lib, data)
    loader = data.DataLoader(ds, batch_size=4, shuffle=True)
    assert loader.dataset is ds and type(loader.sampler) is data.RandomSampler
    assert type(loader.batch_sampler) is data.BatchSampler and loader.batch_sampler.sampler is loader.sampler
    assert loader.collate_fn is data.default_collate and loader.num_workers == 0 and loader.prefetch_factor is None
    assert data.DataLoader(ds, batch_size=None).collate_fn is data.default_convert
    assert data.DataLoader(ds, num_workers=1).prefetch_factor == 2
    assert data.DataLoader[int] is not None and data.get_worker_info() is None
    it = iter(loader)
    assert iter(it) is it and len(it) == 3
    with pytest.raises(NotImplementedError):
        pickle.dumps(it)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), batch_size=st.one_of(st.none(), st.integers(1, 12)), drop_last=st.booleans(),
       shuffle=st.booleans(), seed=st.integers(0, 2 ** 63 - 1), own_generator=st.booleans(),
       replacement=st.booleans())
def test_random_configurations(n, batch_size, drop_last, shuffle, seed, own_generator, replacement):
    def f(torch, data):
        torch.manual_seed(seed)
        g = torch.Generator().manual_seed(seed // 3) if own_generator else None
        ds = tensors(torch, data, n)
        kw = {"batch_size": batch_size, "drop_last": drop_last and batch_size is not None, "generator": g}
        if replacement:
            kw["sampler"] = data.RandomSampler(ds, replacement=True, num_samples=n + 3, generator=g)
        else:
            kw["shuffle"] = shuffle
        loader = data.DataLoader(ds, **kw)
        return epochs(loader), len(loader), torch.rand(2), None if g is None else torch.rand(2, generator=g)
    check_same(f)
