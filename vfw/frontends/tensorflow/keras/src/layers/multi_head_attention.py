"""``MultiHeadAttention``: Keras' multi-head attention with EinsumDense projections.

Sublayers (Keras' names and shapes): ``query`` and ``key`` ``[dim, heads, key_dim]``, ``value``
``[dim, heads, value_dim]``, optional ``gate`` (sigmoid, like ``value`` on the query),
``attention_output`` ``[heads, value_dim, out]`` (out: the query's last dim or ``output_shape``), a
``Softmax`` over the attention axes and a ``Dropout``.  Masks: the query/value/key Keras masks,
``attention_mask`` ``[B, T, S]``, ``use_causal_mask`` and ``sliding_window`` combine into one.
As in Keras, 3-D inputs without dropout or returned scores take the dot-product path (logits
scaled after the product, masked logits set to a large negative, no zeroing of masked rows);
the general path scales the query first and uses the masked Softmax layer.
"""

import math
import string

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import backend, constraints, initializers, regularizers
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.layer import Layer
from vfw.frontends.tensorflow.keras.src.engine.layer_call import get_keras_mask, set_keras_mask
from vfw.frontends.tensorflow.keras.src.layers.activations import Softmax
from vfw.frontends.tensorflow.keras.src.layers.attention import causal_mask
from vfw.frontends.tensorflow.keras.src.layers.core import EinsumDense
from vfw.frontends.tensorflow.keras.src.layers.regularization import Dropout

_LARGE_NEGATIVE_SCALE = -0.7  # masked logits of the dot-product path: -0.7 * the dtype's largest value


def _check_positive(name, value, allow_none=False):
    if allow_none and value is None:
        return
    if not isinstance(value, int) or value <= 0:
        expected = "a positive integer or `None`" if allow_none else "a positive integer"
        raise ValueError(f"Received an invalid value for argument `{name}`, expected {expected}. Received: "
                         f"{name}={value}")


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al.): project query/key/value per head, attend, project back.

    Parameters
    ----------
    num_heads : int
    key_dim : int
        Size of each head for query and key.
    value_dim : int, optional
        Size of each head for value (``key_dim`` by default).
    dropout : float
        Dropout of the attention probabilities in training.
    use_bias : bool
    output_shape : int or tuple, optional
        Output shape without the batch and query-step dims (the query's last dim by default).
    attention_axes : int or tuple, optional
        Axes attention runs over (all but batch, heads and features by default).
    sliding_window : int, optional
        Query step ``i`` sees key steps ``j`` with ``|i - j| < sliding_window``.
    flash_attention : bool, optional
        Refused when True (TF has no flash attention).
    kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
    kernel_constraint, bias_constraint : optional
        Of the projections (each gets its own copy of the initializers).
    use_gate : bool
        Gate the attention output with ``sigmoid(query projection)``.
    seed : int, optional
        Of the dropout.

    Notes
    -----
    ``call(query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
    return_attention_scores=False, training=None, use_causal_mask=False)``.
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, sliding_window=None, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None, **kwargs):
        _check_positive("num_heads", num_heads)
        _check_positive("key_dim", key_dim)
        _check_positive("value_dim", value_dim, allow_none=True)
        super().__init__(**kwargs)
        self.supports_masking = True
        self._num_heads = num_heads
        self._key_dim = key_dim
        self._value_dim = value_dim if value_dim else key_dim
        self._dropout = dropout
        self._use_bias = use_bias
        self._use_gate = use_gate
        if output_shape:
            if isinstance(output_shape, int):
                output_shape = (output_shape,)
            try:
                output_shape = tuple(output_shape)
            except TypeError:
                raise ValueError(f"Invalid `output_shape`: {output_shape}. When specified, the `output_shape` should "
                                 "be of type tuple, list, or int.") from None
        self._output_shape = output_shape
        self._flash_attention = bool(flash_attention)
        self._kernel_initializer = initializers.get(kernel_initializer)
        self._bias_initializer = initializers.get(bias_initializer)
        self._kernel_regularizer = regularizers.get(kernel_regularizer)
        self._bias_regularizer = regularizers.get(bias_regularizer)
        self._activity_regularizer = regularizers.get(activity_regularizer)
        self._kernel_constraint = constraints.get(kernel_constraint)
        self._bias_constraint = constraints.get(bias_constraint)
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        elif attention_axes and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(f"`attention_axes` must be an int, list, or tuple.Received: attention_axes="
                             f"{attention_axes}")
        self._attention_axes = attention_axes
        if sliding_window is not None and (not isinstance(sliding_window, int) or sliding_window <= 0):
            raise ValueError(f"`sliding_window` must be `None` or a positive integer. Received: sliding_window="
                             f"{sliding_window}")
        self._sliding_window = sliding_window
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(self._key_dim))
        if self._flash_attention and self._dropout > 0.0:
            raise ValueError("Dropout is not supported when flash attention is enabled. Please set dropout to 0.0 to "
                             "use flash attention.")

    num_heads = property(lambda self: self._num_heads, doc="int: the number of heads.")
    key_dim = property(lambda self: self._key_dim, doc="int: the query/key size per head.")
    value_dim = property(lambda self: self._value_dim, doc="int: the value size per head.")
    dropout = property(lambda self: self._dropout, doc="float: the attention dropout rate.")
    use_bias = property(lambda self: self._use_bias, doc="bool: whether the projections have biases.")
    attention_axes = property(lambda self: self._attention_axes, doc="tuple: the axes attention runs over.")
    query_dense = property(lambda self: self._query_dense, doc="EinsumDense: the query projection.")
    key_dense = property(lambda self: self._key_dense, doc="EinsumDense: the key projection.")
    value_dense = property(lambda self: self._value_dense, doc="EinsumDense: the value projection.")
    output_dense = property(lambda self: self._output_dense, doc="EinsumDense: the output projection.")

    def get_config(self):
        return {
            **super().get_config(), "num_heads": self._num_heads, "key_dim": self._key_dim,
            "value_dim": self._value_dim, "dropout": self._dropout, "use_bias": self._use_bias,
            "use_gate": self._use_gate, "output_shape": self._output_shape, "attention_axes": self._attention_axes,
            "sliding_window": self._sliding_window,
            "kernel_initializer": initializers.serialize(self._kernel_initializer),
            "bias_initializer": initializers.serialize(self._bias_initializer),
            "kernel_regularizer": regularizers.serialize(self._kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self._bias_regularizer),
            "activity_regularizer": regularizers.serialize(self._activity_regularizer),
            "kernel_constraint": constraints.serialize(self._kernel_constraint),
            "bias_constraint": constraints.serialize(self._bias_constraint), "seed": self.seed,
        }

    # -- building -------------------------------------------------------------------------------------------
    def build(self, query_shape, value_shape, key_shape=None):
        key_shape = value_shape if key_shape is None else key_shape
        _check_key_value_shapes(value_shape, key_shape)
        self._query_dense = self._projection(len(query_shape), self._key_dim, "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._projection(len(key_shape), self._key_dim, "key")
        self._key_dense.build(key_shape)
        if self._use_gate:
            self._gate_dense = self._projection(len(query_shape), self._value_dim, "gate", activation="sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection(len(value_shape), self._value_dim, "value")
        self._value_dense.build(value_shape)
        self._build_attention(len(value_shape) + 1)
        output_shape = self._output_shape or [query_shape[-1]]
        equation, bias_axes, rank = _projection_equation(len(query_shape) - 1, bound_dims=2,
                                                         output_dims=len(output_shape))
        self._output_dense = EinsumDense(equation, output_shape=_partial_shape(rank - 1, output_shape),
                                         bias_axes=bias_axes if self._use_bias else None, name="attention_output",
                                         **self._sublayer_kwargs())
        dense_input_shape = list(self._query_dense.compute_output_shape(query_shape))
        dense_input_shape[-1] = self._value_dim
        self._output_dense.build(tuple(dense_input_shape))

    def _sublayer_kwargs(self):
        """The projections' common arguments (fresh copies of the initializers, as Keras gives each one)."""
        return dict(kernel_regularizer=self._kernel_regularizer, bias_regularizer=self._bias_regularizer,
                    activity_regularizer=self._activity_regularizer, kernel_constraint=self._kernel_constraint,
                    bias_constraint=self._bias_constraint, dtype=self.dtype_policy,
                    kernel_initializer=type(self._kernel_initializer).from_config(self._kernel_initializer.get_config()),
                    bias_initializer=type(self._bias_initializer).from_config(self._bias_initializer.get_config()))

    def _projection(self, rank, head_dim, name, activation=None):
        """An EinsumDense projecting the last axis of a rank-``rank`` input to ``[heads, head_dim]``."""
        equation, bias_axes, output_rank = _projection_equation(rank - 1, bound_dims=1, output_dims=2)
        kwargs = self._sublayer_kwargs()
        if activation is not None:
            kwargs["activation"] = activation
        return EinsumDense(equation, output_shape=_partial_shape(output_rank - 1, [self._num_heads, head_dim]),
                           bias_axes=bias_axes if self._use_bias else None, name=name, **kwargs)

    def _build_attention(self, rank):
        """The einsum equations, Softmax and Dropout for projected tensors of rank ``rank``."""
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation, scores_rank = _attention_equations(
            rank, self._attention_axes)
        norm_axes = tuple(range(scores_rank - len(self._attention_axes), scores_rank))
        self._softmax = Softmax(axis=norm_axes, dtype=self.dtype_policy)
        self._dropout_layer = Dropout(rate=self._dropout, dtype=self.dtype_policy, seed=self.seed)

    # -- calling -----------------------------------------------------------------------------------------
    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        if key is None:
            key = value
        query_mask = get_keras_mask(query)  # as Keras: the query's own mask wins over the argument
        for tensor in (query, value, key):
            set_keras_mask(tensor, None)
        causal_only = (use_causal_mask and query_mask is None and value_mask is None and key_mask is None
                       and attention_mask is None and self._sliding_window is None
                       and type(self)._compute_attention is MultiHeadAttention._compute_attention)
        if causal_only:
            attention_mask = None
        else:
            attention_mask = self._compute_attention_mask(query, value, query_mask=query_mask, value_mask=value_mask,
                                                          key_mask=key_mask, attention_mask=attention_mask,
                                                          use_causal_mask=use_causal_mask)
        gate = self._gate_dense(query) if self._use_gate else None
        query = self._query_dense(query)
        key = self._key_dense(key)
        value = self._value_dense(value)
        extra = {"use_causal_mask": True} if causal_only else {}
        output, scores = self._compute_attention(query, key, value, attention_mask, training, return_attention_scores,
                                                 **extra)
        output = self._output_dense(output * gate if gate is not None else output)
        if query_mask is not None:
            set_keras_mask(output, query_mask)
        return (output, scores) if return_attention_scores else output

    def _compute_attention(self, query, key, value, attention_mask=None, training=None, return_attention_scores=False,
                           use_causal_mask=False):
        """``(output, scores)`` of projected ``query``/``key``/``value`` (scores None on the dot-product path)."""
        if self._flash_attention and return_attention_scores:
            raise ValueError("Returning attention scores is not supported when flash attention is enabled. Please "
                             "disable flash attention to access attention scores.")
        if not (self._dropout > 0.0 or return_attention_scores or len(query.shape) != 4):
            return self._dot_product_attention(query, key, value, attention_mask, use_causal_mask), None
        if use_causal_mask:
            mask = self._compute_causal_mask(query, value)
            attention_mask = mask if attention_mask is None else tf.logical_and(tf.cast(attention_mask, "bool"), mask)
        query = query * tf.cast(self._inverse_sqrt_key_dim, query.dtype)
        scores = self._masked_softmax(tf.einsum(self._dot_product_equation, key, query), attention_mask)
        dropped = self._dropout_layer(scores, training=training) if self._dropout > 0.0 else scores
        return tf.einsum(self._combine_equation, dropped, value), scores

    def _dot_product_attention(self, query, key, value, attention_mask, is_causal):
        """Keras' fused form for ``[B, T, heads, dim]`` tensors (what ``keras.ops.dot_product_attention`` does)."""
        if self._flash_attention:
            raise ValueError("Flash attention is not supported in tensorflow backend.")
        logits_dtype = backend.result_type(query.dtype.name, "float32")
        heads_first = [0, 2, 1, 3]  # [B, T, N, H] <-> [B, N, T, H]: batched matmuls over (B, N)
        logits = tf.matmul(tf.transpose(query, heads_first), tf.transpose(key, heads_first), transpose_b=True)
        logits = tf.cast(logits, logits_dtype)
        logits = logits * tf.cast(self._inverse_sqrt_key_dim, logits.dtype)
        keep = None
        if attention_mask is not None:
            for _ in range(4 - len(attention_mask.shape)):
                attention_mask = tf.expand_dims(attention_mask, axis=-len(self._attention_axes) * 2 - 1)
            keep = tf.cast(attention_mask, "bool")
        if is_causal:
            shape = tf.shape(logits)
            lower = tf.linalg.band_part(tf.ones(tf.stack([shape[2], shape[3]]), "bool"), -1, 0)[None, None]
            keep = lower if keep is None else tf.logical_and(keep, lower)
        if keep is not None:
            largest = 65500.0 if logits.dtype == tf.float16 else 3.38953e38
            logits = tf.where(keep, logits, tf.constant(largest * _LARGE_NEGATIVE_SCALE, dtype=logits.dtype))
        probabilities = tf.cast(tf.nn.softmax(tf.cast(logits, backend.result_type(logits.dtype.name, "float32")),
                                              axis=-1), key.dtype)
        return tf.transpose(tf.matmul(probabilities, tf.transpose(value, heads_first)), heads_first)

    def _masked_softmax(self, scores, attention_mask=None):
        if attention_mask is not None:
            for _ in range(len(scores.shape) - len(attention_mask.shape)):
                attention_mask = tf.expand_dims(attention_mask, axis=-len(self._attention_axes) * 2 - 1)
        return self._softmax(scores, mask=attention_mask)

    def _compute_attention_mask(self, query, value, query_mask=None, value_mask=None, key_mask=None,
                                attention_mask=None, use_causal_mask=False):
        """The combined bool mask ``[B, T, S]`` (None when nothing masks)."""
        masks = []
        if query_mask is not None:
            masks.append(tf.expand_dims(tf.cast(query_mask, "bool"), -1))
        for mask in (value_mask, key_mask):
            if mask is not None:
                masks.append(tf.expand_dims(tf.cast(mask, "bool"), -2))
        if use_causal_mask:
            masks.append(self._compute_causal_mask(query, value))
        if self._sliding_window is not None:
            masks.append(self._compute_sliding_window_mask(query, value))
        auto_mask = None
        for mask in masks:
            auto_mask = mask if auto_mask is None else tf.logical_and(auto_mask, mask)
        if attention_mask is not None:
            attention_mask = tf.cast(attention_mask, "bool")
        if auto_mask is not None:
            attention_mask = auto_mask if attention_mask is None else tf.logical_and(attention_mask, auto_mask)
        return attention_mask

    @staticmethod
    def _compute_causal_mask(query, value=None):
        query_length = tf.shape(query)[1]
        return causal_mask(query_length, query_length if value is None else tf.shape(value)[1])

    def _compute_sliding_window_mask(self, query, value=None):
        query_length = tf.shape(query)[1]
        value_length = query_length if value is None else tf.shape(value)[1]
        rows = tf.reshape(tf.range(query_length, dtype="int32"), [1, -1, 1])
        columns = tf.reshape(tf.range(value_length, dtype="int32"), [1, 1, -1])
        return tf.abs(rows - columns) < self._sliding_window

    def compute_output_shape(self, query_shape, value_shape, key_shape=None):
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        _check_key_value_shapes(value_shape, key_shape)
        if self._output_shape:
            query_shape = query_shape[:-1] + self._output_shape
        return query_shape

    def compute_output_spec(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
                            attention_mask=None, return_attention_scores=False, training=None, use_causal_mask=False):
        shape = self.compute_output_shape(query.shape, value.shape, None if key is None else key.shape)
        output = KerasTensor(shape, dtype=self.compute_dtype)
        if return_attention_scores:
            length = query.shape[1]  # sic: Keras gives the scores the query length twice
            return output, KerasTensor((query.shape[0], self.num_heads, length, length), dtype=self.compute_dtype)
        return output


def _check_key_value_shapes(value_shape, key_shape):
    if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
        raise ValueError(f"All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                         f"value_shape={value_shape} and key_shape={key_shape}")


def _letter(i):
    return string.ascii_lowercase[i]


def _projection_equation(free_dims, bound_dims, output_dims):
    """``(equation, bias_axes, output_rank)`` of an EinsumDense keeping ``free_dims`` leading dims, contracting
    ``bound_dims`` and producing ``output_dims`` new ones."""
    free = "".join(_letter(i) for i in range(free_dims))
    bound = "".join(_letter(free_dims + i) for i in range(bound_dims))
    produced = "".join(_letter(free_dims + bound_dims + i) for i in range(output_dims))
    return f"{free}{bound},{bound}{produced}->{free}{produced}", produced, len(free + produced)


def _partial_shape(output_rank, known_last_dims):
    return [None] * (output_rank - len(known_last_dims)) + list(known_last_dims)


def _attention_equations(rank, attention_axes):
    """``(dot_product_equation, combine_equation, scores_rank)`` for projected tensors of rank ``rank``."""
    target = "".join(_letter(i) for i in range(rank))
    batch_dims = [i for i in range(rank) if i not in attention_axes and i != rank - 1]
    source, offset = "", rank
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _letter(offset)
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attention_axes]
                      + [source[i] for i in attention_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


API = {"layers": ["MultiHeadAttention"]}
