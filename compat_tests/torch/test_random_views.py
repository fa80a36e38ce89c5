"""In-place random fills of non-contiguous views against real torch 2.13, value by value.

torch fills a tensor in the order its TensorIterator walks it: dims by decreasing stride, which
for views is memory order (``x.t().uniform_()`` fills ``x`` row by row); ``normal_`` of a
non-contiguous tensor draws scalar Box-Muller normals whatever its size.  Each case also compares
the next draw of the stream.
"""

import pytest

from compat_tests.torch.harness import check

VIEWS = [
    lambda torch, d: torch.empty(5, 7, dtype=d).t(),
    lambda torch, d: torch.empty(6, 9, dtype=d).t(),  # 54 elements: normal_ would take blocks of 16 if contiguous
    lambda torch, d: torch.empty(4, 10, dtype=d)[:, ::2],
    lambda torch, d: torch.empty(2, 3, 4, dtype=d).permute(2, 0, 1),
    lambda torch, d: torch.empty(20, 3, dtype=d)[:, 1],  # 1-D with a stride: memory order, scalar normals
    lambda torch, d: torch.empty(1, 6, 1, 4, dtype=d).transpose(1, 3),
    lambda torch, d: torch.empty(3, 4, 5, dtype=d).transpose(0, 2)[1:, :, ::2],
]

FILLS = [
    ("float32", lambda t: t.uniform_()), ("float32", lambda t: t.uniform_(-2.0, 3.0)),
    ("float64", lambda t: t.uniform_()), ("float32", lambda t: t.normal_()), ("float32", lambda t: t.normal_(1.0, 2.0)),
    ("float64", lambda t: t.normal_(-1.0, 0.5)), ("float32", lambda t: t.bernoulli_(0.3)),
    ("float64", lambda t: t.bernoulli_(0.7)), ("float32", lambda t: t.random_(0, 100)),
    ("int64", lambda t: t.random_(-50, 50)), ("int32", lambda t: t.random_(1000)),
    ("float32", lambda t: t.exponential_(2.0)),
]


def _after(fill):
    def run(torch, make, dtype):
        torch.manual_seed(3)
        t = make(torch, getattr(torch, dtype))
        fill(t)
        return t, torch.rand(2)
    return run


@pytest.mark.parametrize("view", range(len(VIEWS)))
@pytest.mark.parametrize("dtype,fill", FILLS)
def test_in_place_fills_of_views_match_torch(dtype, fill, view):
    check(lambda torch: _after(fill)(torch, VIEWS[view], dtype))


@pytest.mark.parametrize("view", range(len(VIEWS)))
def test_bernoulli_with_tensor_probabilities_walks_them_with_the_view(view):
    def run(torch):
        torch.manual_seed(4)
        t, u = VIEWS[view](torch, torch.float32), VIEWS[view](torch, torch.float32)
        p = torch.linspace(0.05, 0.95, t.shape[-1])  # broadcast along the last dim
        full = torch.rand(t.shape)  # one probability per element, drawn first
        return t.bernoulli_(p), u.bernoulli_(full), torch.rand(2)
    check(run)


def test_views_of_the_whole_base_fill_the_base_in_memory_order():
    def run(torch):
        torch.manual_seed(5)
        x = torch.empty(4, 6)
        x.t().uniform_()
        y = torch.empty(3, 5, dtype=torch.float64)
        y.t().normal_()
        return x, y
    check(run)


def test_short_half_normals_round_once_from_double():
    # torch casts each double Box-Muller value to the half type directly
    def run(torch):
        torch.manual_seed(6)
        return (torch.randn(9, dtype=torch.float16), torch.randn(5, dtype=torch.bfloat16),
                torch.empty(8, 3, dtype=torch.float16).t().normal_(2.0, 3.0))
    check(run)
