"""``ReversibleEmbedding``: an ``Embedding`` that can also map hidden states back to vocabulary logits.

``layer(ids)`` embeds as ``Embedding``; ``layer(hidden, reverse=True)`` returns ``hidden @ embeddings.T``
(``tie_weights``, the default) or ``hidden @ reverse_embeddings`` (a separate ``[output_dim, input_dim]``
weight initialized like the embeddings), computed in ``reverse_dtype`` when given and soft-capped
to ``cap * tanh(logits / cap)`` with ``logit_soft_cap``.  Quantized modes are not supported.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer_call import set_keras_mask
from vfw.frontends.tensorflow.keras.src.layers.core import Embedding


class ReversibleEmbedding(Embedding):
    """An embedding usable in reverse, as a tied (or untied) output projection.

    Parameters
    ----------
    input_dim : int
        The vocabulary size.
    output_dim : int
    tie_weights : bool
        Reverse with the transposed embeddings (else with a separate ``reverse_embeddings`` weight).
    embeddings_initializer, embeddings_regularizer, embeddings_constraint, mask_zero
        As ``Embedding``'s.
    reverse_dtype : str, optional
        The dtype the reverse product is computed in.
    logit_soft_cap : float, optional
        Reverse logits become ``logit_soft_cap * tanh(logits / logit_soft_cap)``.

    Notes
    -----
    ``call(inputs, reverse=False)``: ids ``[...]`` -> ``[..., output_dim]``; with ``reverse``,
    ``[..., output_dim]`` -> ``[..., input_dim]``.
    """

    def __init__(self, input_dim, output_dim, tie_weights=True, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer, embeddings_constraint=embeddings_constraint,
                         mask_zero=mask_zero, **kwargs)
        self.tie_weights = tie_weights
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        if self.built:
            return
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(shape=(self.output_dim, self.input_dim),
                                                      initializer=self.embeddings_initializer,
                                                      name="reverse_embeddings", trainable=True)

    def call(self, inputs, reverse=False):
        if not reverse:
            result = super().call(inputs)
            mask = super().compute_mask(inputs)
            if mask is not None:
                set_keras_mask(result, mask)
            return result
        kernel = (tf.transpose(tf.convert_to_tensor(self.embeddings)) if self.tie_weights
                  else tf.convert_to_tensor(self.reverse_embeddings))
        if self.reverse_dtype is not None:
            inputs, kernel = tf.cast(inputs, self.reverse_dtype), tf.cast(kernel, self.reverse_dtype)
        logits = tf.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            logits = tf.tanh(logits / self.logit_soft_cap) * self.logit_soft_cap
        return logits

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape, reverse=False):
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
        else:
            shape.append(self.output_dim)
        return shape

    def compute_output_spec(self, inputs, reverse=False):
        return KerasTensor(self.compute_output_shape(inputs.shape, reverse), dtype=self.compute_dtype)

    def get_config(self):
        return {**super().get_config(), "tie_weights": self.tie_weights, "reverse_dtype": self.reverse_dtype,
                "logit_soft_cap": self.logit_soft_cap}


API = {"layers": ["ReversibleEmbedding"]}
