"""torch.distributions' per-family modules (``torch.distributions.normal`` ...) and ``distributions.utils``,
against real torch 2.13: the same public names, the same classes as the package's, the same numbers."""

import importlib
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

FAMILY_MODULES = [
    "bernoulli", "beta", "binomial", "cauchy", "chi2", "continuous_bernoulli", "exp_family", "exponential",
    "fishersnedecor", "generalized_pareto", "geometric", "gumbel", "half_cauchy", "half_normal", "inverse_gamma",
    "kumaraswamy", "laplace", "lkj_cholesky", "log_normal", "logistic_normal", "lowrank_multivariate_normal",
    "mixture_same_family", "normal", "one_hot_categorical", "pareto", "poisson", "relaxed_bernoulli",
    "relaxed_categorical", "studentT", "transformed_distribution", "uniform", "weibull", "wishart",
]


def _public(module):
    return {n for n in dir(module) if not n.startswith("_") and not isinstance(getattr(module, n), types.ModuleType)}


@pytest.mark.parametrize("name", FAMILY_MODULES)
def test_family_module_has_torchs_names(name):
    real = importlib.import_module(f"torch.distributions.{name}")
    ours = importlib.import_module(f"vfw.torch.distributions.{name}")
    assert set(ours.__all__) == set(real.__all__)
    assert getattr(vt.distributions, name) is ours
    for public in real.__all__:
        # the module re-exports the package's class (one identity), under torch's qualified name
        cls = getattr(ours, public)
        assert cls is getattr(vt.distributions, public, cls)
        assert cls.__name__ == getattr(real, public).__name__
    if name != "normal":  # vfw's normal.py also defines Uniform (torch's module does not)
        assert _public(real) <= _public(ours)


def test_family_module_classes_compute_as_torch():
    from vfw.torch.distributions.studentT import StudentT as OurStudentT
    from vfw.torch.distributions.weibull import Weibull as OurWeibull
    x = np.linspace(0.2, 3.0, 7)
    for ours, real in [(OurStudentT(3.0), torch.distributions.studentT.StudentT(3.0)),
                       (OurWeibull(2.0, 1.5), torch.distributions.weibull.Weibull(2.0, 1.5))]:
        np.testing.assert_allclose(ours.log_prob(vt.tensor(x)).numpy(), real.log_prob(torch.tensor(x)).numpy(),
                                   rtol=1e-6)


def test_utils_names():
    real, ours = torch.distributions.utils, vt.distributions.utils
    assert set(ours.__all__) == set(real.__all__)
    assert ours.euler_constant == real.euler_constant
    assert ours.lazy_property is vt.distributions.distribution.lazy_property


@pytest.mark.parametrize("diag", [-4, -2, -1, 0, 1, 3])
def test_tril_matrix_round_trip_matches_torch(diag):
    a = np.random.default_rng(diag + 10).standard_normal((2, 4, 4))
    want = torch.distributions.utils.tril_matrix_to_vec(torch.tensor(a), diag)
    got = vt.distributions.utils.tril_matrix_to_vec(vt.tensor(a), diag)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    back_want = torch.distributions.utils.vec_to_tril_matrix(want, diag)
    back_got = vt.distributions.utils.vec_to_tril_matrix(got, diag)
    np.testing.assert_array_equal(back_got.numpy(), back_want.numpy())


def test_vec_to_tril_matrix_gradient_matches_torch():
    v = np.arange(1.0, 7.0)
    weights = np.random.default_rng(0).standard_normal((3, 3))
    real_v = torch.tensor(v, requires_grad=True)
    (torch.distributions.utils.vec_to_tril_matrix(real_v) * torch.tensor(weights)).sum().backward()
    our_v = vt.tensor(v, requires_grad=True)
    (vt.distributions.utils.vec_to_tril_matrix(our_v) * vt.tensor(weights)).sum().backward()
    np.testing.assert_allclose(our_v.grad.numpy(), real_v.grad.numpy())


@pytest.mark.parametrize("call", [lambda u, lib: u.tril_matrix_to_vec(lib.ones(3, 3), 3),
                                  lambda u, lib: u.tril_matrix_to_vec(lib.ones(3, 3), -4),
                                  lambda u, lib: u.vec_to_tril_matrix(lib.ones(5))])
def test_utils_errors_match_torch(call):
    with pytest.raises(Exception) as real_error:
        call(torch.distributions.utils, torch)
    with pytest.raises(type(real_error.value)) as our_error:
        call(vt.distributions.utils, vt)
    assert str(our_error.value) == str(real_error.value)


def test_utils_probability_helpers_match_torch():
    p = np.array([0.0, 0.2, 0.7, 1.0])
    for name in ["probs_to_logits", "clamp_probs"]:
        want = getattr(torch.distributions.utils, name)(torch.tensor(p))
        got = getattr(vt.distributions.utils, name)(vt.tensor(p))
        np.testing.assert_allclose(got.numpy(), want.numpy())
    want = torch.distributions.utils.broadcast_all(torch.ones(2, 1), 3.0)
    got = vt.distributions.utils.broadcast_all(vt.ones(2, 1), 3.0)
    assert [tuple(t.shape) for t in got] == [tuple(t.shape) for t in want]


def test_mixture_same_family_constraint_is_public():
    mix_real = torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.ones(2)),
                                                     torch.distributions.Normal(torch.zeros(2), torch.ones(2)))
    mix_ours = vt.distributions.MixtureSameFamily(vt.distributions.Categorical(vt.ones(2)),
                                                  vt.distributions.Normal(vt.zeros(2), vt.ones(2)))
    assert isinstance(mix_ours.support, vt.distributions.constraints.MixtureSameFamilyConstraint)
    assert isinstance(mix_real.support, torch.distributions.constraints.MixtureSameFamilyConstraint)
    assert repr(mix_ours.support) == repr(mix_real.support)
    assert "MixtureSameFamilyConstraint" in vt.distributions.constraints.__all__


def test_family_modules_import_when_served_as_torch(tmp_path):
    script = tmp_path / "uses_submodules.py"
    script.write_text("import torch.distributions.normal\n"
                      "from torch.distributions.half_normal import HalfNormal\n"
                      "from torch.distributions.utils import vec_to_tril_matrix\n"
                      "import torch.distributions.studentT as st\n"
                      "print(torch.distributions.normal.Normal(0.0, 1.0).log_prob(torch.tensor(0.5)).item())\n"
                      "print(HalfNormal(2.0).log_prob(torch.tensor(1.0)).item(), st.StudentT.__name__)\n"
                      "print(vec_to_tril_matrix(torch.arange(3.0)).tolist())\n")
    repo = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(repo))
    served = subprocess.run([sys.executable, "-m", "vfw", "run", "--as", "torch", str(script)], env=env,
                            capture_output=True, text=True, timeout=120)
    real = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert served.returncode == 0, served.stderr
    served_lines, real_lines = served.stdout.split(), real.stdout.split()
    assert served_lines[-4:] == real_lines[-4:]
    np.testing.assert_allclose([float(v) for v in served_lines[:2]], [float(v) for v in real_lines[:2]], rtol=1e-6)
