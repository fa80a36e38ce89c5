"""Fixes found by the round-15 programs: Uniform.icdf (so TransformedDistribution.icdf over a Uniform base works)
and torch.autograd.grad refusing an empty ``inputs``, compared with real torch."""

import numpy as np
import pytest
import vfw.torch as vt

torch = pytest.importorskip("torch")


def _transformed_uniform(lib):
    transforms = lib.distributions.transforms
    return lib.distributions.TransformedDistribution(
        lib.distributions.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 3.0])),
        [transforms.AffineTransform(1.0, 2.0), transforms.PowerTransform(2.0)])


def test_uniform_icdf_matches_torch():
    probs = [[0.0, 0.25], [0.7, 1.0]]
    want = torch.distributions.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0])).icdf(torch.tensor(probs))
    got = vt.distributions.Uniform(vt.tensor([0.0, -1.0]), vt.tensor([1.0, 3.0])).icdf(vt.tensor(probs))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_transformed_uniform_icdf_and_its_gradient_match_torch():
    results = []
    for lib in (torch, vt):
        probs = lib.tensor([[0.2, 0.7], [0.9, 0.1]], requires_grad=True)
        quantiles = _transformed_uniform(lib).icdf(probs)
        quantiles.sum().backward()
        results.append((quantiles.detach().numpy(), probs.grad.numpy()))
    for want, got in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("inputs", [[], ()])
def test_grad_with_no_inputs_raises_as_torch(inputs):
    for lib in (torch, vt):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty"):
            lib.autograd.grad((x * 2).sum(), inputs)
