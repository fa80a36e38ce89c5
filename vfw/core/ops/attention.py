"""Attention (ONNX opsets 23-25): scaled dot-product attention with masks, KV cache, grouped heads.

``Y = softmax(softcap(Q K^T * scale) + bias) V`` per head, where the bias adds a float mask, or
``-inf`` where a bool mask is false, where a causal or sliding-window frontier excludes a key, and
past the ``nonpad_kv_seqlen`` valid keys of each batch item.  Causal and window frontiers are
offset-aligned (bottom-right): the query at index ``i`` sits at absolute position ``i + offset``
with ``offset`` the past length (``past_key``) or ``nonpad_kv_seqlen - q_sequence_length``.  K and V
heads are shared by groups of query heads (GQA/MQA) when there are fewer of them; 3-D inputs
``(batch, sequence, heads * head_size)`` are split into heads with ``q_num_heads``/``kv_num_heads``.
A query row with every key masked gives zeros (not NaN).

Computation runs in float64 for float64 inputs and in float32 otherwise, rounding once to the
input dtype (the softmax in ``softmax_precision`` when given).  As in ONNX's reference, Q and K
are each multiplied by ``sqrt(scale)`` before their product.  The op is not differentiable here.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import OpAttributeError, ShapeError
from vfw.core.ops._common import require
from vfw.core.registry import Attr, defop

_MASKS = dt.NUMERIC | dt.BOOL


def _split_heads(x, heads, what):
    """``(batch, seq, heads * size)`` -> ``(batch, heads, seq, size)``."""
    if heads is None or heads <= 0:
        raise OpAttributeError(f"Attention: 3-D inputs need a positive q_num_heads and kv_num_heads (for {what})")
    if x.shape[2] % heads:
        raise ShapeError(f"Attention: {what} hidden size {x.shape[2]} is not a multiple of {heads} heads")
    return x.reshape(x.shape[0], x.shape[1], heads, -1).transpose(0, 2, 1, 3)


def _frontier_bias(q_len, kv_len, offset, is_causal, left, right):
    """``-inf`` where the causal or window frontier excludes key ``j`` from query ``i``: ``(q, kv)`` for a scalar
    offset, ``(batch, 1, q, kv)`` for one offset per batch item."""
    i = np.arange(q_len)[:, None]
    j = np.arange(kv_len)[None, :]
    position = i + (offset.reshape(-1, 1, 1) if np.ndim(offset) else offset)
    allowed = np.ones(np.broadcast_shapes(position.shape, j.shape), bool)
    if is_causal:
        allowed &= j <= position
    if left >= 0:
        allowed &= position - j <= left
    if right >= 0:
        allowed &= j - position <= right
    bias = np.where(allowed, 0.0, -np.inf)
    return bias[:, None] if np.ndim(offset) else bias


@defop("Attention", inputs="Q:T1 K:T1 V:T2 attn_mask?:U past_key?:T1 past_value?:T2 nonpad_kv_seqlen?:int64",
       outputs="Y:T1 present_key?:T1 present_value?:T2 qk_matmul_output?:T1",
       types={"T1": dt.FLOATS, "T2": dt.FLOATS, "U": _MASKS},
       attrs={"is_causal": Attr("int", 0, choices=(0, 1)), "kv_num_heads": Attr("int", None),
              "q_num_heads": Attr("int", None), "qk_matmul_output_mode": Attr("int", 0, choices=(0, 1, 2, 3)),
              "scale": Attr("float", None), "softcap": Attr("float", 0.0),
              "softmax_precision": Attr("dtype", None, check=lambda d: None if d in dt.FLOATS else
                                        "must be a float type"),
              "left_window_size": Attr("int", -1, check=lambda v: None if v >= -1 else "must be -1 or >= 0"),
              "right_window_size": Attr("int", -1, check=lambda v: None if v >= -1 else "must be -1 or >= 0")})
def attention(is_causal, kv_num_heads, q_num_heads, qk_matmul_output_mode, scale, softcap, softmax_precision,
              left_window_size, right_window_size):
    """Scaled dot-product attention (see the module docstring); outputs Y, the present K/V cache, and the QK
    product at the stage ``qk_matmul_output_mode`` picks (raw, soft-capped, with bias, after softmax)."""

    def kernel(q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, out=None):
        rank = q.ndim
        require("Attention", rank in (3, 4) and k.ndim == rank and v.ndim == rank,
                f"Q, K and V must all be 3-D or all 4-D, got shapes {q.shape}, {k.shape}, {v.shape}")
        require("Attention", (past_key is None) == (past_value is None), "past_key and past_value go together")
        require("Attention", nonpad_kv_seqlen is None or past_key is None,
                "nonpad_kv_seqlen cannot be combined with past_key/past_value")
        compute = np.float64 if q.dtype == np.float64 else np.float32
        if rank == 3:
            q, k, v = (_split_heads(x, heads, what) for x, heads, what in
                       ((q, q_num_heads, "Q"), (k, kv_num_heads, "K"), (v, kv_num_heads, "V")))
        if past_key is not None:
            k = np.concatenate([past_key, k], axis=2)
            v = np.concatenate([past_value, v], axis=2)
        batch, heads, q_len, size = q.shape
        kv_heads, kv_len = k.shape[1], k.shape[2]
        if k.shape[0] != batch or v.shape[:3] != k.shape[:3] or k.shape[3] != size or heads % max(kv_heads, 1):
            raise ShapeError(f"Attention: Q {q.shape}, K {k.shape} and V {v.shape} do not fit (batch, heads that "
                             "divide the query heads, sequence lengths, head size)")
        # Fresh memory, never an input's (a concatenation with the past cache already is).
        present_key, present_value = (k, v) if past_key is not None else (np.array(k), np.array(v))
        factor = math.sqrt(1.0 / math.sqrt(size) if scale is None else scale)
        groups = heads // kv_heads
        qc = q.astype(compute) * compute(factor)
        kc = np.repeat(k.astype(compute), groups, axis=1) * compute(factor)
        scores = qc @ kc.swapaxes(-1, -2)
        raw = scores
        if softcap > 0:
            scores = softcap * np.tanh(scores / softcap)
        bias = np.zeros((q_len, kv_len), compute)
        if attn_mask is not None:
            mask = attn_mask
            if mask.shape[-1] < kv_len:
                pad = [(0, 0)] * (mask.ndim - 1) + [(0, kv_len - mask.shape[-1])]
                mask = np.pad(mask, pad, constant_values=False if mask.dtype == np.bool_ else -np.inf)
            bias = bias + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(compute))
        if nonpad_kv_seqlen is not None:
            require("Attention", nonpad_kv_seqlen.shape == (batch,),
                    f"nonpad_kv_seqlen must have shape ({batch},), got {nonpad_kv_seqlen.shape}")
            offset = nonpad_kv_seqlen - q_len
        else:
            offset = past_key.shape[2] if past_key is not None else 0
        if is_causal or left_window_size >= 0 or right_window_size >= 0:
            bias = bias + _frontier_bias(q_len, kv_len, offset, is_causal, left_window_size, right_window_size)
        if nonpad_kv_seqlen is not None:
            padding = np.where(np.arange(kv_len) < nonpad_kv_seqlen[:, None], 0.0, -np.inf)
            bias = bias + padding[:, None, None, :]
        try:
            logits = scores + bias.astype(compute)
        except ValueError:
            raise ShapeError(f"Attention: attn_mask {attn_mask.shape} does not broadcast to the scores "
                             f"{scores.shape}") from None
        soft = logits.astype(softmax_precision) if softmax_precision is not None else logits
        top = soft.max(axis=-1, keepdims=True)
        masked_row = np.isneginf(np.broadcast_to(bias, logits.shape).max(axis=-1, keepdims=True))
        e = np.exp(soft - np.where(np.isneginf(top), 0, top))
        total = e.sum(axis=-1, keepdims=True)
        probs = np.where(masked_row, 0, e / np.where(total == 0, 1, total)).astype(compute)
        y = probs @ np.repeat(v.astype(compute), groups, axis=1)
        if rank == 3:
            y = y.transpose(0, 2, 1, 3).reshape(batch, q_len, -1)
        stages = {0: raw, 1: scores, 2: logits, 3: probs}
        return (y.astype(q.dtype), present_key, present_value,
                np.ascontiguousarray(stages[qk_matmul_output_mode]).astype(q.dtype))

    return kernel


not_differentiable("Attention")
