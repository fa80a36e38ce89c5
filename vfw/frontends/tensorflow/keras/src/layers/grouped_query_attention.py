"""``GroupedQueryAttention`` (``keras.layers.GroupQueryAttention``): attention where groups of query heads share
one key/value head.

Sublayers (Keras' names and shapes): ``query`` ``[dim, num_query_heads, head_dim]``, ``key`` and ``value``
``[dim, num_key_value_heads, head_dim]``, optional ``gate`` (sigmoid, like ``query``), ``attention_output``
``[num_query_heads, head_dim, dim]``, a ``Softmax`` and a ``Dropout``.  Each key/value head is repeated
``num_query_heads // num_key_value_heads`` times, then attention runs as ``MultiHeadAttention``'s over
``[batch, steps, heads, head_dim]`` tensors: the mask arithmetic, the dot-product path and the masked
softmax path are that layer's (borrowed, not inherited: Keras' class is no MultiHeadAttention).
"""

import math

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import constraints, initializers, regularizers
from vfw.frontends.tensorflow.keras.src.config import is_flash_attention_enabled
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.layers.activations import Softmax
from vfw.frontends.tensorflow.keras.src.layers.core import EinsumDense
from vfw.frontends.tensorflow.keras.src.layers.multi_head_attention import MultiHeadAttention
from vfw.frontends.tensorflow.keras.src.layers.regularization import Dropout


class GroupedQueryAttention(Layer):
    """Grouped-query attention (Ainslie et al., 2023).

    Parameters
    ----------
    head_dim : int
        Size of each attention head.
    num_query_heads : int
    num_key_value_heads : int
        Must divide ``num_query_heads``.
    dropout : float
        Dropout of the attention probabilities in training.
    use_bias : bool
    sliding_window : int, optional
        Query step ``i`` sees key steps ``j`` with ``|i - j| < sliding_window``.
    flash_attention : bool, optional
        Refused at call time when True (TF has no flash attention), as Keras' TF backend does.
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
    kernel_constraint, bias_constraint : optional
    use_gate : bool
        Multiply the attention output by ``sigmoid(gate projection of the query)`` before the output projection.
    seed : int, optional
        Seed of the dropout.

    Notes
    -----
    ``call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)`` with ``query`` ``[B, T, dim]``,
    ``value``/``key`` ``[B, S, dim]``; returns ``[B, T, dim]`` (and the scores ``[B, num_query_heads, T, S]``).
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0, use_bias=True,
                 sliding_window=None, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads
        if num_query_heads % num_key_value_heads != 0:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = num_query_heads // num_key_value_heads
        self.dropout = dropout
        self.use_bias = use_bias
        self.use_gate = use_gate
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. Received: sliding_window="
                             f"{sliding_window}")
        self.sliding_window = sliding_window
        self._flash_attention = flash_attention or is_flash_attention_enabled()
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self._inverse_sqrt_head_dim = 1.0 / math.sqrt(float(self.head_dim))
        if self._flash_attention and self.dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. Please set dropout to 0.0 to "
                             "use flash attention.")

    # The names MultiHeadAttention's borrowed methods read.
    _dropout = property(lambda self: self.dropout)
    _sliding_window = property(lambda self: self.sliding_window)
    _inverse_sqrt_key_dim = property(lambda self: self._inverse_sqrt_head_dim)
    _attention_axes = (1,)  # attention over the steps of [B, steps, heads, head_dim]
    # key-first, as MultiHeadAttention's attention computation passes them
    _dot_product_equation = "bkuh,bquh->buqk"
    _combine_equation = "buqk,bkuh->bquh"

    _compute_attention = MultiHeadAttention._compute_attention
    _dot_product_attention = MultiHeadAttention._dot_product_attention
    _masked_softmax = MultiHeadAttention._masked_softmax
    _compute_attention_mask = MultiHeadAttention._compute_attention_mask
    _compute_causal_mask = staticmethod(MultiHeadAttention._compute_causal_mask)
    _compute_sliding_window_mask = MultiHeadAttention._compute_sliding_window_mask

    def _sublayer_kwargs(self):
        """The projections' common arguments (fresh copies of the initializers, as Keras gives each one)."""
        return dict(kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
                    activity_regularizer=self.activity_regularizer, kernel_constraint=self.kernel_constraint,
                    bias_constraint=self.bias_constraint, dtype=self.dtype_policy,
                    kernel_initializer=type(self.kernel_initializer).from_config(self.kernel_initializer.get_config()),
                    bias_initializer=type(self.bias_initializer).from_config(self.bias_initializer.get_config()))

    def _projection(self, heads, name, input_shape, activation=None):
        """A built EinsumDense projecting ``[B, steps, dim]`` to ``[B, steps, heads, head_dim]``."""
        kwargs = self._sublayer_kwargs()
        if activation is not None:
            kwargs["activation"] = activation
        dense = EinsumDense("bqm,muh->bquh", output_shape=(None, heads, self.head_dim),
                            bias_axes="uh" if self.use_bias else None, name=name, **kwargs)
        dense.build(input_shape)
        return dense

    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        self.feature_dim = query_shape[-1]
        self._query_dense = self._projection(self.num_query_heads, "query", query_shape)
        self._key_dense = self._projection(self.num_key_value_heads, "key", key_shape)
        if self.use_gate:
            self._gate_dense = self._projection(self.num_query_heads, "gate", query_shape, activation="sigmoid")
        self._value_dense = self._projection(self.num_key_value_heads, "value", value_shape)
        self._softmax = Softmax(axis=-1, dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self.dropout, dtype=self.dtype_policy, seed=self.seed)
        self._output_dense = EinsumDense("bquh,uhm->bqm", output_shape=(None, self.feature_dim),
                                         bias_axes="m" if self.use_bias else None, name="attention_output",
                                         **self._sublayer_kwargs())
        self._output_dense.build((None, None, self.num_query_heads, self.head_dim))

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        if key is None:
            key = value
        causal_only = (use_causal_mask and query_mask is None and value_mask is None and key_mask is None
                       and attention_mask is None and self.sliding_window is None
                       and type(self)._compute_attention is GroupedQueryAttention._compute_attention)
        if causal_only:
            attention_mask = None
        else:
            attention_mask = self._compute_attention_mask(query, value, query_mask=query_mask, value_mask=value_mask,
                                                          key_mask=key_mask, attention_mask=attention_mask,
                                                          use_causal_mask=use_causal_mask)
        gate = self._gate_dense(query) if self.use_gate else None
        query = self._query_dense(query)
        key = tf.repeat(self._key_dense(key), self.num_repeats, axis=2)  # [B, S, query heads, head_dim]
        value = tf.repeat(self._value_dense(value), self.num_repeats, axis=2)
        extra = {"use_causal_mask": True} if causal_only else {}
        output, scores = self._compute_attention(query, key, value, attention_mask, training, return_attention_scores,
                                                 **extra)
        output = self._output_dense(output * gate if gate is not None else output)
        return (output, scores) if return_attention_scores else output

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(f"The last dimension of `query_shape` and `value_shape` must be equal, but are "
                             f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                             f"value_shape={value_shape}")
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={value_shape} and key_shape={key_shape}")
        return query_shape

    def compute_output_spec(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
                            attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False):
        shape = self.compute_output_shape(query.shape, value.shape, None if key is None else key.shape)
        output = KerasTensor(shape, dtype=self.compute_dtype)
        if return_attention_scores:
            source_length = (value if key is None else key).shape[1]
            scores_shape = (query.shape[0], self.num_query_heads, query.shape[1], source_length)
            return output, KerasTensor(scores_shape, dtype=self.compute_dtype)
        return output

    def get_config(self):
        return {
            **super().get_config(), "head_dim": self.head_dim, "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads, "use_bias": self.use_bias, "use_gate": self.use_gate,
            "sliding_window": self.sliding_window, "dropout": self.dropout,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint), "seed": self.seed,
        }


GroupQueryAttention = GroupedQueryAttention  # the name keras.layers exports

API = {"layers": ["GroupQueryAttention"]}
