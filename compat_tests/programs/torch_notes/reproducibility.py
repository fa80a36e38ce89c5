"""The "Reproducibility" note: torch.manual_seed makes draws repeat, torch.Generator objects with their own seeds
and states (get_state / set_state, initial_seed, seed), use_deterministic_algorithms and its query functions,
and a DataLoader whose shuffling follows an explicit generator and whose worker_init_fn seeds each worker's
other libraries (the note's seed_worker)."""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def main():
    out = []
    torch.manual_seed(0)
    first = torch.rand(3)
    torch.manual_seed(0)
    out += first.tolist() + [torch.equal(first, torch.rand(3)), torch.initial_seed()]
    state = torch.get_rng_state()
    a = torch.randn(4)
    torch.set_rng_state(state)
    out.append(torch.equal(a, torch.randn(4)))

    g = torch.Generator()
    out.append(repr(g.device))
    g.manual_seed(2147483647)
    out += [g.initial_seed(), repr(type(g.manual_seed(7)).__name__)]
    g.manual_seed(2147483647)
    draws = torch.randint(0, 100, (6,), generator=g)
    g_state = g.get_state()
    after = torch.rand(2, generator=g)
    g.set_state(g_state)
    out += draws.tolist() + [torch.equal(after, torch.rand(2, generator=g)), repr(g_state.dtype)]
    other = torch.Generator().manual_seed(2147483647)
    out.append(torch.equal(torch.randint(0, 100, (6,), generator=other), draws))
    clone = torch.Generator()
    clone.set_state(other.get_state())
    out.append(torch.equal(torch.randn(3, generator=clone), torch.randn(3, generator=other)))
    out += torch.randperm(8, generator=torch.Generator().manual_seed(3)).tolist()
    out += torch.randn(3, generator=torch.Generator().manual_seed(3)).tolist()

    out += [torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()]
    torch.use_deterministic_algorithms(True)
    out.append(torch.are_deterministic_algorithms_enabled())
    torch.use_deterministic_algorithms(True, warn_only=True)
    out.append(torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(False)
    out += [torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic,
            torch.backends.cudnn.benchmark, torch.get_deterministic_debug_mode()]
    torch.set_deterministic_debug_mode("warn")
    out.append(torch.get_deterministic_debug_mode())
    torch.set_deterministic_debug_mode(0)

    dataset = TensorDataset(torch.arange(10.0), torch.arange(10))
    orders = []
    for _ in range(2):
        loader_gen = torch.Generator()
        loader_gen.manual_seed(0)
        loader = DataLoader(dataset, batch_size=4, shuffle=True, worker_init_fn=seed_worker, generator=loader_gen)
        orders.append([batch[1].tolist() for batch in loader])
    out += [repr(orders[0]), orders[0] == orders[1]]
    torch.manual_seed(1)
    plain = [batch[1].tolist() for batch in DataLoader(dataset, batch_size=5, shuffle=True)]
    out.append(repr(plain))
    seed_worker(0)
    out += [random.random() == random.Random(torch.initial_seed()).random()]
    return out
