"""GroupQueryAttention against real Keras 3.15.1: seeded weights of the EinsumDense sublayers, outputs, attention
scores and gradients on both paths (dot-product and masked softmax), masks (attention, query/value/key, causal,
sliding window), dropout draws, gate, key tensor, symbolic shapes, configs, errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import data, same
from compat_tests.keras.layers_b_harness import call_with_gradients, variable_values

QUERY = data(2, 4, 6, seed=1)
VALUE = data(2, 5, 6, seed=2)
KEY = data(2, 5, 3, seed=3)
ATTENTION_MASK = np.random.default_rng(4).random((2, 4, 5)) > 0.3
ATTENTION_MASK[0, 1] = False  # a fully masked query row
QUERY_MASK = np.array([[1, 1, 0, 1], [1, 1, 1, 1]], bool)
VALUE_MASK = np.array([[1, 1, 0, 1, 0], [1, 1, 1, 1, 1]], bool)

CASES = {
    "plain": ({}, {}),
    "attention_mask": ({}, {"attention_mask": ATTENTION_MASK}),
    "causal": ({}, {"use_causal_mask": True}),
    "causal_and_mask": ({}, {"use_causal_mask": True, "attention_mask": ATTENTION_MASK}),
    "input_masks": ({}, {"query_mask": QUERY_MASK, "value_mask": VALUE_MASK, "key_mask": VALUE_MASK}),
    "dropout": ({"dropout": 0.3}, {"attention_mask": ATTENTION_MASK, "training": True}),
    "dropout_inference": ({"dropout": 0.3}, {"use_causal_mask": True}),
    "scores": ({}, {"return_attention_scores": True, "attention_mask": ATTENTION_MASK}),
    "scores_causal": ({"num_key_value_heads": 4}, {"return_attention_scores": True, "use_causal_mask": True}),
    "key_no_bias": ({"use_bias": False, "num_key_value_heads": 1}, {"key": KEY}),
    "gate_sliding_window": ({"use_gate": True, "sliding_window": 2}, {"use_causal_mask": True}),
    "initializers": ({"kernel_initializer": "he_normal", "bias_initializer": "ones"}, {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_grouped_query_attention(case):
    layer_kwargs, call_kwargs = CASES[case]

    def fn(lib):
        lib.keras.utils.set_random_seed(3)
        kwargs = {"head_dim": 3, "num_query_heads": 4, "num_key_value_heads": 2, **layer_kwargs}
        layer = lib.keras.layers.GroupQueryAttention(**kwargs)
        call = {k: (lib.tf.constant(v) if isinstance(v, np.ndarray) else v) for k, v in call_kwargs.items()}
        result = call_with_gradients(lib, layer, [QUERY, VALUE], **call)
        return [result, variable_values(layer), [type(sub).__name__ for sub in layer._layers]]
    same(fn, rtol=2e-5, atol=2e-5)


def test_symbolic_functional_and_tf_function():
    def fn(lib):
        keras = lib.keras
        keras.utils.set_random_seed(5)
        query, value = keras.Input((4, 6)), keras.Input((None, 6))
        layer = keras.layers.GroupQueryAttention(2, 4, 2)
        output, scores = layer(query, value, return_attention_scores=True)
        model = keras.Model([query, value], output)
        compiled = lib.tf.function(lambda q, v: model([q, v]))
        return [tuple(output.shape), tuple(scores.shape), model([QUERY, VALUE]), compiled(QUERY, VALUE),
                [w.path for w in model.weights]]
    same(fn)


def test_config_and_errors():
    def fn(lib):
        layers = lib.keras.layers
        layer = layers.GroupQueryAttention(4, 6, 3, dropout=0.1, use_bias=False, sliding_window=3,
                                           kernel_regularizer="l2", use_gate=True, seed=2, name="gqa")
        config = layer.get_config()
        out = [config, layers.GroupQueryAttention.from_config(config).get_config() == config,
               layers.serialize(layer)["class_name"], layer.compute_output_shape((None, 4, 6), (None, 5, 6))]
        for kwargs in ({"num_key_value_heads": 4}, {"sliding_window": 0}, {"sliding_window": 1.5}):
            try:
                layers.GroupQueryAttention(**{"head_dim": 2, "num_query_heads": 6, "num_key_value_heads": 2,
                                              **kwargs})
            except ValueError as e:
                out.append(str(e))
        for shapes in (((None, 4, 6), (None, 5, 7)), ((None, 4, 6), (None, 5, 6), (None, 3, 6))):
            try:
                layers.GroupQueryAttention(2, 2, 1).compute_output_shape(*shapes)
            except ValueError as e:
                out.append(str(e))
        return out
    same(fn)
