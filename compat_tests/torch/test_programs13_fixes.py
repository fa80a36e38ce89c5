"""Fixes found by the round-13 programs (``compat_tests/programs/torch_more12``), against real torch 2.13."""

import importlib
import pkgutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

_DISTRIBUTION_MODULES = sorted(m.name for m in pkgutil.iter_modules(torch.distributions.__path__)
                               if not m.name.startswith("_"))


@pytest.mark.parametrize("name", _DISTRIBUTION_MODULES)
def test_distribution_module_exports_torchs_names(name):
    # ``from torch.distributions.<module> import *`` must give torch's names, no more (e.g. kl: only
    # kl_divergence and register_kl; categorical: only Categorical, not the Bernoulli vfw defines beside it)
    real = importlib.import_module(f"torch.distributions.{name}")
    ours = importlib.import_module(f"vfw.torch.distributions.{name}")
    if hasattr(real, "__all__"):
        assert sorted(ours.__all__) == sorted(real.__all__)
        for public in real.__all__:
            want = getattr(real, public)
            if isinstance(want, type) or callable(want) and hasattr(want, "__name__"):  # classes, functions
                assert getattr(ours, public).__name__ == want.__name__


def test_star_import_of_a_family_module():
    found = {}
    for lib in ("torch", "vfw.torch"):
        scope = {}
        exec(f"from {lib}.distributions.dirichlet import *\nfrom {lib}.distributions.kl import *", scope)
        found[lib] = sorted(k for k in scope if not k.startswith("__"))
    assert found["vfw.torch"] == found["torch"] == ["Dirichlet", "kl_divergence", "register_kl"]
    alpha = [[1.5, 2.0, 0.7]]
    kl = {lib.__name__: lib.distributions.kl.kl_divergence(lib.distributions.dirichlet.Dirichlet(lib.tensor(alpha)),
                                                             lib.distributions.dirichlet.Dirichlet(lib.ones(1, 3)))
          for lib in (torch, vt)}
    assert abs(kl["torch"].item() - kl[vt.__name__].item()) < 1e-6


_KINDS = ["greater_than", "greater_than_eq", "less_than", "interval", "half_open_interval", "integer_interval"]
_INSTANCES = ["positive", "nonnegative", "unit_interval", "real", "boolean", "nonnegative_integer", "positive_integer"]


@pytest.mark.parametrize("kind", _KINDS)
def test_parametrised_constraints_are_classes(kind):
    # torch's greater_than, interval ... are classes: isinstance checks on a distribution's support work
    for instance in _INSTANCES:
        want = isinstance(getattr(torch.distributions.constraints, instance),
                          getattr(torch.distributions.constraints, kind))
        got = isinstance(getattr(vt.distributions.constraints, instance), getattr(vt.distributions.constraints, kind))
        assert got == want, (kind, instance)
    assert getattr(vt.distributions.constraints, kind).__name__ == getattr(torch.distributions.constraints,
                                                                          kind).__name__


def _constraint_facts(lib):
    C = lib.distributions.constraints
    values = lib.tensor([-1.0, 0.0, 0.5, 1.0, 2.0, 2.5])
    made = [C.greater_than(lower_bound=0.5), C.greater_than_eq(0.5), C.less_than(upper_bound=1.0),
            C.interval(0.0, 2.0), C.half_open_interval(0.0, 2.0), C.integer_interval(0, 2), C.interval(0.0, values)]
    support = lib.distributions.Beta(lib.tensor(2.0), lib.tensor(3.0)).support
    return ([repr(c) for c in made[:-1] + [C.positive, C.real, C.boolean, C.nonnegative_integer]],
            [c.check(values).tolist() for c in made], [c.is_discrete for c in made],
            isinstance(support, C.interval), type(lib.distributions.biject_to(C.greater_than(1.0))).__name__)


def test_constraint_instances_behave_as_torchs():
    assert _constraint_facts(vt) == _constraint_facts(torch)


def test_biject_to_register_by_constraint_class():
    found = {}
    for lib in (torch, vt):
        registry = lib.distributions.constraint_registry.ConstraintRegistry()
        registry.register(lib.distributions.constraints.greater_than,
                          lambda c, lib=lib: lib.distributions.transforms.AffineTransform(c.lower_bound, 2.0))
        registry.register(lib.distributions.constraints.positive_integer,
                          lambda c, lib=lib: lib.distributions.transforms.ExpTransform())
        to_positive = registry(lib.distributions.constraints.positive)
        with pytest.raises(NotImplementedError):
            registry(lib.distributions.constraints.nonnegative)  # another class: not registered
        found[lib.__name__] = (to_positive(lib.tensor([1.0, 3.0])).tolist(),
                               type(registry(lib.distributions.constraints.nonnegative_integer)).__name__)
    assert found["torch"] == found[vt.__name__]


def _attention_inputs(lib, dtype_name, seq=7):
    lib.manual_seed(3)
    q, k, v = (lib.randn(2, 3, seq, 8).to(getattr(lib, dtype_name)) for _ in range(3))
    bool_mask = lib.rand(seq, seq) > 0.4
    bool_mask[:, 0] = True
    float_mask = lib.randn(seq, seq)
    return q, k, v, bool_mask, float_mask


_ATTENTION_CASES = {
    "plain": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(q, k, v),
    "causal": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
    "bool_mask": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=b),
    "float32_mask": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m),
    "half_mask_scale": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m.to(q.dtype), scale=0.3),
    "all_keys_masked": lambda lib, q, k, v, b, m: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=b.index_fill(0, lib.tensor([2]), False)),
}


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(_ATTENTION_CASES))
def test_two_byte_4d_attention_rounds_as_torchs_cpu_kernel(case, dtype_name):
    # 4-d float16/bfloat16 attention: torch's CPU kernel rounds the float32 exponentials to the input dtype before
    # they weight the values and divides by their float32 sum; bit for bit for short rows (a float32 mask is
    # added unrounded)
    outs = [_ATTENTION_CASES[case](lib, *_attention_inputs(lib, dtype_name)) for lib in (torch, vt)]
    assert str(outs[1].dtype) == str(outs[0].dtype)
    np.testing.assert_array_equal(outs[1].float().numpy(), outs[0].float().numpy())


@pytest.mark.parametrize("dtype_name", ["float16", "bfloat16"])
def test_two_byte_4d_attention_gradients(dtype_name):
    grads = []
    for lib in (torch, vt):
        q, k, v, _, _ = _attention_inputs(lib, dtype_name)
        q.requires_grad_()
        lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).float().pow(2).sum().backward()
        grads.append(q.grad.float().numpy())
    scale = np.abs(grads[0]).max()
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-2, atol=2e-2 * scale)
