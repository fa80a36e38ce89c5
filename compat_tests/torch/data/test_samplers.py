"""torch.utils.data samplers against real torch 2.13: orders, lengths, errors, and the generator states they leave."""

import pytest

from compat_tests.torch.data.common import LIBS, check_same


def seeded(fn, seed=0):
    """``fn`` run after ``torch.manual_seed(seed)``, plus the next default-generator draw (the stream state)."""
    def run(torch, data):
        torch.manual_seed(seed)
        out = fn(torch, data)
        return out, torch.rand(3)
    return run


# -- SequentialSampler --------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: list(data.SequentialSampler(range(4))),
    lambda torch, data: len(data.SequentialSampler([5, 6])),
    lambda torch, data: list(data.SequentialSampler([])),
    lambda torch, data: list(data.Sampler()),
    lambda torch, data: len(data.Sampler()),
])
def test_sequential_and_base(fn):
    check_same(seeded(fn))


# -- RandomSampler ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 5, 33])
@pytest.mark.parametrize("kw", [{}, {"num_samples": 3}, {"num_samples": 12}, {"num_samples": 40},
                                {"replacement": True}, {"replacement": True, "num_samples": 31},
                                {"replacement": True, "num_samples": 32}, {"replacement": True, "num_samples": 70},
                                {"num_samples": True}])
@pytest.mark.parametrize("own_generator", [False, True])
def test_random_sampler_orders(n, kw, own_generator):
    def f(torch, data):
        g = torch.Generator().manual_seed(7) if own_generator else None
        s = data.RandomSampler(range(n), generator=g, **kw)
        first, second = list(s), list(s)  # each pass draws a new order
        return first, second, len(s), s.num_samples, None if g is None else torch.rand(2, generator=g)
    check_same(seeded(f, seed=n))


def test_random_sampler_draws_lazily():
    def f(torch, data):
        it = iter(data.RandomSampler(range(6)))
        before = torch.rand(1)  # creating the iterator draws nothing
        return before, next(it), list(it)
    check_same(seeded(f))


@pytest.mark.parametrize("fn", [
    lambda torch, data: data.RandomSampler(range(3), replacement=1),
    lambda torch, data: data.RandomSampler(range(3), replacement=None),
    lambda torch, data: data.RandomSampler(range(3), num_samples=0),
    lambda torch, data: data.RandomSampler(range(3), num_samples=2.0),
    lambda torch, data: data.RandomSampler(range(3), num_samples=-1),
    lambda torch, data: data.RandomSampler([]),
    lambda torch, data: list(data.RandomSampler([], num_samples=2)),
])
def test_random_sampler_errors(fn):
    check_same(seeded(fn))


@LIBS
def test_random_sampler_num_samples_follows_the_data(lib, data):
    source = [1, 2]
    s = data.RandomSampler(source)
    source.append(3)
    assert len(s) == s.num_samples == 3


# -- SubsetRandomSampler ------------------------------------------------------------------------------------
@pytest.mark.parametrize("own_generator", [False, True])
def test_subset_random_sampler(own_generator):
    def f(torch, data):
        g = torch.Generator().manual_seed(3) if own_generator else None
        s = data.SubsetRandomSampler([10, 20, 30, 40, 50], generator=g)
        return list(s), list(s), len(s)
    check_same(seeded(f))


# -- WeightedRandomSampler ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: len(data.WeightedRandomSampler([0.1, 0.9], 5)),
    lambda torch, data: data.WeightedRandomSampler([1, 2], 3).weights,
    lambda torch, data: data.WeightedRandomSampler(torch.tensor([1., 2.]), 3, replacement=False).replacement,
    lambda torch, data: data.WeightedRandomSampler([1., 2.], 0),
    lambda torch, data: data.WeightedRandomSampler([1., 2.], True),
    lambda torch, data: data.WeightedRandomSampler([1., 2.], 2.0),
    lambda torch, data: data.WeightedRandomSampler([1., 2.], 2, replacement=0),
    lambda torch, data: data.WeightedRandomSampler([[1., 2.]], 2),
    lambda torch, data: data.WeightedRandomSampler(5., 2),
    lambda torch, data: list(data.WeightedRandomSampler([1., 2.], 3, replacement=False)),
    lambda torch, data: list(data.WeightedRandomSampler([1., -2.], 3)),
    lambda torch, data: list(data.WeightedRandomSampler([0., 0.], 3)),
    # draws that do not depend on the bit stream
    lambda torch, data: list(data.WeightedRandomSampler([0., 3., 0.], 4)),
    lambda torch, data: sorted(data.WeightedRandomSampler([1., 3., 2.], 3, replacement=False)),
])
def test_weighted_random_sampler(fn):
    check_same(fn, message=False)


@pytest.mark.parametrize("weights,n,replacement", [
    ([0.0, 1.0, 0.0, 3.0, 2.0], 3000, True), ([0.0, 1.0, 0.0, 3.0, 2.0], 3, False),
    ([0.0, 1.0, 0.0, 3.0, 2.0], 5, False), ([0.1, 0.9], 7, True), ([5.0] * 40, 17, False), ([1, 2, 3, 4], 10, True),
])
def test_weighted_random_sampler_draws_torch_indices(weights, n, replacement):
    # torch.multinomial's draws, so a seed gives torch's indices (a generator's and the default one's)
    def fn(torch, data):
        g = torch.Generator().manual_seed(0)
        return (list(data.WeightedRandomSampler(weights, n, replacement, generator=g)), torch.rand(2, generator=g),
                list(data.WeightedRandomSampler(weights, n, replacement)))
    check_same(seeded(fn, 3))


# -- BatchSampler -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 6, 7])
@pytest.mark.parametrize("batch_size", [1, 3, 8])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler(n, batch_size, drop_last):
    def f(torch, data):
        s = data.BatchSampler(data.SequentialSampler(range(n)), batch_size, drop_last)
        return list(s), len(s), list(data.BatchSampler(iter(range(n)), batch_size, drop_last))
    check_same(f)


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_over_random_sampler(drop_last):
    def f(torch, data):
        g = torch.Generator().manual_seed(1)
        s = data.BatchSampler(data.RandomSampler(range(10), generator=g), 4, drop_last)
        return list(s), list(s), torch.rand(2, generator=g)
    check_same(seeded(f))


@pytest.mark.parametrize("args", [(0, False), (-2, False), (2.0, False), (True, False), (None, False), (2, None),
                                  (2, 1), (2, "yes")])
def test_batch_sampler_errors(args):
    check_same(lambda torch, data: data.BatchSampler(range(4), *args))


# -- DistributedSampler -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 8, 10])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler(n, replicas, shuffle, drop_last):
    def f(torch, data):
        out = []
        for rank in range(replicas):
            s = data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=3,
                                        drop_last=drop_last)
            first = list(s)
            s.set_epoch(2)
            out.append((first, list(s), len(s), s.total_size, s.num_samples))
        return out
    check_same(seeded(f))


@pytest.mark.parametrize("kw", [{"num_replicas": 2, "rank": 2}, {"num_replicas": 2, "rank": -1},
                                {"num_replicas": 2}, {"rank": 0}, {}])
def test_distributed_sampler_errors(kw):
    # without num_replicas/rank torch asks its (uninitialized) process group: a ValueError in both
    check_same(lambda torch, data: data.DistributedSampler(range(4), **kw), message="rank" in kw and len(kw) == 2)


def test_distributed_sampler_tiny_dataset_padding():
    check_same(lambda torch, data: [list(data.DistributedSampler(range(2), num_replicas=5, rank=r, shuffle=False))
                                    for r in range(5)])
