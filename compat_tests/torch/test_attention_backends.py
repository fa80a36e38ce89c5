"""torch.nn.attention (SDPBackend, sdpa_kernel, bias) and torch.backends.cuda's sdp flags vs real torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, arrays, check

real = pytest.importorskip("torch")
pytest.importorskip("torch.nn.attention.bias")  # a submodule real torch binds only once imported


def _run_sdpa(torch, q, backends):
    from_name = torch.nn.attention.SDPBackend
    chosen = [getattr(from_name, b) for b in backends]
    with torch.nn.attention.sdpa_kernel(chosen):
        return torch.nn.functional.scaled_dot_product_attention(q, q, q)


@pytest.mark.parametrize("backends", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION"], ["CUDNN_ATTENTION"],
                                      ["OVERRIDEABLE"], ["EFFICIENT_ATTENTION", "FLASH_ATTENTION"],
                                      ["EFFICIENT_ATTENTION", "CUDNN_ATTENTION"]])
@pytest.mark.parametrize("shape", [(1, 2, 3, 4), (2, 3, 4)])
def test_sdpa_kernel_selection_on_cpu(backends, shape):
    q = arrays(shape)
    check(lambda torch, q: _run_sdpa(torch, q, backends), q)


def _flash_only(torch, q, k, v, **kwargs):
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)


@pytest.mark.parametrize("case", ["value_dim", "dropout", "mask", "causal"])
def test_flash_only_constraints(case):
    q, k, v = arrays((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 6 if case == "value_dim" else 4), seed=1)
    kwargs = {"dropout": {"dropout_p": 0.5}, "mask": {"attn_mask": np.tri(3, 5, dtype=bool)},
              "causal": {"is_causal": True}}.get(case, {})
    check(_flash_only, q, k, v, **kwargs)


def test_backend_enum_values():
    for lib in LIBS:
        members = {name: int(v) for name, v in lib.nn.attention.SDPBackend.__members__.items()}
        assert members == {name: int(v) for name, v in real.nn.attention.SDPBackend.__members__.items()}
    import vfw.torch as vt
    assert repr(vt.nn.attention.SDPBackend.MATH) == repr(real.nn.attention.SDPBackend.MATH)


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "vfw"])
def test_flags_restored_and_set_inside(lib):
    backend = lib.nn.attention.SDPBackend
    cuda = lib.backends.cuda
    with lib.nn.attention.sdpa_kernel([backend.MATH]):
        inside = (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled(),
                  cuda.cudnn_sdp_enabled())
    after = (cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled(),
             cuda.cudnn_sdp_enabled())
    assert inside == (False, True, False, False)
    assert after == (True, True, True, True)


def test_flags_agree_with_torch():
    import vfw.torch as vt
    for chosen in (["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION", "CUDNN_ATTENTION"], ["MATH", "OVERRIDEABLE"]):
        got = []
        for lib in (real, vt):
            backend = lib.nn.attention.SDPBackend
            with lib.nn.attention.sdpa_kernel([getattr(backend, b) for b in chosen]):
                c = lib.backends.cuda
                got.append((c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled(),
                            c.cudnn_sdp_enabled()))
        assert got[0] == got[1], chosen


def test_deprecated_sdp_kernel_warns_and_sets_flags():
    import vfw.torch as vt
    results = []
    for lib in (real, vt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.backends.cuda.sdp_kernel(enable_flash=False, enable_math=False):
                flags = (lib.backends.cuda.flash_sdp_enabled(), lib.backends.cuda.math_sdp_enabled())
                q = lib.ones(1, 2, 3, 4)
                with pytest.raises(RuntimeError, match="No viable backend"):
                    lib.nn.functional.scaled_dot_product_attention(q, q, q)
        results.append((flags, [(w.category, str(w.message)) for w in caught if w.category is FutureWarning]))
    assert results[0] == results[1]


@pytest.mark.parametrize("variant", ["causal_lower_right", "causal_upper_left"])
@pytest.mark.parametrize("size", [(2, 3), (3, 2), (3, 3)])
def test_causal_bias(variant, size):
    import vfw.torch as vt
    want = getattr(real.nn.attention.bias, variant)(*size)._materialize().numpy()
    got = getattr(vt.nn.attention.bias, variant)(*size)._materialize().numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("variant", ["causal_lower_right", "causal_upper_left"])
def test_causal_bias_as_mask(variant):
    q, k = arrays((1, 2, 3, 4), (1, 2, 5, 4), seed=3)
    check(lambda torch, q, k: torch.nn.functional.scaled_dot_product_attention(
        q, k, k, attn_mask=getattr(torch.nn.attention.bias, variant)(3, 5)), q, k)
