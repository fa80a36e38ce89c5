"""A sequence tagger in the style of the keras.io NER / "masking and padding" examples: Embedding(mask_zero=True)
feeding Bidirectional(LSTM(return_sequences=True)), self-attention with keras.layers.MultiHeadAttention given an
explicit attention_mask built from the padding mask (and return_attention_scores=True), a causal-mask variant, and
TimeDistributed(Dense) tag logits, trained with per-token sample weights; the propagated masks, attention score
shapes/rows and predictions are compared."""

import keras
import numpy as np
import tensorflow as tf


class MaskedSelfAttention(keras.layers.Layer):
    def __init__(self, heads=2, key_dim=4, causal=False, **kwargs):
        super().__init__(**kwargs)
        self.mha = keras.layers.MultiHeadAttention(num_heads=heads, key_dim=key_dim)
        self.norm = keras.layers.LayerNormalization()
        self.causal = causal
        self.supports_masking = True

    def call(self, x, mask=None):
        pair = None
        if mask is not None:
            m = tf.cast(mask, tf.int32)
            pair = tf.cast(m[:, :, None] * m[:, None, :], tf.bool)
        out, scores = self.mha(x, x, attention_mask=pair, use_causal_mask=self.causal, return_attention_scores=True)
        self.last_scores = scores
        return self.norm(x + out)


def build(vocab, tags, causal):
    tokens = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(vocab, 8, mask_zero=True)(tokens)
    h = keras.layers.Bidirectional(keras.layers.LSTM(5, return_sequences=True), merge_mode="concat")(h)
    attention = MaskedSelfAttention(2, 4, causal=causal, name="attention")
    h = attention(h)
    logits = keras.layers.TimeDistributed(keras.layers.Dense(tags))(h)
    return keras.Model(tokens, logits), attention


def main():
    keras.utils.set_random_seed(2024)
    rng = np.random.default_rng(2024)
    vocab, tags, length = 20, 3, 7
    lengths = rng.integers(3, length + 1, size=24)
    x = np.zeros((24, length), np.int32)
    for i, n in enumerate(lengths):
        x[i, :n] = rng.integers(1, vocab, size=n)
    y = (x % tags).astype(np.int32)
    weights = (x > 0).astype(np.float32)
    values = []
    for causal in (False, True):
        model, attention = build(vocab, tags, causal)
        model.compile(optimizer=keras.optimizers.Adam(0.02),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      weighted_metrics=["accuracy"])
        history = model.fit(x, y, sample_weight=weights, batch_size=8, epochs=3, verbose=0, shuffle=False)
        values += history.history["loss"] + history.history["accuracy"]
        out = model(x[:3])
        values += [str(tuple(attention.last_scores.shape)), str(getattr(out, "_keras_mask", None) is not None)]
        scores = attention.last_scores.numpy()
        values += [float(v) for v in scores[0, 0, 0]] + [float(v) for v in scores[1, 1, -1]]
        values += [float(v) for v in np.sum(scores[2], axis=-1).ravel()[:6]]
        values += [float(v) for v in out.numpy()[0, :2].ravel()]
        values += [float(v) for v in model.predict(x[3:5], verbose=0).ravel()[:8]]
    embedding_mask = keras.layers.Embedding(vocab, 4, mask_zero=True).compute_mask(x[:2])
    values += [str(embedding_mask.numpy().tolist())]
    return values
