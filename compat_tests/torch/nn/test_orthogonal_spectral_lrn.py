"""nn.CrossMapLRN2d, parametrizations.orthogonal and the new-style parametrizations.spectral_norm against torch 2.13."""

import numpy as np
import pytest
import vfw.torch as vt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


# -- CrossMapLRN2d ---------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 9])
def test_cross_map_lrn2d_values(size):
    x = RNG.random((2, 7, 3, 3))
    ours = vt.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=2)
    ref = torch.nn.CrossMapLRN2d(size, alpha=0.3, beta=0.6, k=2)
    np.testing.assert_allclose(ours(vt.tensor(x)).numpy(), ref(torch.tensor(x)).numpy(), rtol=1e-13)
    assert repr(ours) == repr(ref)
    assert ours(vt.tensor(x, dtype=vt.float32)).dtype == vt.float32


def test_cross_map_lrn2d_gradient_is_derivative_of_forward():
    # torch's legacy backward is not the derivative of its own forward (it ignores the first channel's extra
    # term), so the oracle is finite differences of real torch's forward.
    x = RNG.random((1, 5, 1, 2))
    g = RNG.standard_normal((1, 5, 1, 2))
    layer = torch.nn.CrossMapLRN2d(3, alpha=0.5, beta=0.75, k=1.0)

    def f(v):
        return float((layer(torch.tensor(v)).numpy() * g).sum())

    eps = 1e-6
    numeric = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        numeric[i] = (f(x + e.reshape(x.shape)) - f(x - e.reshape(x.shape))) / (2 * eps)
    t = vt.tensor(x, requires_grad=True)
    (vt.nn.CrossMapLRN2d(3, alpha=0.5, beta=0.75, k=1.0)(t) * vt.tensor(g)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy().ravel(), numeric, atol=1e-8)


def test_cross_map_lrn2d_needs_4d():
    with pytest.raises(ValueError) as ref:
        torch.nn.CrossMapLRN2d(3)(torch.ones(5, 4, 4))
    with pytest.raises(ValueError) as ours:
        vt.nn.CrossMapLRN2d(3)(vt.ones(5, 4, 4))
    assert str(ours.value) == str(ref.value)


# -- orthogonal ------------------------------------------------------------------------------------
def _orthogonal_run(lib, shape, orthogonal_map, use_trivialization):
    lib.manual_seed(0)
    layer = lib.nn.Linear(shape[1], shape[0], dtype=lib.float64)
    lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map,
                                             use_trivialization=use_trivialization)
    weight = layer.weight
    (weight * lib.arange(weight.numel(), dtype=lib.float64).reshape(weight.shape)).sum().backward()
    grads = {name: p.grad.numpy().copy() for name, p in layer.named_parameters() if p.grad is not None}
    return (weight.detach().numpy(), grads, sorted(n for n, _ in layer.named_buffers()),
            sorted(layer.state_dict()), type(layer).__name__)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_values_gradients_and_state(shape, orthogonal_map, use_trivialization):
    ours = _orthogonal_run(vt, shape, orthogonal_map, use_trivialization)
    ref = _orthogonal_run(torch, shape, orthogonal_map, use_trivialization)
    np.testing.assert_allclose(ours[0], ref[0], atol=1e-12)
    assert ours[1].keys() == ref[1].keys()
    for name in ref[1]:
        np.testing.assert_allclose(ours[1][name], ref[1][name], atol=1e-11)
    assert ours[2:] == ref[2:]


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_assignment_and_removal(orthogonal_map, use_trivialization):
    q = np.linalg.qr(RNG.standard_normal((5, 3)))[0]

    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 5, dtype=lib.float64)
        lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map,
                                                 use_trivialization=use_trivialization)
        try:
            with lib.no_grad():
                layer.weight = lib.tensor(q)
        except Exception as e:  # compared below
            assigned = (type(e), str(e))
        else:
            assigned = layer.weight.detach().numpy().round(10).tolist()
        lib.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        return assigned, layer.weight.detach().numpy().round(10).tolist(), type(layer).__name__

    assert run(vt) == run(torch)


@pytest.mark.parametrize("case", ["vector", "bad_map", "complex_householder"])
def test_orthogonal_errors(case):
    def run(lib):
        if case == "vector":
            lib.nn.utils.parametrizations.orthogonal(lib.nn.BatchNorm1d(3))
        elif case == "bad_map":
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3), orthogonal_map="qr")
        else:
            layer = lib.nn.Linear(3, 3)
            layer.weight = lib.nn.Parameter(lib.ones(4, 3, dtype=lib.complex128), requires_grad=False)
            lib.nn.utils.parametrizations.orthogonal(layer, orthogonal_map="householder")

    with pytest.raises(ValueError) as ref:
        run(torch)
    with pytest.raises(ValueError) as ours:
        run(vt)
    assert str(ours.value) == str(ref.value)


# -- spectral_norm (parametrization) ---------------------------------------------------------------
SPECTRAL_CASES = [
    (lambda lib: lib.nn.Linear(5, 3, dtype=lib.float64), {}),
    (lambda lib: lib.nn.Conv2d(2, 4, 3, dtype=lib.float64), dict(n_power_iterations=3)),
    (lambda lib: lib.nn.ConvTranspose2d(2, 4, 3, dtype=lib.float64), {}),
    (lambda lib: lib.nn.Linear(5, 3, dtype=lib.float64), dict(dim=1, eps=1e-6)),
]


@pytest.mark.parametrize("make,kwargs", SPECTRAL_CASES)
def test_spectral_norm_train_eval_buffers_gradients(make, kwargs):
    def run(lib):
        lib.manual_seed(0)
        layer = make(lib)
        lib.nn.utils.parametrizations.spectral_norm(layer, **kwargs)
        weights = []
        for training in (True, True, False, False):  # the estimate advances only in training mode
            layer.train(training)
            weights.append(layer.weight.detach().numpy().copy())
        weight = layer.weight
        (weight * weight).sum().backward()
        norm = layer.parametrizations.weight[0]
        return (weights, layer.parametrizations.weight.original.grad.numpy(), norm._u.numpy(), norm._v.numpy(),
                sorted(layer.state_dict()))

    ours, ref = run(vt), run(torch)
    for a, b in zip(ours[0], ref[0]):
        np.testing.assert_allclose(a, b, atol=1e-13)
    for a, b in zip(ours[1:4], ref[1:4]):
        np.testing.assert_allclose(a, b, atol=1e-12)
    assert ours[4] == ref[4]


def test_spectral_norm_vector_and_errors():
    for lib in (vt, torch):
        layer = lib.nn.Linear(3, 1, dtype=lib.float64)
        layer.bias  # noqa: B018
        lib.nn.utils.parametrizations.spectral_norm(layer, name="bias")
    for kwargs, error in [(dict(dim=2), IndexError), (dict(n_power_iterations=0), ValueError),
                          (dict(name="nothing"), ValueError)]:
        with pytest.raises(error) as ref:
            torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(3, 2), **kwargs)
        with pytest.raises(error) as ours:
            vt.nn.utils.parametrizations.spectral_norm(vt.nn.Linear(3, 2), **kwargs)
        assert str(ours.value) == str(ref.value)


def test_spectral_norm_bias_vector_is_normalized():
    b = RNG.standard_normal(4)
    results = []
    for lib in (vt, torch):
        layer = lib.nn.Linear(3, 4, dtype=lib.float64)
        with lib.no_grad():
            layer.bias.copy_(lib.tensor(b))
        lib.nn.utils.parametrizations.spectral_norm(layer, name="bias")
        results.append(layer.bias.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-14)
