"""torch.nn.utils.weight_norm / spectral_norm (hook forms) and their removal, against real torch: parameter and
buffer names and order, seeded power-iteration vectors, forward values and gradients in training and eval
mode, and the errors.

Layers are made in float32 from the seed, then converted to float64 and normalized: the gradient through the
division by the spectral norm cancels terms, so float32 results of any two implementations differ in proportion
to the gradient's largest entry, not to each entry; in float64 they agree closely.
"""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt


def _flat(values):
    return [v for v in values if not isinstance(v, str)], [v for v in values if isinstance(v, str)]


def _assert_runs_agree(run):
    want_numbers, want_texts = _flat(run(real))
    got_numbers, got_texts = _flat(run(vt))
    assert got_texts == want_texts
    np.testing.assert_allclose(np.concatenate([np.ravel(v) for v in got_numbers]),
                               np.concatenate([np.ravel(v) for v in want_numbers]), rtol=1e-9, atol=1e-12)


def _input_for(torch, module):
    """A float64 input from numpy (torch's float32 normals may differ from vfw's in the last bit)."""
    if isinstance(module, torch.nn.Linear):
        shape = (2, module.in_features)
    elif isinstance(module, torch.nn.Conv1d):
        shape = (1, module.in_channels, 6)
    else:
        shape = (1, module.in_channels, 5, 5)
    return torch.from_numpy(np.random.default_rng(0).standard_normal(shape))


LAYERS = {"linear": lambda nn: nn.Linear(3, 4), "conv2d": lambda nn: nn.Conv2d(2, 3, 3),
          "conv1d": lambda nn: nn.Conv1d(2, 3, 2), "conv_transpose2d": lambda nn: nn.ConvTranspose2d(2, 3, 3)}


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm(layer, dim):
    def run(torch):
        torch.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = torch.nn.utils.weight_norm(LAYERS[layer](torch.nn).double(), dim=dim)
        x = _input_for(torch, module)
        y = module(x)
        (y * y).sum().backward()
        out = [",".join(n for n, _ in module.named_parameters()), ",".join(module.state_dict()),
               str(tuple(module.weight_g.shape)), str(caught[0].category.__name__), str(caught[0].message),
               y.detach().numpy(), module.weight_g.grad.numpy(), module.weight_v.grad.numpy()]
        torch.nn.utils.remove_weight_norm(module)
        return out + [",".join(n for n, _ in module.named_parameters()), module.weight.detach().numpy(),
                      str(module.weight.requires_grad)]
    _assert_runs_agree(run)


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("iterations", [1, 3])
def test_spectral_norm(layer, iterations):
    def run(torch):
        torch.manual_seed(1)
        module = torch.nn.utils.spectral_norm(LAYERS[layer](torch.nn).double(), n_power_iterations=iterations)
        out = [",".join(n for n, _ in module.named_parameters()), ",".join(n for n, _ in module.named_buffers()),
               ",".join(module.state_dict()), module.weight_u.numpy().copy(), module.weight_v.numpy().copy()]
        x = _input_for(torch, module)
        for _ in range(3):
            y = module(x)
            y.pow(2).sum().backward()
            out += [y.detach().numpy(), module.weight_u.numpy().copy()]
        out.append(module.weight_orig.grad.numpy())
        module.eval()
        out += [module(x).detach().numpy(), module.weight_v.numpy().copy()]
        torch.nn.utils.remove_spectral_norm(module)
        return out + [",".join(n for n, _ in module.named_parameters()), ",".join(n for n, _ in module.named_buffers()),
                      module.weight.detach().numpy()]
    _assert_runs_agree(run)


@pytest.mark.parametrize("make", [
    lambda torch: torch.nn.utils.remove_weight_norm(torch.nn.Linear(2, 2)),
    lambda torch: torch.nn.utils.remove_spectral_norm(torch.nn.Linear(2, 2)),
    lambda torch: torch.nn.utils.weight_norm(torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))),
    lambda torch: torch.nn.utils.spectral_norm(torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2))),
    lambda torch: torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0),
])
def test_errors(make):
    errors = []
    for torch in (real, vt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                make(torch)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0])
    assert str(errors[1]) == str(errors[0])
