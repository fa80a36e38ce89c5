"""F.scaled_dot_product_attention, F.multi_head_attention_forward and nn.MultiheadAttention against real torch."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr


def sdpa(lib):
    return lib.nn.functional.scaled_dot_product_attention


@pytest.mark.parametrize("shapes", [
    ((5, 4), (6, 4), (6, 3)),
    ((2, 5, 4), (2, 6, 4), (2, 6, 7)),
    ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7)),
    ((2, 3, 5, 4), (3, 6, 4), (1, 3, 6, 2)),  # broadcast batch dims
])
def test_sdpa_shapes(shapes):
    q, k, v = arrays(*shapes)
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v), q, k, v)
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, scale=0.3), q, k, v)


@pytest.mark.parametrize("L,S", [(5, 5), (3, 6), (6, 3)])
def test_sdpa_causal(L, S):
    q, k, v = arrays((2, L, 4), (2, S, 4), (2, S, 3), seed=1)
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, is_causal=True), q, k, v)


@pytest.mark.parametrize("mask_shape", [(5, 6), (1, 5, 6), (2, 3, 5, 6), (3, 1, 6)])
def test_sdpa_bool_and_float_masks(mask_shape):
    q, k, v = arrays((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), seed=2)
    rng = np.random.default_rng(3)
    mask = rng.random(mask_shape) > 0.4
    check_grad(lambda lib, q, k, v, m: sdpa(lib)(q, k, v, attn_mask=m), q, k, v, mask)
    bias = arrays(mask_shape, seed=4)
    check_grad(lambda lib, q, k, v, m: sdpa(lib)(q, k, v, attn_mask=m), q, k, v, bias)  # the mask's gradient too


def test_sdpa_fully_masked_queries_give_zeros():
    q, k, v = arrays((2, 4, 3), (2, 5, 3), (2, 5, 2), seed=5)
    mask = np.ones((4, 5), bool)
    mask[1] = False
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, attn_mask=lib.from_numpy(mask)), q, k, v)
    bias = np.zeros((4, 5), np.float32)
    bias[2] = -np.inf
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, attn_mask=lib.from_numpy(bias)), q, k, v)


def test_sdpa_grouped_query_attention():
    q, k, v = arrays((2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 3), seed=6)
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, enable_gqa=True), q, k, v)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v), q, k, v)  # without enable_gqa the heads do not broadcast
    k3, v3 = arrays((2, 3, 6, 5), (2, 3, 6, 3), seed=7)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, enable_gqa=True), q, k3, v3)


def test_sdpa_dtypes_and_dropout():
    q, k, v = arrays((3, 4), (5, 4), (5, 2), dtype="float64", seed=8)
    check_grad(lambda lib, q, k, v: sdpa(lib)(q, k, v, is_causal=True), q, k, v, rtol=1e-10, atol=1e-12)
    q32, k32, v32 = (a.astype(np.float32) for a in (q, k, v))
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, dropout_p=1.0), q32, k32, v32)  # every weight dropped
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, attn_mask=lib.ones(3, 5, dtype=lib.float64)), q32, k32, v32)
    for lib in (real, vt):  # dropout draws a new mask per call and keeps the expectation
        lib.manual_seed(0)
        qt, kt, vt_ = (lib.from_numpy(a) for a in (q32, k32, v32))
        a, b = sdpa(lib)(qt, kt, vt_, dropout_p=0.5), sdpa(lib)(qt, kt, vt_, dropout_p=0.5)
        assert not lib.equal(a, b)


@pytest.mark.parametrize("case", [
    lambda lib: sdpa(lib)(lib.ones(2, 3, 4), lib.ones(2, 5, 4), lib.ones(2, 5, 4, dtype=lib.float64)),
    lambda lib: sdpa(lib)(lib.ones(4), lib.ones(5, 4), lib.ones(5, 4)),
    lambda lib: sdpa(lib)(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 4), attn_mask=lib.ones(3, 5, dtype=lib.bool),
                          is_causal=True),
    lambda lib: sdpa(lib)(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 4), attn_mask=lib.ones(3, 5, dtype=lib.int64)),
    lambda lib: sdpa(lib)(lib.ones(3, 4), lib.ones(5, 3), lib.ones(5, 4)),
    lambda lib: sdpa(lib)(lib.ones(3, 4), lib.ones(5, 4), lib.ones(6, 4)),
    lambda lib: sdpa(lib)(lib.ones(3, 4), lib.ones(5, 4), lib.ones(5, 4), attn_mask=lib.ones(4, 5, dtype=lib.bool)),
    lambda lib: sdpa(lib)([1.0], lib.ones(5, 4), lib.ones(5, 4)),
])
def test_sdpa_errors(case):
    check(case)


# -- MultiheadAttention ----------------------------------------------------------------------

CONFIGS = [
    {},
    {"bias": False},
    {"add_bias_kv": True},
    {"add_zero_attn": True, "add_bias_kv": True},
    {"kdim": 3, "vdim": 5},
    {"batch_first": True},
    {"num_heads": 1, "dropout": 0.25},
]


def make_mha(config):
    config = dict(config)
    heads = config.pop("num_heads", 2)
    return lambda lib: lib.nn.MultiheadAttention(8, heads, **config)


def qkv(config, L=4, S=5, N=3, seed=0):
    kdim, vdim = config.get("kdim", 8), config.get("vdim", 8)
    if config.get("batch_first"):
        return arrays((N, L, 8), (N, S, kdim), (N, S, vdim), seed=seed)
    return arrays((L, N, 8), (S, N, kdim), (S, N, vdim), seed=seed)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_cross_attention(config, need_weights):
    q, k, v = qkv(config)
    make = make_mha(config)
    check_init(make)
    check_repr(make)
    check_module(make, q, k, v, call=lambda m, q, k, v: m(q, k, v, need_weights=need_weights), train=False)
    check_module(make, q, k, v, call=lambda m, q, k, v: m(q, k, v, need_weights=need_weights,
                                                           average_attn_weights=False), train=False)


@pytest.mark.parametrize("config", [{}, {"batch_first": True}, {"add_zero_attn": True}], ids=str)
def test_mha_self_attention(config):
    x, _, _ = qkv(config, L=5, seed=1)
    make = make_mha(config)
    check_module(make, x, call=lambda m, x: m(x, x, x))
    check_module(make, x, call=lambda m, x: m(x, x, x, need_weights=False))


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("config", [{}, {"add_bias_kv": True, "add_zero_attn": True}], ids=str)
def test_mha_masks(mask_kind, need_weights, config):
    q, k, v = qkv(config, seed=2)
    rng = np.random.default_rng(3)
    padding = rng.random((3, 5)) > 0.7
    padding[:, 0] = False  # no query loses every key (torch would give NaN with need_weights)
    attn2 = rng.random((4, 5)) > 0.8
    attn3 = rng.random((6, 4, 5)) > 0.8
    if mask_kind == "float":
        padding, attn2, attn3 = (np.where(m, -1.5, 0.25).astype(np.float32) for m in (padding, attn2, attn3))
    make = make_mha(config)
    for attn in (attn2, attn3):
        check_module(make, q, k, v, padding, attn, train=False,
                     call=lambda m, q, k, v, p, a: m(q, k, v, key_padding_mask=p, attn_mask=a,
                                                     need_weights=need_weights))
    check_module(make, q, k, v, padding, train=False,
                 call=lambda m, q, k, v, p: m(q, k, v, key_padding_mask=p, need_weights=need_weights))


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_causal_hint_and_fully_masked_queries(need_weights):
    x = arrays((4, 2, 8), seed=4)

    def run(m, x):
        lib = real if isinstance(x, real.Tensor) else vt
        causal = lib.nn.Transformer.generate_square_subsequent_mask(4)
        return m(x, x, x, attn_mask=causal, is_causal=True, need_weights=need_weights)

    check_module(make_mha({}), x, call=run, train=False)
    padding = np.zeros((2, 4), bool)
    padding[1] = True  # batch item 1 has no keys: NaN with the weights, zeros through scaled_dot_product_attention
    check_module(make_mha({}), x, padding, train=False, grad=not need_weights,
                 call=lambda m, x, p: m(x, x, x, key_padding_mask=p, need_weights=need_weights))


def test_mha_unbatched_and_dtypes():
    q, k, v = arrays((4, 8), (5, 8), (5, 8), seed=5)
    mask = np.random.default_rng(6).random((2, 4, 5)) > 0.8
    make = make_mha({})
    check_module(make, q, k, v, call=lambda m, q, k, v: m(q, k, v))
    check_module(make, q, k, v, mask, call=lambda m, q, k, v, a: m(q, k, v, attn_mask=a, need_weights=False))
    check_module(make, q, k, v, np.array([False, True, False, False, True]),
                 call=lambda m, q, k, v, p: m(q, k, v, key_padding_mask=p))
    check_module(lambda lib: lib.nn.MultiheadAttention(8, 4, dtype=lib.float64), q.astype(np.float64),
                 k.astype(np.float64), v.astype(np.float64), call=lambda m, q, k, v: m(q, k, v), rtol=1e-10,
                 atol=1e-12)


def test_mha_dropout():
    q, k, v = qkv({}, seed=7)
    make = lambda lib: lib.nn.MultiheadAttention(8, 2, dropout=1.0)  # noqa: E731
    for need in (True, False):  # every weight dropped: the output is the projection's bias
        check_module(make, q, k, v, call=lambda m, q, k, v, need=need: m(q, k, v, need_weights=need), train=True)


def test_functional_mha_with_static_keys():
    q = arrays((4, 2, 8), seed=8)
    sk, sv = arrays((4, 6, 4), (4, 6, 4), seed=9)
    w_in, w_out = arrays((24, 8), (8, 8), seed=10)
    b_in, b_out = arrays((24,), (8,), seed=11)

    def case(lib, q, sk, sv, w_in, b_in, w_out, b_out):
        return lib.nn.functional.multi_head_attention_forward(
            q, q, q, 8, 2, w_in, b_in, None, None, False, 0.0, w_out, b_out, static_k=sk, static_v=sv)

    check_grad(case, q, sk, sv, w_in, b_in, w_out, b_out)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(8, 3),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 8), lib.ones(5, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(6, 2, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 6), lib.ones(5, 2, 6), lib.ones(5, 2, 6)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(1, 4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                attn_mask=lib.ones(4, 4, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                attn_mask=lib.ones(2, 4, 5, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                attn_mask=lib.ones(1, 1, 4, 5, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                key_padding_mask=lib.ones(2, 4, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                key_padding_mask=lib.ones(3, 5, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                key_padding_mask=lib.ones(2, 5, dtype=lib.int64)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 2, 8), lib.ones(5, 2, 8), lib.ones(5, 2, 8),
                                                is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(4, 8), lib.ones(5, 8), lib.ones(5, 8),
                                                attn_mask=lib.ones(3, 4, 5, dtype=lib.bool)),
    lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=3)(lib.ones(4, 2, 8), lib.ones(5, 2, 4), lib.ones(5, 2, 8)),
])
def test_mha_errors(case):
    check(lambda lib: case(lib)[0])


def test_mha_mismatched_mask_types_warn():
    for lib in (real, vt):
        m = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 1, 4)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            m(x, x, x, key_padding_mask=lib.zeros(1, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))


def test_mha_parameters_and_merge_masks():
    def case(lib):
        m = lib.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
        n = lib.nn.MultiheadAttention(4, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            merged, kind = n.merge_masks(lib.zeros(3, 3), lib.zeros(2, 3), lib.zeros(2, 3, 4))
        return (list(m.state_dict()), m.head_dim, m._qkv_same_embed_dim, m.in_proj_weight, type(m.out_proj).__name__,
                n.bias_k, list(n.state_dict()), tuple(merged.shape), kind)

    check(case)
