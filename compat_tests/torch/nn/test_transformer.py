"""Transformer, its encoder / decoder stacks and layers against real torch (init, repr, outputs, gradients)."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, real, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr

LAYER_CONFIGS = [
    {},
    {"norm_first": True},
    {"batch_first": True, "activation": "gelu"},
    {"bias": False, "layer_norm_eps": 1e-3},
    {"activation": "module"},
    {"activation": "callable", "norm_first": True},
]


def lib_of(t):
    return real if isinstance(t, real.Tensor) else vt


def layer_kwargs(lib, config):
    config = dict(config)
    if config.get("activation") == "module":
        config["activation"] = lib.nn.GELU(approximate="tanh")
    elif config.get("activation") == "callable":
        config["activation"] = lib.nn.functional.silu
    return config


def seq(config, S=5, N=2, E=8, seed=0):
    return arrays((N, S, E) if config.get("batch_first") else (S, N, E), seed=seed)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # enable_nested_tensor notes; compared in their own test
        yield


@pytest.mark.parametrize("config", LAYER_CONFIGS, ids=str)
def test_encoder_layer(config):
    def make(lib):
        return lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **layer_kwargs(lib, config))

    check_init(make)
    check_repr(make)
    x = seq(config)
    check_module(make, x)
    check_module(make, x[:, 0] if not config.get("batch_first") else x[0])  # unbatched


@pytest.mark.parametrize("config", LAYER_CONFIGS, ids=str)
def test_decoder_layer(config):
    def make(lib):
        return lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **layer_kwargs(lib, config))

    check_init(make)
    check_repr(make)
    check_module(make, seq(config, S=4), seq(config, seed=1))


@pytest.mark.parametrize("mask_kind", ["bool", "float"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_with_masks(mask_kind, batch_first):
    config = {"batch_first": batch_first}
    x = seq(config, seed=2)
    padding = np.zeros((2, 5), bool)
    padding[1, 3:] = True
    attn = ~np.tri(5, 5, dtype=bool)  # causal
    if mask_kind == "float":
        padding, attn = (np.where(m, -np.inf, 0).astype(np.float32) for m in (padding, attn))

    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))

    check_module(make, x, padding, call=lambda m, x, p: m(x, src_key_padding_mask=p))
    check_module(make, x, attn, call=lambda m, x, a: m(x, mask=a))
    check_module(make, x, attn, padding, call=lambda m, x, a, p: m(x, mask=a, src_key_padding_mask=p))
    check_module(make, x, attn, call=lambda m, x, a: m(x, mask=a, is_causal=True))


@pytest.mark.parametrize("config", [{}, {"batch_first": True, "norm_first": True}], ids=str)
def test_decoder_with_masks(config):
    tgt, memory = seq(config, S=4, seed=3), seq(config, S=6, seed=4)
    tgt_padding = np.zeros((2, 4), bool)
    tgt_padding[0, 3] = True
    memory_padding = np.zeros((2, 6), bool)
    memory_padding[1, 4:] = True
    memory_mask = np.random.default_rng(5).random((4, 6)) > 0.8
    memory_mask[:, 0] = False

    def make(lib):
        layer = lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **config)
        return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(8))

    def run(m, t, mem, tp, mp, mm):
        causal = lib_of(t).nn.Transformer.generate_square_subsequent_mask(4)
        return m(t, mem, tgt_mask=causal, memory_mask=mm, tgt_key_padding_mask=tp, memory_key_padding_mask=mp)

    check_module(make, tgt, memory, tgt_padding, memory_padding, memory_mask, call=run)
    check_init(make)
    check_repr(make)


@pytest.mark.parametrize("config", [{}, {"batch_first": True, "norm_first": True, "activation": "gelu"}], ids=str)
def test_transformer(config):
    def make(lib):
        return lib.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, **config)

    check_init(make)
    check_repr(make)
    src, tgt = seq(config, S=5, seed=6), seq(config, S=4, seed=7)
    src_padding = np.zeros((2, 5), bool)
    src_padding[0, 4] = True

    def run(m, s, t, p):
        causal = lib_of(s).nn.Transformer.generate_square_subsequent_mask(4)
        return m(s, t, tgt_mask=causal, src_key_padding_mask=p, memory_key_padding_mask=p, tgt_is_causal=True)

    check_module(make, src, tgt, src_padding, call=run)
    check_module(make, src, tgt)


def test_eval_mode_with_dropout_and_float64():
    x, t = arrays((5, 2, 8), (3, 2, 8), seed=8)
    check_module(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.3), x, t, train=False)
    check_module(lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, dtype=lib.float64), x.astype(np.float64),
                 t.astype(np.float64), rtol=1e-10, atol=1e-12)
    for lib in (real, vt):  # dropout in training changes the output from call to call
        lib.manual_seed(0)
        m = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
        a, b = (m(lib.from_numpy(x)) for _ in range(2))
        assert not lib.equal(a, b)


@pytest.mark.parametrize("left_aligned", [True, False])
def test_encoder_inference_zeros_padded_positions(left_aligned):
    # torch's nested-tensor path (eval, no grad, batch-first layer, padding mask): padded outputs are zeros
    x = arrays((3, 5, 8), seed=9)
    padding = np.zeros((3, 5), bool)
    padding[1, 3:] = True
    if not left_aligned:
        padding[2, 0] = True

    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8))

    def run(m, x, p):
        with lib_of(x).no_grad():
            return m(x, src_key_padding_mask=p)

    (_, want, _), (_, got, _) = check_module(make, x, padding, call=run, train=False, grad=False)
    # before the final norm the padded rows were zeros: after it, each is the norm's bias (0) for a left-aligned mask
    assert np.allclose(got[1, 3:].numpy(), 0) == left_aligned
    check_module(make, x, padding, call=run, train=True, grad=False)  # training: no fast path, rows computed



def test_encoder_inference_padded_zeros_are_positive():
    # torch's nested tensors are padded with +0.0: repr shows "0.0000" there, never "-0.0000"
    x = arrays((2, 5, 8), seed=3)
    padding = np.zeros((2, 5), bool)
    padding[1, 2:] = True
    results = []
    for lib in (real, vt):
        lib.manual_seed(0)
        encoder = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2)
        encoder.eval()
        with lib.no_grad():
            results.append(encoder(lib.tensor(x), src_key_padding_mask=lib.tensor(padding)).numpy())
    want, got = results
    assert not np.signbit(want[1, 2:]).any()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

def test_nested_tensor_warnings():
    def notes(lib, **kw):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, **kw), 1)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, **kw), 1, enable_nested_tensor=False)
        return [str(w.message) for w in caught]

    for kw in ({}, {"batch_first": True}, {"batch_first": True, "norm_first": True}, {"batch_first": True,
                                                                                     "activation": "gelu"},
               {"batch_first": True, "bias": False}, {"batch_first": True, "activation": real.nn.functional.silu}):
        vkw = dict(kw, activation=vt.nn.functional.silu) if "activation" in kw and callable(kw["activation"]) else kw
        assert notes(vt, **vkw) == notes(real, **kw)
    for kw in ({"batch_first": True}, {}):
        check(lambda lib, kw=kw: (lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, **kw), 1)
                                  .use_nested_tensor))


def test_masks_and_attributes():
    check(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(4))
    check(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(3, dtype=lib.float64))

    def case(lib):
        t = lib.nn.Transformer(8, 2, 1, 1, 16)
        layer = t.encoder.layers[0]
        return (t.d_model, t.nhead, t.batch_first, layer.activation_relu_or_gelu, layer.norm_first,
                t.encoder.num_layers, t.decoder.num_layers, list(t.state_dict())[:12],
                lib.nn.TransformerEncoderLayer(8, 2, activation="gelu").activation_relu_or_gelu,
                lib.nn.TransformerEncoderLayer(8, 2, activation=lib.nn.ReLU()).activation_relu_or_gelu)

    check(case)


def test_custom_encoder_and_decoder():
    x, t = arrays((5, 2, 8), (3, 2, 8), seed=10)

    def make(lib):
        enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0), 1)
        dec = lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 4, 12, dropout=0.0), 2)
        return lib.nn.Transformer(8, 4, custom_encoder=enc, custom_decoder=dec)

    check_init(make)
    check_module(make, x, t)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda lib: lib.nn.TransformerDecoderLayer(8, 2, activation="swish"),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 3),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 8), lib.ones(3, 3, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(lib.ones(2, 5, 8), lib.ones(3, 3, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 6), lib.ones(3, 2, 8)),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(lib.ones(5, 2, 8), src_mask=lib.ones(4, 4)),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(lib.ones(5, 2, 8),
                                                         src_key_padding_mask=lib.ones(2, 5, dtype=lib.int64)),
])
def test_errors(case):
    check(lambda lib: repr(case(lib)))
