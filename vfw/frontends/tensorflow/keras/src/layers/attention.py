"""Attention layers over ``[query, value]`` or ``[query, value, key]`` lists: Attention (dot-product or
``concat`` scores, Luong style) and AdditiveAttention (Bahdanau style).

Scores ``[batch, Tq, Tv]`` are masked by the value mask (and causally with ``use_causal_mask``) by
subtracting 1e9 (65504 in float16), normalized by a softmax over the value steps, optionally
dropped out in training, and applied to the values; query steps masked out give zeros.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer


def causal_mask(query_length, value_length):
    """Bool ``[1, query_length, value_length]``: query step ``i`` sees value steps ``j <= i`` (Keras' cumsum form)."""
    ones = tf.ones(tf.stack([1, query_length, value_length]), dtype="int32")
    return tf.math.cumsum(ones, axis=-2) >= tf.math.cumsum(ones, axis=-1)


class Attention(Layer):
    """Dot-product attention: ``softmax(query @ key^T) @ value``.

    Parameters
    ----------
    use_scale : bool
        Learn a scalar ``scale`` multiplying the scores.
    score_mode : {"dot", "concat"}
        ``"concat"``: scores ``concat_score_weight * sum(tanh(scale * (query + key)))``.
    dropout : float
        Dropout rate of the attention weights in training.
    seed : int, optional

    Notes
    -----
    ``call(inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False)``
    with ``inputs = [query, value]`` or ``[query, value, key]`` and ``mask = [query_mask, value_mask]``.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        if self.dropout > 0:
            self.seed_generator = random.SeedGenerator(seed=seed)
        if self.score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of {{'dot', 'concat'}}. Received: "
                             f"score_mode={score_mode}")

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones", dtype=self.dtype, trainable=True)
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(), initializer="ones",
                                                       dtype=self.dtype, trainable=True)

    def _calculate_scores(self, query, key):
        """Scores ``[batch, Tq, Tv]`` of every query step against every key step."""
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores if self.scale is None else scores * tf.convert_to_tensor(self.scale)
        pairs = tf.expand_dims(query, axis=-2) + tf.expand_dims(key, axis=-3)
        if self.scale is not None:
            pairs = tf.convert_to_tensor(self.scale) * pairs
        return tf.convert_to_tensor(self.concat_score_weight) * tf.reduce_sum(tf.tanh(pairs), axis=-1)

    def _apply_scores(self, scores, value, scores_mask=None, training=False):
        """``(weights @ value, weights)`` with ``weights`` the masked softmax of ``scores``."""
        if scores_mask is not None:
            padding = tf.logical_not(scores_mask)
            if len(padding.shape) == 2:
                padding = tf.expand_dims(padding, axis=-2)
            max_value = 65504.0 if scores.dtype == tf.float16 else 1.0e9
            scores = tf.where(padding, scores - max_value, scores)
        weights = tf.nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = random.dropout(weights, self.dropout, seed=self.seed_generator)
        return tf.matmul(weights, value), weights

    @staticmethod
    def _score_mask(scores, value_mask, use_causal_mask):
        if not use_causal_mask:
            return value_mask
        shape = tf.shape(scores)
        mask = causal_mask(shape[-2], shape[-1])
        if value_mask is not None:
            return tf.logical_and(tf.expand_dims(value_mask, axis=-2), mask)
        return mask

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        self._validate_inputs(inputs=inputs, mask=mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = mask[0] if mask else None
        value_mask = mask[1] if mask else None
        scores = self._calculate_scores(query=query, key=key)
        scores_mask = self._score_mask(scores, value_mask, use_causal_mask)
        outputs, weights = self._apply_scores(scores, value, scores_mask=scores_mask, training=training)
        if query_mask is not None:
            outputs = tf.where(tf.expand_dims(query_mask, axis=-1), outputs, tf.zeros_like(outputs))
        return (outputs, weights) if return_attention_scores else outputs

    def compute_mask(self, inputs, mask=None):
        self._validate_inputs(inputs=inputs, mask=mask)
        if mask is None or mask[0] is None:
            return None
        from vfw.frontends.tensorflow.keras import ops

        return ops.convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return (*input_shape[0][:-1], input_shape[1][-1])

    def compute_output_spec(self, inputs, mask=None, return_attention_scores=False, training=None,
                            use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        output = KerasTensor(self.compute_output_shape([query.shape, value.shape, key.shape]),
                             dtype=self.compute_dtype)
        if return_attention_scores:
            return output, KerasTensor((*query.shape[:-1], key.shape[-2]), dtype=self.compute_dtype)
        return output

    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or [query, "
                             f"value, key]. Received: inputs={inputs}.")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or [query, "
                             f"value, key]. Received length: {len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. Received: "
                                 f"mask={mask}.")
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received: inputs={inputs}, "
                                 f"mask={mask}.")

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale, "score_mode": self.score_mode,
                "dropout": self.dropout, "seed": self.seed}


class AdditiveAttention(Attention):
    """Additive attention: scores ``sum(scale * tanh(query + key))`` with a learned ``scale`` vector
    (glorot_uniform, ``[dim]``) when ``use_scale`` (default True).

    Parameters
    ----------
    use_scale : bool
    dropout : float
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=[input_shape[0][-1]], initializer="glorot_uniform",
                                         dtype=self.dtype, trainable=True)

    def _calculate_scores(self, query, key):
        scale = tf.convert_to_tensor(self.scale) if self.use_scale else 1.0
        return tf.reduce_sum(scale * tf.tanh(tf.expand_dims(query, axis=-2) + tf.expand_dims(key, axis=-3)), axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config


API = {"layers": ["Attention", "AdditiveAttention"]}
