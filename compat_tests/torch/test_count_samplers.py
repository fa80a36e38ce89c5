"""Seeded ``torch.poisson`` / ``torch.binomial`` draws value by value against real torch: torch's CPU samplers
(Poisson: Knuth's product of uniforms below rate 10, Hörmann's transformed rejection above; binomial: inversion
below mean 10, Hörmann's BTRS above) replayed on the generator's stream, directly and through the distributions
built on them (Poisson, NegativeBinomial, Binomial)."""

import pytest

from compat_tests.torch.harness import check


def seeded(draw):
    """``draw(torch)`` after seeding, followed by one uniform: the stream must also end where torch's does."""
    def run(torch):
        torch.manual_seed(0)
        return draw(torch), torch.rand(3)
    return run


@pytest.mark.parametrize("draw", [
    lambda torch: torch.poisson(torch.tensor([0.5, 3.0, 9.99, 10.0, 12.0, 0.0, 150.0, 1e6])),
    lambda torch: torch.poisson(torch.rand(40) * 30),
    lambda torch: torch.poisson(torch.rand(3, 5).t() * 20),  # non-contiguous rates: drawn in logical order
    lambda torch: torch.poisson(torch.full((2, 3), 4.5, dtype=torch.float64)),
    lambda torch: torch.poisson(torch.tensor([2.5, 60.0], dtype=torch.float16)),
    lambda torch: torch.poisson(torch.tensor([1e-3, 1e-12, 5e8])),
    lambda torch: torch.poisson(torch.tensor([float("inf"), 1e20])),  # torch's int64 conversion of the overflow
    lambda torch: torch.poisson(torch.rand(6) * 15, generator=torch.Generator().manual_seed(5)),
    lambda torch: torch.distributions.Poisson(torch.tensor([2.0, 40.0])).sample((4,)),
    lambda torch: torch.distributions.NegativeBinomial(torch.tensor([3.0, 20.0]), probs=torch.tensor(0.4)).sample((3,)),
])
def test_poisson_draws_match_torch(draw):
    check(seeded(draw))


def test_poisson_draws_with_a_generator_leave_the_default_stream_alone():
    def draw(torch):
        torch.manual_seed(1)
        g = torch.Generator().manual_seed(2)
        counts = torch.poisson(torch.tensor([3.0, 30.0]), generator=g)
        return counts, torch.rand(2), torch.rand(2, generator=g)
    check(draw)


@pytest.mark.parametrize("draw", [
    lambda torch: torch.binomial(torch.tensor([10.0, 100.0, 1000.0, 5.0, 50.0, 0.0, 7.0, 3.0]),
                                 torch.tensor([0.3, 0.3, 0.02, 0.9, 0.95, 0.5, 1.5, -0.2])),
    lambda torch: torch.binomial(torch.full((200,), 80.0), torch.rand(200)),  # both branches, p above and below 1/2
    lambda torch: torch.binomial(torch.full((30,), 1e6, dtype=torch.float64), torch.rand(30, dtype=torch.float64)),
    lambda torch: torch.binomial(torch.tensor([[4.0], [40.0]]).expand(2, 3), torch.rand(3, 2).t()),
    lambda torch: torch.binomial(torch.tensor([5.0, 30.0]), torch.tensor([float("nan"), 0.5])),
    lambda torch: torch.binomial(torch.tensor([25.0]), torch.tensor([0.7]), generator=torch.Generator().manual_seed(4)),
    lambda torch: torch.distributions.Binomial(20, torch.tensor([0.1, 0.6, 0.99])).sample((4,)),
])
def test_binomial_draws_match_torch(draw):
    check(seeded(draw))
