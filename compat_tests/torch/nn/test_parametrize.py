"""torch.nn.utils.parametrize and parametrizations.weight_norm against real torch: the class swap and repr,
state_dict keys, values and gradients through the parametrization, chained parametrizations, caching,
deep copies, removal (keeping the parametrized value or the original) and the errors."""

import copy

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt


def _symmetric(torch):
    class Symmetric(torch.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)
    return Symmetric()


def _scaled(torch):
    class Scaled(torch.nn.Module):
        def forward(self, x):
            return 2 * x

        def right_inverse(self, x):
            return x / 2
    return Scaled()


def _compare(run):
    want, got = run(real), run(vt)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, str):
            assert g == w
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization(dim):
    def run(torch):
        torch.manual_seed(0)
        layer = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 4), dim=dim)
        x = torch.from_numpy(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
        y = layer(x)
        (y * y).sum().backward()
        out = [repr(layer), ",".join(layer.state_dict()), ",".join(n for n, _ in layer.named_parameters()),
               type(layer).__name__, y.detach().numpy(), layer.parametrizations.weight.original0.grad.numpy(),
               layer.parametrizations.weight.original1.grad.numpy(), copy.deepcopy(layer)(x).detach().numpy()]
        torch.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        return out + [repr(layer), ",".join(n for n, _ in layer.named_parameters()), layer.weight.detach().numpy()]
    _compare(run)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_custom_parametrizations_chain_and_removal(leave_parametrized):
    def run(torch):
        torch.manual_seed(1)
        layer = torch.nn.Linear(3, 3)
        weight = layer.weight
        parametrize = torch.nn.utils.parametrize
        parametrize.register_parametrization(layer, "weight", _scaled(torch))
        parametrize.register_parametrization(layer, "weight", _symmetric(torch))
        parametrize.register_parametrization(layer, "bias", _scaled(torch))
        out = [repr(layer), ",".join(layer.state_dict()), str(layer.parametrizations.weight.original is weight),
               str(parametrize.is_parametrized(layer)), str(parametrize.is_parametrized(layer, "bias")),
               parametrize.type_before_parametrizations(layer).__name__, layer.weight.detach().numpy(),
               layer.parametrizations.weight.original.detach().numpy()]
        layer(torch.ones(2, 3)).sum().backward()
        out.append(layer.parametrizations.weight.original.grad.numpy())
        with parametrize.cached():
            out.append(str(layer.weight is layer.weight))
        out.append(str(layer.weight is layer.weight))
        parametrize.remove_parametrizations(layer, "weight", leave_parametrized=leave_parametrized)
        out += [repr(layer), str(layer.weight is weight), layer.weight.detach().numpy()]
        parametrize.remove_parametrizations(layer, "bias")
        return out + [repr(layer), type(layer).__name__, ",".join(n for n, _ in layer.named_parameters())]
    _compare(run)


@pytest.mark.parametrize("make", [
    lambda torch: torch.nn.utils.parametrize.remove_parametrizations(torch.nn.Linear(2, 2), "weight"),
    lambda torch: torch.nn.utils.parametrize.register_parametrization(torch.nn.Linear(2, 2), "foo",
                                                                      _symmetric(torch)),
    lambda torch: torch.nn.utils.parametrize.register_parametrization(torch.nn.Linear(2, 3), "weight",
                                                                      _symmetric(torch)),
    lambda torch: torch.nn.utils.parametrize.remove_parametrizations(
        torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2)), "weight", leave_parametrized=False),
])
def test_errors(make):
    errors = []
    for torch in (real, vt):
        with pytest.raises(Exception) as info:
            make(torch)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]
