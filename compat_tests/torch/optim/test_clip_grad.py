"""torch.nn.utils gradient clipping and parameter/vector conversion against real torch."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check

torch = pytest.importorskip("torch")


def _params_with_grads(lib, grads, dtypes=None):
    params = []
    for i, g in enumerate(grads):
        dtype = (dtypes or {}).get(i, g.dtype)
        p = lib.zeros(g.shape, dtype=getattr(lib, str(np.dtype(dtype))), requires_grad=True)
        p.grad = lib.from_numpy(g.astype(dtype))
        params.append(p)
    return params


def _grads(scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.standard_normal(s) * scale, np.float32) for s in [(4, 5), (7,), (), (3, 2, 2)]]


NORMS = [2.0, 1, 3.5, 0.5, 0, float("inf"), "inf", -float("inf")]


@pytest.mark.parametrize("norm_type", NORMS)
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm(norm_type, max_norm):
    def run(lib, *grads):
        params = _params_with_grads(lib, grads)
        params.append(lib.zeros(2, requires_grad=True))  # no gradient: skipped
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        return total, [p.grad for p in params[:-1]], params[-1].grad is None
    check(run, *_grads(), rtol=2e-6)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_single_tensor_and_foreach(foreach):
    def run(lib, g):
        p = lib.zeros(g.shape, requires_grad=True)
        p.grad = g
        return lib.nn.utils.clip_grad_norm_(p, 2.0, foreach=foreach), p.grad
    check(run, _grads()[0])


def test_clip_grad_norm_mixed_dtypes():
    def run(lib, *grads):
        params = _params_with_grads(lib, grads, dtypes={1: np.float64})
        return lib.nn.utils.clip_grad_norm_(params, 0.1), [p.grad for p in params]
    check(run, *_grads())


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("error_if_nonfinite", [True, False])
def test_nonfinite_total_norm(bad, error_if_nonfinite):
    def run(lib, *grads):
        params = _params_with_grads(lib, grads)
        return lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=error_if_nonfinite), \
            [p.grad for p in params]
    grads = _grads()
    grads[1][3] = bad
    check(run, *grads)


def test_empty_inputs():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
            none_grads = lib.nn.utils.clip_grad_norm_([lib.zeros(2, requires_grad=True)], 1.0)
        return total, none_grads, [str(w.message) for w in caught], lib.nn.utils.get_total_norm([])
    check(run)


def test_deprecated_clip_grad_norm_warns():
    def run(lib, g):
        p = lib.zeros(g.shape, requires_grad=True)
        p.grad = g
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm([p], 1.0)
        return total, p.grad, [(w.category.__name__, str(w.message)) for w in caught]
    check(run, _grads()[0])


def test_get_total_norm_and_clip_grads_with_norm():
    def run(lib, *grads):
        params = _params_with_grads(lib, grads)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], norm_type=3.0)
        lib.nn.utils.clip_grads_with_norm_(params, 0.7, total)
        lib.nn.utils.clip_grads_with_norm_(params, 0.7, lib.tensor(0.01))  # coefficient clamped to 1
        return total, [p.grad for p in params]
    check(run, *_grads(), rtol=2e-6)


@pytest.mark.parametrize("clip_value", [0.3, 2, 0.0])
def test_clip_grad_value(clip_value):
    def run(lib, *grads):
        params = _params_with_grads(lib, grads)
        out = lib.nn.utils.clip_grad_value_(params, clip_value)
        return out is None, [p.grad for p in params]
    check(run, *_grads())


def test_clipping_bumps_grad_version_and_keeps_grad_objects():
    def run(lib, g):
        p = lib.zeros(g.shape, requires_grad=True)
        p.grad = g
        grad, version = p.grad, p.grad._version
        lib.nn.utils.clip_grad_norm_([p], 0.1)
        lib.nn.utils.clip_grad_value_([p], 0.01)
        return p.grad is grad, p.grad._version > version, p.grad
    check(run, _grads()[0])


def test_parameters_to_vector_is_differentiable():
    def run(lib, a, b, c):
        vec = lib.nn.utils.parameters_to_vector([a, b, c])
        (vec * lib.arange(vec.numel(), dtype=vec.dtype)).sum().backward()
        return vec, a.grad, b.grad, c.grad
    a, b, c = _grads()[:3]
    check(run, a, b, c)


def test_vector_to_parameters_aliases_the_vector():
    def run(lib, a, b):
        params = [lib.from_numpy(a).requires_grad_(), lib.from_numpy(b).requires_grad_()]
        vec = lib.arange(float(a.size + b.size + 3))
        lib.nn.utils.vector_to_parameters(vec, params)
        vec.mul_(2)  # the parameters see the vector's memory
        return [p.detach().clone() for p in params], [p.requires_grad for p in params]
    check(run, *_grads()[:2])


@pytest.mark.parametrize("case", ["not_tensor", "short", "non_contiguous"])
def test_conversion_errors(case):
    def run(lib, a):
        p = lib.from_numpy(a).requires_grad_()
        if case == "not_tensor":
            lib.nn.utils.vector_to_parameters([1.0, 2.0], [p])
        elif case == "short":
            lib.nn.utils.vector_to_parameters(lib.zeros(3), [p])
        else:
            lib.nn.utils.parameters_to_vector([p.t()])
    check(run, _grads()[0])
