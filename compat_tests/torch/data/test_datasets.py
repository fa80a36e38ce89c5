"""torch.utils.data datasets and random_split: vfw.torch against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.data.common import LIBS, check_same


class Squares:
    """A plain sized, indexable object (torch datasets accept any)."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        if not 0 <= i < 5:
            raise IndexError(i)
        return i * i


def stream(data, n):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


# -- Dataset / IterableDataset ------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: data.Dataset()[0],
    lambda torch, data: len(data.Dataset()),
    lambda torch, data: data.IterableDataset(),
    lambda torch, data: isinstance(stream(data, 2), data.Dataset),
    lambda torch, data: isinstance([], data.Dataset),
    lambda torch, data: data.Dataset[int].__name__ if hasattr(data.Dataset[int], "__name__") else "alias",
    lambda torch, data: list(stream(data, 2) + stream(data, 3)),
    lambda torch, data: len(stream(data, 2) + stream(data, 3)),
    lambda torch, data: type(stream(data, 2) + stream(data, 3)).__name__,
    lambda torch, data: type(data.TensorDataset(torch.arange(2)) + data.TensorDataset(torch.arange(3))).__name__,
])
def test_base_classes(fn):
    check_same(fn)


# -- TensorDataset ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: data.TensorDataset(torch.arange(6).reshape(3, 2), torch.tensor([1., 2., 3.]))[1],
    lambda torch, data: data.TensorDataset(torch.arange(6).reshape(3, 2), torch.tensor([1., 2., 3.]))[-1],
    lambda torch, data: data.TensorDataset(torch.arange(6).reshape(3, 2))[1:],
    lambda torch, data: len(data.TensorDataset(torch.arange(6).reshape(3, 2), torch.zeros(3, 4, 5))),
    lambda torch, data: data.TensorDataset(torch.arange(3))[3],
    lambda torch, data: data.TensorDataset(torch.arange(3), torch.arange(4)),
    lambda torch, data: len(data.TensorDataset().tensors),
    lambda torch, data: len(data.TensorDataset()),
])
def test_tensor_dataset(fn):
    check_same(fn, message=False)


@LIBS
def test_tensor_dataset_keeps_the_tensors(lib, data):
    x = lib.arange(4)
    ds = data.TensorDataset(x)
    assert ds.tensors[0] is x
    assert ds[2][0].item() == 2


# -- StackDataset -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: data.StackDataset(torch.arange(3), [10, 11, 12])[1],
    lambda torch, data: data.StackDataset(a=torch.arange(3), b=[10, 11, 12])[2],
    lambda torch, data: len(data.StackDataset(a=torch.arange(3), b=[10, 11, 12])),
    lambda torch, data: data.StackDataset(torch.arange(3), [1, 2]),
    lambda torch, data: data.StackDataset(a=torch.arange(3), b=[1, 2]),
    lambda torch, data: data.StackDataset(torch.arange(3), b=[1, 2, 3]),
    lambda torch, data: data.StackDataset(),
    lambda torch, data: data.StackDataset(torch.arange(3), [4, 5, 6]).__getitems__([2, 0]),
    lambda torch, data: data.StackDataset(x=torch.arange(3), y=data.Subset([4, 5, 6], [2, 1, 0])).__getitems__([0, 2]),
])
def test_stack_dataset(fn):
    check_same(fn)


@LIBS
def test_stack_dataset_nested_getitems_size_mismatch(lib, data):
    class Short(data.Dataset):
        def __len__(self):
            return 3

        def __getitems__(self, indices):
            return [0]
    with pytest.raises(ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"):
        data.StackDataset(Short()).__getitems__([0, 1])


# -- ConcatDataset / ChainDataset ---------------------------------------------------------------------------
@pytest.mark.parametrize("i", [0, 2, 3, 6, -1, -7, -8, 7, 100])
def test_concat_indexing(i):
    check_same(lambda torch, data: data.ConcatDataset([range(3), [], Squares(), range(1, 3)])[i], message=False)


@pytest.mark.parametrize("fn", [
    lambda torch, data: data.ConcatDataset([range(3), [], Squares()]).cumulative_sizes,
    lambda torch, data: len(data.ConcatDataset([range(3), [], Squares()])),
    lambda torch, data: data.ConcatDataset.cumsum([range(2), range(4)]),
    lambda torch, data: data.ConcatDataset([]),
    lambda torch, data: data.ConcatDataset(iter([])),
    lambda torch, data: data.ConcatDataset([range(2), stream(data, 2)]),
    lambda torch, data: data.ConcatDataset(x for x in [range(2), range(3)])[4],
    lambda torch, data: [(data.TensorDataset(torch.arange(2)) + data.TensorDataset(torch.arange(3)))[i]
                         for i in range(5)],
    lambda torch, data: data.ConcatDataset([range(2), range(3)]).cummulative_sizes,
])
def test_concat(fn):
    check_same(fn)


@pytest.mark.parametrize("fn", [
    lambda torch, data: list(data.ChainDataset([stream(data, 2), stream(data, 3)])),
    lambda torch, data: len(data.ChainDataset([stream(data, 2), stream(data, 3)])),
    lambda torch, data: list(data.ChainDataset([stream(data, 2), range(3)])),
    lambda torch, data: len(data.ChainDataset([stream(data, 2), range(3)])),
    lambda torch, data: next(iter(data.ChainDataset([stream(data, 2), range(3)]))),
    lambda torch, data: list(data.ChainDataset([])),
    lambda torch, data: list(stream(data, 1) + stream(data, 2) + stream(data, 1)),
])
def test_chain(fn):
    check_same(fn)


# -- Subset -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, data: [data.Subset(Squares(), [4, 0, 2])[i] for i in range(3)],
    lambda torch, data: data.Subset(Squares(), [4, 0, 2])[-1],
    lambda torch, data: len(data.Subset(Squares(), [4, 0, 2])),
    lambda torch, data: data.Subset(Squares(), [4, 0, 2]).__getitems__([2, 0]),
    lambda torch, data: data.Subset(data.TensorDataset(torch.arange(5) * 10), [3, 1])[1],
    lambda torch, data: data.Subset(data.Subset(Squares(), [4, 3, 2]), [2, 0]).__getitems__([0, 1]),
    lambda torch, data: data.Subset(np.arange(5) * 2, [1, 3])[[0, 1]].tolist(),
    lambda torch, data: data.Subset(Squares(), [4, 0, 2])[3],
])
def test_subset(fn):
    check_same(fn)


@LIBS
def test_subset_subclass_must_override_getitems(lib, data):
    class OnlyGetitem(data.Subset):
        def __getitem__(self, i):
            return 0

    class Both(OnlyGetitem):
        def __getitems__(self, indices):
            return [0] * len(indices)
    with pytest.raises(NotImplementedError, match="OnlyGetitem overrides __getitem__ but not __getitems__"):
        OnlyGetitem(range(3), [0])
    assert Both(range(3), [0, 1]).__getitems__([0, 1]) == [0, 0]


# -- random_split -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 7, 10, 31])
@pytest.mark.parametrize("lengths", [
    [0.3, 0.3, 0.4], [0.5, 0.5], [0.1] * 10, [1.0], [0.0, 1.0], [0.333, 0.333, 0.334], [0.9, 0.2], [-0.1, 1.1],
    [1.5, -0.5], [0.5, 0.25, 0.25], [3, 7], [3, 8], [0, 10], [7], [0.7, 0.3 + 1e-12], [1], (0.25, 0.75),
])
def test_random_split_lengths(n, lengths):
    def f(torch, data):
        g = torch.Generator().manual_seed(n)
        parts = data.random_split(range(n), lengths, generator=g)
        return [list(p) for p in parts], [p.indices for p in parts], torch.rand(2, generator=g)
    check_same(f)


@pytest.mark.parametrize("seed", [0, 1, 123])
def test_random_split_default_generator(seed):
    def f(torch, data):
        torch.manual_seed(seed)
        parts = data.random_split(data.TensorDataset(torch.arange(20)), [0.6, 0.4])
        return [p.indices for p in parts], [p[0] for p in parts], torch.rand(3)
    check_same(f)


@LIBS
def test_random_split_returns_subsets_of_the_dataset(lib, data):
    base = list(range(9))
    parts = data.random_split(base, [2, 3, 4], generator=lib.Generator().manual_seed(0))
    assert all(type(p) is data.Subset and p.dataset is base for p in parts)
    assert sorted(i for p in parts for i in p.indices) == base

