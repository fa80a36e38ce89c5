"""Masks through custom layers, as Stack Overflow answers on "how do I propagate a mask" write them: an Embedding
with mask_zero=True, a custom layer with supports_masking that scales its inputs, a custom attention-pooling layer
that consumes the mask in call(inputs, mask=None) and returns no mask (compute_mask), keras.layers.Attention with
use_scale=True and score_mode="concat" on query/value masks returning its scores, AdditiveAttention, and a Lambda
whose output keeps the first input's mask (its mask argument); the layers' compute_mask results, the mask
attached to an eager output (_keras_mask) and the attention scores are compared, then the model is trained with
fit and class weights under Adamax."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


class Scale(layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
        self.supports_masking = True

    def call(self, inputs):
        return inputs * self.factor


class AttentionPooling(layers.Layer):
    def build(self, input_shape):
        self.query = self.add_weight(shape=(input_shape[-1], 1), initializer="glorot_uniform", name="query")

    def call(self, inputs, mask=None):
        logits = tf.squeeze(tf.matmul(inputs, self.query), -1)
        if mask is not None:
            logits = tf.where(mask, logits, tf.fill(tf.shape(logits), -1e9))
        weights = tf.nn.softmax(logits, axis=-1)
        return tf.reduce_sum(inputs * weights[..., None], axis=1)

    def compute_mask(self, inputs, mask=None):
        return None


def build_model(vocab, steps):
    tokens = keras.Input((steps,), dtype="int32")
    embedded = layers.Embedding(vocab, 6, mask_zero=True)(tokens)
    scaled = Scale(0.5)(embedded)
    attended, scores = layers.Attention(use_scale=True, score_mode="concat")([scaled, scaled],
                                                                            return_attention_scores=True)
    additive = layers.AdditiveAttention()([scaled, embedded])
    mixed = layers.Lambda(lambda t: t[0] + t[1], mask=lambda t, masks: masks[0])([attended, additive])
    pooled = AttentionPooling()(mixed)
    outputs = layers.Dense(3, activation="softmax")(pooled)
    return keras.Model(tokens, outputs), keras.Model(tokens, [scores, mixed])


def main():
    keras.utils.set_random_seed(17)
    rng = np.random.default_rng(17)
    steps, vocab = 6, 10
    lengths = rng.integers(2, steps + 1, size=36)
    tokens = np.zeros((36, steps), np.int32)
    for i, n in enumerate(lengths):
        tokens[i, :n] = rng.integers(1, vocab, size=n)
    labels = (tokens.max(axis=1) % 3).astype(np.int64)

    model, probe = build_model(vocab, steps)
    values = []
    scores, mixed = probe(tokens[:2])
    values += keras.ops.convert_to_numpy(scores).ravel().tolist()
    values += keras.ops.convert_to_numpy(tf.reduce_sum(mixed, axis=-1)).ravel().tolist()
    embedding, scale = model.layers[1], model.layers[2]
    mask = embedding.compute_mask(tokens[:3])
    values.append(str(mask.numpy().tolist()))
    values.append(str(scale.compute_mask(embedding(tokens[:3]), mask).numpy().tolist()))
    values.append(str(mixed._keras_mask.numpy().tolist()) if getattr(mixed, "_keras_mask", None) is not None
                  else "no mask")

    model.compile(optimizer=keras.optimizers.Adamax(0.02), loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    history = model.fit(tokens, labels, batch_size=12, epochs=2, shuffle=False, verbose=0,
                        class_weight={0: 1.0, 1: 2.0, 2: 0.5})
    values += history.history["loss"] + history.history["sparse_categorical_accuracy"]
    values += model(tokens[:2]).numpy().ravel().tolist()
    return values
