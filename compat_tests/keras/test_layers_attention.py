"""Attention layers (MultiHeadAttention, Attention, AdditiveAttention) against real Keras 3.15.1: seeded weights of the
EinsumDense sublayers, outputs, attention scores and gradients on both of Keras' paths (dot-product and masked
softmax), masks (attention, causal, sliding window, Keras masks), dropout draws, symbolic shapes, configs, errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, data, run, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

QUERY = data(2, 4, 6, seed=1)
VALUE = data(2, 5, 6, seed=2)
KEY = data(2, 5, 3, seed=3)
ATTENTION_MASK = np.random.default_rng(4).random((2, 4, 5)) > 0.3
ATTENTION_MASK[0, 1] = False  # a fully masked query row
QUERY_MASK = np.array([[1, 1, 0, 1], [1, 1, 1, 1]], bool)
VALUE_MASK = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 1]], bool)

MULTI_HEAD = {
    "plain": ({}, {}),
    "attention_mask": ({}, {"attention_mask": ATTENTION_MASK}),
    "causal": ({}, {"use_causal_mask": True}),
    "causal_and_mask": ({}, {"use_causal_mask": True, "attention_mask": ATTENTION_MASK}),
    "dropout": ({"dropout": 0.3}, {"attention_mask": ATTENTION_MASK, "training": True}),
    "scores": ({}, {"return_attention_scores": True, "attention_mask": ATTENTION_MASK}),
    "key_value_dims": ({"value_dim": 3, "output_shape": (2, 5), "use_bias": False}, {"key": KEY}),
    "gate_sliding_window": ({"use_gate": True, "sliding_window": 2}, {"use_causal_mask": True}),
    "attention_axes": ({"attention_axes": (1,), "kernel_initializer": "he_normal"}, {}),
}


@pytest.mark.parametrize("case", sorted(MULTI_HEAD))
def test_multi_head_attention(case):
    layer_kwargs, call_kwargs = MULTI_HEAD[case]

    def fn(lib):
        lib.keras.utils.set_random_seed(3)
        layer = lib.keras.layers.MultiHeadAttention(2, 3, **layer_kwargs)
        kwargs = {k: (lib.tf.constant(v) if isinstance(v, np.ndarray) else v) for k, v in call_kwargs.items()}
        result = call_with_gradients(lib, layer, [QUERY, VALUE], **kwargs)
        return [result, variable_values(layer), [type(sub).__name__ for sub in layer._layers]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_multi_head_attention_keras_masks_and_functional_use():
    ids = np.array([[1, 2, 0, 0], [3, 1, 2, 4]], "int32")

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(5)
        inputs = keras.Input((None,), dtype="int32")
        embedded = keras.layers.Embedding(6, 4, mask_zero=True)(inputs)
        attended = keras.layers.MultiHeadAttention(2, 2)(embedded, embedded)
        model = keras.Model(inputs, keras.layers.GlobalAveragePooling1D()(attended))
        query, value = keras.Input((4, 6)), keras.Input((5, 6))
        symbolic = keras.layers.MultiHeadAttention(2, 3)(query, value, return_attention_scores=True)
        eager = keras.layers.Embedding(6, 4, mask_zero=True)(ids)
        eager_out = keras.layers.MultiHeadAttention(1, 2)(eager, eager)
        return [model(ids), attended.shape, [t.shape for t in symbolic], eager_out, eager_out._keras_mask]
    same(fn)


def test_multi_head_attention_config_and_errors():
    def fn(lib):
        layers = lib.keras.layers
        layer = layers.MultiHeadAttention(2, 3, value_dim=4, dropout=0.1, output_shape=5, attention_axes=1,
                                          kernel_regularizer="l2", seed=2)
        out = [layer.get_config(), layers.MultiHeadAttention.from_config(layer.get_config()).get_config(),
               layer.compute_output_shape((None, 4, 6), (None, 5, 6))]
        for kwargs in ({"num_heads": 0, "key_dim": 2}, {"num_heads": 2, "key_dim": -1},
                       {"num_heads": 2, "key_dim": 2, "value_dim": 0},
                       {"num_heads": 2, "key_dim": 2, "attention_axes": "a"},
                       {"num_heads": 2, "key_dim": 2, "sliding_window": 0}):
            try:
                layers.MultiHeadAttention(**kwargs)
            except ValueError as e:
                out.append(str(e))
        try:
            layers.MultiHeadAttention(2, 2).compute_output_shape((None, 4, 6), (None, 5, 6), (None, 3, 6))
        except ValueError as e:
            out.append(str(e))
        return out
    same(fn)


ATTENTIONS = {
    "dot": (lambda k: k.layers.Attention(), {}),
    "dot_scale_masks": (lambda k: k.layers.Attention(use_scale=True), {"mask": [QUERY_MASK, VALUE_MASK]}),
    "concat_dropout": (lambda k: k.layers.Attention(use_scale=True, score_mode="concat", dropout=0.2),
                       {"training": True, "return_attention_scores": True}),
    "causal_key": (lambda k: k.layers.Attention(), {"use_causal_mask": True, "mask": [None, VALUE_MASK]}),
    "additive": (lambda k: k.layers.AdditiveAttention(), {"return_attention_scores": True}),
    "additive_causal_no_scale": (lambda k: k.layers.AdditiveAttention(use_scale=False, dropout=0.5),
                                 {"use_causal_mask": True, "training": True}),
}


@pytest.mark.parametrize("case", sorted(ATTENTIONS))
def test_attention_and_additive_attention(case):
    make, call_kwargs = ATTENTIONS[case]

    def fn(lib):
        lib.keras.utils.set_random_seed(6)
        layer = make(lib.keras)
        tf = lib.tf
        kwargs = dict(call_kwargs)
        if "mask" in kwargs:
            kwargs["mask"] = [None if m is None else tf.constant(m) for m in kwargs["mask"]]
        query, value = tf.constant(QUERY), tf.constant(VALUE)
        with tf.GradientTape() as tape:
            tape.watch([query, value])
            result = layer([query, value, value * 0.5], **kwargs)
            outputs = list(result) if isinstance(result, tuple) else [result]
            loss = sum(tf.reduce_sum(o * o) for o in outputs)
        symbolic = make(lib.keras)([lib.keras.Input((4, 6)), lib.keras.Input((5, 6))], return_attention_scores=True)
        return [outputs, tape.gradient(loss, [query, value] + layer.trainable_weights), variable_values(layer),
                layer.get_config(), [t.shape for t in symbolic], layer.compute_mask([query, value], kwargs.get("mask"))]
    same(fn)


@pytest.mark.parametrize("case", ["score_mode", "not_a_list", "one_input", "mask_not_list", "mask_length"])
def test_attention_errors(case):
    def fn(lib):
        layers, x = lib.keras.layers, np.ones((1, 2, 3), "float32")
        return {"score_mode": lambda: layers.Attention(score_mode="max"),
                "not_a_list": lambda: layers.Attention()(x),
                "one_input": lambda: layers.Attention()([x]),
                "mask_not_list": lambda: layers.Attention()([x, x], mask="query_mask"),
                "mask_length": lambda: layers.Attention()([x, x], mask=[None])}[case]()
    real, ours = run(fn, REAL), run(fn, VFW)
    assert real[0] == "raised" and ours[:2] == real[:2]
    assert ours[2].split("\x1b[1m")[-1].split("\x1b[0m")[0] == real[2].split("\x1b[1m")[-1].split("\x1b[0m")[0]


def test_attention_layers_in_functional_models_with_masks():
    ids = np.array([[1, 2, 0, 0], [3, 1, 2, 4]], "int32")

    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(0)
        inputs = keras.Input((None,), dtype="int32")
        embedded = keras.layers.Embedding(6, 4, mask_zero=True)(inputs)
        dot = keras.layers.Attention()([embedded, embedded])
        additive = keras.layers.AdditiveAttention()([embedded, embedded])
        model = keras.Model(inputs, [keras.layers.LSTM(3)(dot), additive])
        return [model(ids), dot._keras_mask.shape, additive._keras_mask.shape]
    same(fn)


def test_mixed_precision():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(1)
        layers = [keras.layers.MultiHeadAttention(2, 4, dtype="mixed_float16"),
                  keras.layers.Attention(use_scale=True, dtype="mixed_float16")]
        return [layers[0](QUERY, VALUE), layers[1]([QUERY, VALUE]), [w.dtype for w in layers[0].weights]]
    same(fn, rtol=2e-3, atol=2e-3)
