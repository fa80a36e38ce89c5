"""Embeddings and attention: vfw.torch == vfw.tensorflow == onnxruntime.

torch's ``nn.MultiheadAttention`` packs the query, key and value projections in one
``in_proj_weight`` ``(3 * model, model)`` (rows: output features); Keras' ``MultiHeadAttention``
holds one ``(model, heads, head_dim)`` kernel and ``(heads, head_dim)`` bias per projection and an
``(heads, head_dim, model)`` output kernel.  torch's ``attn_mask`` marks the positions that may
NOT be attended (True), Keras' ``attention_mask`` those that may.
"""

import math

import numpy as np
import pytest

from compat_tests.cross.harness import SAME, block, check, check_layer, labels, normal, reshaped, tf, torch


def test_embedding_lookup():
    ids = labels((3, 4), 7)
    check(lambda torch, table: torch.nn.functional.embedding(torch.tensor(ids), table),
          lambda tf, table: tf.nn.embedding_lookup(table, ids), dict(table=normal((7, 5))))


def test_embedding_module_vs_keras_layer():
    torch.manual_seed(0)
    check_layer(torch.nn.Embedding(9, 4), tf.keras.layers.Embedding(9, 4), dict(ids=labels((2, 5), 9, 1)),
                [("embeddings", ("weight",), SAME)])


def attention_reference_tf(tf, q, k, v, causal):
    """softmax(q k^T / sqrt(d) + mask) v written with TF primitives."""
    scores = tf.matmul(q, k, transpose_b=True) / math.sqrt(q.shape[-1])
    if causal:
        allowed = tf.linalg.band_part(tf.ones([q.shape[-2], k.shape[-2]]), -1, 0)
        scores = scores + (1.0 - allowed) * -1e9
    return tf.matmul(tf.nn.softmax(scores, axis=-1), v)


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention(causal):
    check(lambda torch, q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal),
          lambda tf, q, k, v: attention_reference_tf(tf, q, k, v, causal),
          dict(q=normal((2, 3, 5, 4)), k=normal((2, 3, 5, 4), 1), v=normal((2, 3, 5, 4), 2)))


def attention_weights(model, heads):
    """The Keras MultiHeadAttention weights made from torch's nn.MultiheadAttention(model, heads)."""
    head_dim = model // heads
    kernel = reshaped((model, heads, head_dim), (model, model), transpose=True)
    bias = reshaped((heads, head_dim), (model,))
    weights = []
    for index, name in enumerate(["query", "key", "value"]):
        weights += [(f"{name}/kernel", ("in_proj_weight",), block(index, 3, kernel)),
                    (f"{name}/bias", ("in_proj_bias",), block(index, 3, bias))]
    return weights + [("attention_output/kernel", ("out_proj.weight",),
                       reshaped((heads, head_dim, model), (model, model), transpose=True)),
                      ("attention_output/bias", ("out_proj.bias",), SAME)]


def randomized_attention(model, heads, seed):
    """torch's attention with non-zero biases (its initial ones are zero, which would hide a swapped bias)."""
    torch.manual_seed(seed)
    module = torch.nn.MultiheadAttention(model, heads, batch_first=True)
    with torch.no_grad():
        module.in_proj_bias.copy_(torch.tensor(normal((3 * model,), seed, 0.5)))
        module.out_proj.bias.copy_(torch.tensor(normal((model,), seed + 1, 0.5)))
    return module


def test_self_attention_module_vs_keras_layer():
    check_layer(randomized_attention(6, 2, 0), tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3),
                dict(x=normal((2, 4, 6))), attention_weights(6, 2),
                torch_call=lambda module, x: module(x, x, x, need_weights=False)[0],
                tf_call=lambda layer, x: layer(x, x))


def test_cross_attention_with_causal_mask():
    # Keras' use_causal_mask is torch's boolean attn_mask above the diagonal (query and key lengths equal).
    mask = np.triu(np.ones((4, 4), bool), 1)
    check_layer(randomized_attention(8, 4, 1), tf.keras.layers.MultiHeadAttention(num_heads=4, key_dim=2),
                dict(q=normal((2, 4, 8)), kv=normal((2, 4, 8), 1)), attention_weights(8, 4),
                torch_call=lambda module, q, kv: module(q, kv, kv, attn_mask=torch.tensor(mask),
                                                        need_weights=False)[0],
                tf_call=lambda layer, q, kv: layer(q, kv, use_causal_mask=True))
