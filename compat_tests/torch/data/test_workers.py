"""DataLoader with worker processes against real torch 2.13: seeding and streams, order, errors, shutdown.

Each test starts only a few small workers (fork start-up is cheap; one test uses 'spawn').
"""

import gc
import multiprocessing
import os
import random
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from compat_tests.torch.data.common import LIBS, check_same, real, real_data, vfw_data, vt
from compat_tests.torch.data.spawn_datasets import SeedProbe


def probe(torch, data, n=7):
    """A map-style dataset whose samples report the worker's random draws and WorkerInfo."""
    class Probe(data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            info = data.get_worker_info()
            return {"i": i, "torch": torch.rand(2), "randint": torch.randint(0, 1000, (2,)),
                    "numpy": np.random.rand(2), "random": random.random(), "id": info.id, "seed": info.seed,
                    "num_workers": info.num_workers, "initial_seed": torch.initial_seed(),
                    "threads": torch.get_num_threads()}
    return Probe()


def no_children():
    """True when this process has no child processes left (waiting briefly for stopping workers).

    Collects garbage first: an iterator kept alive by a reference cycle (a caught exception's
    traceback holds its frames) stops its workers when it is collected.
    """
    gc.collect()
    for _ in range(50):
        if not multiprocessing.active_children():
            return True
        time.sleep(0.1)
    return False


def next_error(it):
    """``(type name, message lines)`` of the exception ``next(it)`` raises."""
    try:
        next(it)
    except Exception as e:  # noqa: BLE001
        # torch's re-raised exception is in a reference cycle with the iterator's frames: without
        # its traceback the iterator is freed (and stops its workers) as soon as it is dropped
        e.__traceback__ = None
        return type(e).__name__, str(e).splitlines()
    raise AssertionError("next() did not raise")


# -- seeding and streams --------------------------------------------------------------------------------------
@pytest.mark.parametrize("own_generator", [False, True])
def test_worker_streams_match_torch(own_generator):
    def f(torch, data):
        torch.manual_seed(17)
        g = torch.Generator().manual_seed(5) if own_generator else None
        loader = data.DataLoader(probe(torch, data), batch_size=2, shuffle=True, num_workers=2, generator=g)
        batches = list(loader)
        return batches, torch.rand(2), None if g is None else torch.rand(2, generator=g)
    check_same(f)


def test_persistent_workers_keep_their_streams():
    def f(torch, data):
        torch.manual_seed(3)
        loader = data.DataLoader(probe(torch, data, 5), batch_size=2, shuffle=True, num_workers=2,
                                 persistent_workers=True, prefetch_factor=1)
        first = list(loader)
        it = iter(loader)
        partial = next(it)  # an abandoned epoch: the next one starts cleanly
        second, third = list(loader), list(loader)
        same_iterator = iter(loader) is it
        del loader, it
        return first, partial, second, third, same_iterator, torch.rand(2)
    check_same(f)
    assert no_children()


def test_spawned_workers_seed_like_torch():
    vt.manual_seed(8)
    got = list(vfw_data.DataLoader(SeedProbe(), batch_size=3, num_workers=2, multiprocessing_context="spawn"))
    real.manual_seed(8)

    class RealProbe(real_data.Dataset):
        __len__ = SeedProbe.__len__

        def __getitem__(self, i):
            info = real_data.get_worker_info()
            return {"i": i, "torch": real.rand(2), "numpy": np.random.rand(2), "random": random.random(),
                    "id": info.id, "seed": info.seed}
    want = list(real_data.DataLoader(RealProbe(), batch_size=3, num_workers=2))
    for w, g in zip(want, got, strict=True):
        assert w.keys() == g.keys()
        for k in w:
            np.testing.assert_array_equal(g[k].numpy(), w[k].numpy(), err_msg=k)
            assert str(g[k].dtype) == str(w[k].dtype)


# -- iterable datasets --------------------------------------------------------------------------------------
def worker_stream(data, start, end, split):
    class Range(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            if not split or info is None:
                return iter(range(start, end))
            per_worker = -(-(end - start) // info.num_workers)
            lo = start + info.id * per_worker
            return iter(range(lo, min(lo + per_worker, end)))

        def __len__(self):
            return end - start
    return Range()


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("kw", [{}, {"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None}])
def test_iterable_dataset_with_workers(split, kw):
    def f(torch, data):
        loader = data.DataLoader(worker_stream(data, 3, 8, split), num_workers=2, **kw)
        first = list(loader)
        length = len(loader)
        return first, length, list(loader)  # the second epoch warns once more items than len() came
    check_same(f)


def test_iterable_dataset_persistent_workers():
    def f(torch, data):
        loader = data.DataLoader(worker_stream(data, 0, 5, True), batch_size=2, num_workers=2,
                                 persistent_workers=True)
        return list(loader), list(loader)
    check_same(f)


# -- errors -------------------------------------------------------------------------------------------------
def failing(data, error, at=3):
    class Failing(data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == at:
                raise error(f"bad index {i}")
            return i
    return Failing()


@pytest.mark.parametrize("error", [ValueError, KeyError, IndexError, StopIteration])
def test_worker_exception_is_reraised(error):
    def f(torch, data):
        it = iter(data.DataLoader(failing(data, error), batch_size=2, num_workers=2))
        first = next(it)
        name, lines = next_error(it)
        return first, (name, lines[:2], lines[-1]), list(it)  # the iterator goes on after the error
    want, got = check_same(f)
    assert got[1][1] == [f"Caught {error.__name__} in DataLoader worker process 1.",
                         "Original Traceback (most recent call last):"]
    assert no_children()


def test_worker_init_fn():
    def f(torch, data):
        def init(worker_id):
            info = data.get_worker_info()
            info.dataset.offset = 100 * (worker_id + 1) + int(torch.randint(0, 10, ()))

        class Offset(data.Dataset):
            offset = 0

            def __len__(self):
                return 4

            def __getitem__(self, i):
                return i + self.offset
        torch.manual_seed(1)
        return list(data.DataLoader(Offset(), batch_size=1, num_workers=2, worker_init_fn=init))
    check_same(f)


def init_fails_in_worker_0(worker_id):
    if worker_id == 0:
        raise RuntimeError("init failed")


def test_worker_init_fn_error():
    def f(torch, data):
        it = iter(data.DataLoader(range(4), num_workers=2, worker_init_fn=init_fails_in_worker_0))
        name, lines = next_error(it)
        return name, lines[0], lines[-1], next(it)
    check_same(f)


def test_worker_init_fn_error_every_batch():
    # torch reports the failure once, then fails on its missing fetcher (UnboundLocalError);
    # vfw reports the init failure for every batch of that worker
    outcomes = []
    it = iter(vfw_data.DataLoader(range(6), num_workers=2, worker_init_fn=init_fails_in_worker_0))
    for i in range(6):
        outcomes.append(next_error(it)[1][-1] if i % 2 == 0 else int(next(it)))
    assert outcomes == ["RuntimeError: init failed", 1, "RuntimeError: init failed", 3, "RuntimeError: init failed", 5]


@LIBS
def test_worker_info_is_frozen(lib, data):
    def f(i):
        info = data.get_worker_info()
        try:
            info.id = 5
        except AttributeError:
            return (info.id, info.num_workers, info.seed - info.id, type(info.dataset).__name__,
                    info.worker_method, info.rng)
    lib.manual_seed(0)
    out = list(data.DataLoader(data.StackDataset(range(2)), num_workers=2, batch_size=None,
                               collate_fn=lambda sample: f(sample)))
    assert [o[0] for o in out] == [0, 1] and out[0][1] == 2 and out[0][2] == out[1][2]
    assert out[0][3:] == ("StackDataset", "multiprocessing", None)


@LIBS
def test_timeout(lib, data):
    class Slow(data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(1.0)
            return i
    it = iter(data.DataLoader(Slow(), num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        next(it)
    del it
    assert no_children()


@LIBS
def test_dead_worker(lib, data):
    class Dies(data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            os._exit(3)
    it = iter(data.DataLoader(Dies(), num_workers=1))
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        next(it)
    del it
    assert no_children()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # torch's __del__ then fails
def test_prefetch_factor_zero():
    def f(torch, data):
        torch.manual_seed(0)
        loader = data.DataLoader(range(4), num_workers=1, prefetch_factor=0)
        try:
            iter(loader)
        except AssertionError as e:
            return str(e), torch.rand(2)  # the base seed was drawn before the check
    check_same(f)


def test_unpicklable_results_are_errors_not_hangs():
    # torch loses such results in its queue thread and waits forever; vfw reports them
    it = iter(vfw_data.DataLoader(range(2), num_workers=1, collate_fn=lambda batch: lambda: batch))
    name, lines = next_error(it)
    assert lines[0].startswith("Caught ") and lines[0].endswith(" in DataLoader worker process 0.")
    assert "pickle" in lines[-1]

    class LocalError(Exception):
        pass

    def fail(batch):
        raise LocalError("boom")
    it = iter(vfw_data.DataLoader(range(2), num_workers=1, collate_fn=fail))
    name, lines = next_error(it)
    assert name == "RuntimeError" and lines[0] == "Caught RuntimeError in DataLoader worker process 0."
    assert lines[-1].endswith("LocalError: boom")


# -- order and shutdown -------------------------------------------------------------------------------------
@LIBS
def test_out_of_order_delivery(lib, data):
    class SlowFirst(data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            if i == 0:
                time.sleep(0.5)
            return i
    in_order = [int(b) for b in data.DataLoader(SlowFirst(), num_workers=2)]
    as_ready = [int(b) for b in data.DataLoader(SlowFirst(), num_workers=2, in_order=False)]
    assert in_order == list(range(6))
    assert sorted(as_ready) == list(range(6)) and as_ready[0] != 0


@LIBS
def test_workers_stop(lib, data):
    loader = data.DataLoader(range(20), batch_size=2, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 1:
            break  # the iterator is dropped: its workers stop
    assert no_children()
    it = iter(loader)
    next(it)
    del it
    assert no_children()
    assert len(list(loader)) == 10 and no_children()
    persistent = data.DataLoader(range(4), num_workers=2, persistent_workers=True)
    list(persistent)
    assert len(multiprocessing.active_children()) == 2
    del persistent
    assert no_children()


@pytest.mark.parametrize("persistent", [False, True])
def test_interpreter_exits_with_live_workers(persistent):
    script = textwrap.dedent(f"""
        import vfw.torch as torch
        from vfw.torch.utils.data import DataLoader
        loader = DataLoader(range(100), batch_size=2, num_workers=2, persistent_workers={persistent})
        it = iter(loader)
        print(next(it).tolist())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1]" and done.stderr == ""
