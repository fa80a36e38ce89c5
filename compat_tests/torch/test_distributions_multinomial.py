"""torch.distributions.Multinomial against real torch: log_prob / entropy / moments and their gradients, torch's
draws from the same seed (with sample shapes, batches and expand), support checks, reprs and errors."""

import pytest

from compat_tests.torch.harness import arrays, check, check_grad


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_scores_moments_and_gradients(given):
    def fn(torch, param):
        param = param.softmax(-1) if given == "probs" else param
        d = torch.distributions.Multinomial(4, **{given: param})
        counts = torch.tensor([[1.0, 0.0, 3.0], [2.0, 2.0, 0.0]])
        return (d.log_prob(counts), d.entropy(), d.mean, d.variance, d.probs, d.logits, d.batch_shape,
                d.event_shape, d.param_shape, d.total_count, repr(d), repr(d.support),
                d.expand((3, 2)).log_prob(counts))
    check_grad(fn, arrays((2, 3), seed=4), rtol=1e-5, atol=1e-5)


def test_draws_are_torchs():
    def fn(torch):
        torch.manual_seed(9)
        d = torch.distributions.Multinomial(7, probs=torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
        single = torch.distributions.Multinomial(probs=torch.tensor([0.5, 0.25, 0.25], dtype=torch.float64))
        return d.sample(), d.sample((3, 2)), d.expand((4, 2)).sample(), single.sample((5,)), single.sample().dtype
    check(fn)


def test_zero_probability_categories_and_unvalidated_counts():
    def fn(torch):
        d = torch.distributions.Multinomial(3, logits=torch.tensor([0.0, -float("inf"), 1.0]))
        loose = torch.distributions.Multinomial(2, probs=torch.tensor([0.5, 0.5]), validate_args=False)
        return (d.log_prob(torch.tensor([1.0, 0.0, 2.0])), d.support.check(torch.tensor([[1.0, 0.0, 2.0],
                                                                                         [2.0, 2.0, 0.0],
                                                                                         [-1.0, 1.0, 3.0]])),
                loose.log_prob(torch.tensor([1.0, 2.0])))
    check(fn)


@pytest.mark.parametrize("case", ["float_count", "out_of_support", "rsample"])
def test_errors_match_torch(case):
    def fn(torch):
        probs = torch.tensor([0.5, 0.5])
        if case == "float_count":
            return torch.distributions.Multinomial(2.5, probs=probs)
        d = torch.distributions.Multinomial(2, probs=probs, validate_args=True)
        return d.log_prob(torch.tensor([1.0, 2.0])) if case == "out_of_support" else d.rsample()
    check(fn)
