"""scaled_dot_product_attention and multi_head_attention_forward (and the mask helpers torch.nn shares).

Attention is composed of engine ops (MatMul, Mul, Add, Softmax, Where), so it is differentiable with
respect to queries, keys, values and float masks.  As torch's CPU kernels do, ``scaled_dot_product_attention``
gives zeros (and zero gradients) for a query whose keys are all masked out, while the explicit path of
``multi_head_attention_forward`` that returns the weights gives NaN there, as torch's does.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _joining, _linalg
from vfw.frontends.torch._dispatch import call, cast, op, wrap
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.backends.cuda import check_sdp_backend, sdp_flags
from vfw.frontends.torch.nn.functional import _activation_softmax, _dropout, _linear, _vision

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "bool": "bool"}


def _c_type(t):
    return _C_TYPE_NAMES.get(str(t.array.dtype), str(t.array.dtype))


def _attention_weights(q, k, scale, bias=None, safe=True):
    """``softmax(q k^T * scale + bias)`` over the keys.

    ``bias`` is a float tensor or a constant array (broadcast to the scores).  ``safe``: a query whose scores
    are all -inf gets zero weights (and zero gradients) instead of NaN.
    """
    scores = _linalg.matmul(q, k.transpose(-2, -1))
    scores = call(op("Mul"), scores, np.asarray(scale, scores.array.dtype))
    if bias is not None:
        scores = call(op("Add"), scores, bias)
    if safe:
        dead = np.all(np.isneginf(scores.array), axis=-1, keepdims=True)
        if dead.any():
            zero = np.zeros((), scores.array.dtype)
            scores = call(op("Where"), dead, zero, scores)  # finite stand-in: no NaN in softmax's gradient
            return call(op("Where"), dead, zero, _activation_softmax.softmax(scores, -1))
    return _activation_softmax.softmax(scores, -1)


def _causal_bias(query, key):
    """0 where a query may see a key (key index <= query index), -inf elsewhere: a constant, or, while ONNX export
    traces, ops on the inputs' shapes (so a dynamic sequence axis stays dynamic in the exported graph)."""
    from vfw.frontends.torch.onnx import is_in_onnx_export

    dtype = query.array.dtype
    L, S = query.shape[-2], key.shape[-2]
    if not is_in_onnx_export():
        return np.where(np.tri(L, S, dtype=bool), 0, -np.inf).astype(dtype)
    size = call(op("Concat", axis=0), call(op("Shape", start=-2, end=-1), query),
                call(op("Shape", start=-2, end=-1), key))
    lower = call(op("Trilu", upper=0), call(op("Expand"), np.ones((), dtype), size))
    return call(op("Log"), lower)  # log 1 = 0, log 0 = -inf


def _bool_mask_bias(mask, dtype, allowed):
    """``mask`` (bool) as a float bias: 0 where it is ``allowed``, -inf elsewhere (an op on the mask, so a traced
    export keeps it an input's function)."""
    zero, minus_inf = np.zeros((), dtype), np.full((), -np.inf, dtype)
    return call(op("Where"), mask, *((zero, minus_inf) if allowed else (minus_inf, zero)))


def _mask_bias(mask, dtype, name="attn_mask", query=None):
    """A float bias for scores: a float mask as is (float32 or ``dtype``, cast to ``dtype``), a bool mask as 0 where
    True and -inf elsewhere."""
    if mask.array.dtype == np.bool_:
        return _bool_mask_bias(mask, dtype, allowed=True)
    if mask.array.dtype != dtype and mask.array.dtype != np.float32:
        raise RuntimeError(f"Expected {name} dtype to be bool or float or to match query dtype, but got "
                           f"{name}.dtype: {_c_type(mask)} and  query.dtype: {_c_type(query)} instead.")
    return cast(mask, dtype)


def _two_byte_attention(query, key, value, scale, bias):
    """Attention of float16 / bfloat16 tensors as torch's CPU kernel computes it: scores, their exponentials and
    the exponentials' sum in float32, the exponentials rounded to the input dtype before they weight the values,
    the float32 sum dividing the result, rounded once more at the end.  A query whose keys are all masked out
    gives zeros."""
    half = query.array.dtype
    q, k, v = (cast(t, np.float32) for t in (query, key, value))
    scores = call(op("Mul"), _linalg.matmul(q, k.transpose(-2, -1)), np.float32(scale))
    if bias is not None:
        scores = call(op("Add"), scores, bias.astype(np.float32) if isinstance(bias, np.ndarray)
                      else cast(bias, np.float32))
    peak = np.max(scores.array, axis=-1, keepdims=True)  # a constant shift: softmax does not depend on it
    dead = np.isneginf(peak)
    exps = call(op("Exp"), call(op("Sub"), scores, np.where(dead, np.float32(0), peak)))
    total = call(op("ReduceSum", keepdims=1), exps, np.array([-1], np.int64))
    total = call(op("Where"), dead, np.float32(1), total)  # all-masked queries: 0 / 1
    # the rounding enters as a constant: gradients stay those of the float32 formula (exactly zero where the
    # result does not depend on an input), not rounded by a cast's backward
    rounding = exps.array.astype(half).astype(np.float32) - exps.array
    weighted = _linalg.matmul(call(op("Add"), exps, rounding), v)
    return cast(call(op("Div"), weighted, total), half)


def _flash_applies(query, key, value, attn_mask=None, dropout_p=0.0, *_, **__):
    """Whether torch's CPU flash kernel runs this call (else its math fallback does): 4-d inputs with one last
    dimension, each laid out with unit stride along it, no dropout, and a 2-d or 4-d mask that broadcasts to the
    scores.  The kernel also takes a mask together with ``is_causal``, which the fallback refuses."""
    if not sdp_flags["flash"] or not all(hasattr(t, "array") for t in (query, key, value)):
        return False
    if (query.dim(), key.dim(), value.dim()) != (4, 4, 4) or not dropout_p <= 0:
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    if any(t.shape[-1] > 1 and t.stride(-1) != 1 for t in (query, key, value)):
        return False
    if attn_mask is None or not hasattr(attn_mask, "array"):
        return True
    if attn_mask.dim() not in (2, 4):
        return False
    wanted = query.shape[:2] + (query.shape[-2], key.shape[-2]) if attn_mask.dim() == 4 else \
        (query.shape[-2], key.shape[-2])
    return all(m in (1, n) for m, n in zip(attn_mask.shape, wanted))


def _attention_name(*args, **kwargs):
    """torch's node for scaled_dot_product_attention: its CPU flash kernel's, where that runs."""
    names = ("query", "key", "value", "attn_mask", "dropout_p")
    bound = dict(zip(names, args), **{k: v for k, v in kwargs.items() if k in names})
    return "ScaledDotProductFlashAttentionForCpuBackward0" if _flash_applies(**bound) else None


@names_grad_fn(_attention_name)
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(Q K^T * scale + mask) V`` with optional dropout on the weights.

    Parameters
    ----------
    query : Tensor
        ``(..., L, E)``.
    key : Tensor
        ``(..., S, E)``.
    value : Tensor
        ``(..., S, Ev)``.
    attn_mask : Tensor, optional
        Broadcastable to ``(..., L, S)``: bool (True takes part) or float (added to the scores).
    dropout_p : float
        Dropout probability on the attention weights (applied whenever positive, as torch does).
    is_causal : bool
        Query ``i`` attends to keys ``j <= i``; with an ``attn_mask`` too only where torch's CPU flash kernel
        runs (see ``_flash_applies``), which applies both.
    scale : float, optional
        Defaults to ``1 / sqrt(E)``.
    enable_gqa : bool
        Grouped-query attention: keys and values with fewer heads (dim -3) are shared by groups of query heads.

    Returns
    -------
    Tensor
        ``(..., L, Ev)``.
    """
    if hasattr(attn_mask, "_materialize"):  # a torch.nn.attention.bias.CausalBias
        attn_mask = attn_mask._materialize()
    for name, t, pos in (("query", query, 1), ("key", key, 2), ("value", value, 3)):
        tensor_arg(t, "scaled_dot_product_attention", name, pos)
    check_sdp_backend(query, key, value, dropout_p)  # torch.nn.attention.sdpa_kernel may rule out CPU kernels
    q, k, v = query.array, key.array, value.array
    if not q.dtype == k.dtype == v.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_c_type(query)} key.dtype: {_c_type(key)} and value.dtype: {_c_type(value)} instead.")
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead.")
    if is_causal and attn_mask is not None and not _flash_applies(query, key, value, attn_mask, dropout_p):
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    # torch's CPU flash kernel takes 4-d 2-byte inputs without dropout (see _two_byte_attention); its other
    # kernels compute 2-byte attention in float32 (masks included) and round the output once
    two_byte = q.dtype.itemsize == 2 and q.ndim == k.ndim == v.ndim == 4 and not dropout_p > 0
    if q.dtype.itemsize == 2 and not two_byte:
        float_mask = attn_mask
        if attn_mask is not None and attn_mask.array.dtype != np.bool_:
            float_mask = cast(_mask_bias(tensor_arg(attn_mask, "scaled_dot_product_attention", "attn_mask", 4),
                                         q.dtype, query=query), np.float32)
        y = scaled_dot_product_attention(*(cast(t, np.float32) for t in (query, key, value)), float_mask,
                                         dropout_p, is_causal, scale, enable_gqa)
        return cast(y, q.dtype)
    if enable_gqa and q.ndim >= 3 and k.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        groups, rest = divmod(q.shape[-3], k.shape[-3])
        if rest or k.shape[-3] != v.shape[-3]:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        shared = wrap(np.repeat(np.arange(k.shape[-3]), groups))
        key, value = (t.index_select(-3, shared) for t in (key, value))
    bias = None
    if attn_mask is not None:
        mask = tensor_arg(attn_mask, "scaled_dot_product_attention", "attn_mask", 4)
        bias = _mask_bias(mask, q.dtype, query=query)
        if two_byte and mask.array.dtype == np.float32:
            bias = mask  # torch's 2-byte kernel adds a float32 mask to float32 scores unrounded
    if is_causal:
        causal = _causal_bias(query, key)
        bias = causal if bias is None else call(op("Add"), bias, causal.astype(bias.array.dtype)
                                                if isinstance(causal, np.ndarray) else cast(causal, bias.array.dtype))
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    if two_byte:
        return _two_byte_attention(query, key, value, scale, bias)
    weights = _attention_weights(query, key, scale, bias)
    if dropout_p > 0:
        weights = _dropout.dropout(weights, dropout_p, True)
    return _linalg.matmul(weights, value)


# -- MultiheadAttention ---------------------------------------------------------------------------


def _none_or_dtype(input):
    if input is None:
        return None
    if hasattr(input, "array"):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = masked out) as a float mask of ``target_type`` (-inf where True); float masks as is."""
    if mask is None:
        return None
    is_bool = mask.array.dtype == np.bool_
    if not is_bool and mask.array.dtype not in dt.FLOATS:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn_for_user(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.")
    if is_bool:
        return _bool_mask_bias(mask, target_type.np, allowed=False)
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the call is batched (3-D query), with torch's AssertionErrors for inconsistent ranks."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    batched = query.dim() == 3
    rank, label = (3, "batched (3-D)") if batched else (2, "unbatched (2-D)")
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(f"For {label} `query`, expected `key` and `value` to be {rank}-D but found {key.dim()}-D "
                             f"and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(f"For {label} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
                             f"found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {label} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
    return batched


def _in_projection(query, key, value, weights, biases):
    """q, k, v projections: one product for self-attention with a packed weight, else one per input."""
    if len(weights) == 1 and query is key is value:
        return _split_last(_linear.linear(query, weights[0], biases), 3)
    if len(weights) == 1:
        weights = _split_rows(weights[0], 3)
    if biases is not None:
        biases = _split_rows(biases, 3)
    if len(weights) == 3:
        E = query.shape[-1]
        for name, w, x in (("query", weights[0], query), ("key", weights[1], key), ("value", weights[2], value)):
            if tuple(w.shape) != (E, x.shape[-1]):
                raise AssertionError(f"expecting {name} weights shape of {(E, x.shape[-1])}, but got {w.shape}")
    return [_linear.linear(x, w, None if biases is None else b)
            for x, w, b in zip((query, key, value), weights, biases or (None,) * 3)]


def _split_rows(t, n):
    return list(call(op("Split", axis=0, num_outputs=n), t))


def _split_last(t, n):
    return list(call(op("Split", axis=-1, num_outputs=n), t))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention of ``(L, N, E)`` queries over ``(S, N, E_k)`` keys and ``(S, N, E_v)`` values.

    Parameters are those of :class:`torch.nn.MultiheadAttention` (its weights passed explicitly).  Masks:
    ``key_padding_mask`` ``(N, S)`` and ``attn_mask`` ``(L, S)`` or ``(N * num_heads, L, S)``, bool (True =
    masked out) or float (added to the scores).  ``static_k`` / ``static_v`` ``(N * num_heads, S, E / num_heads)``
    replace the projected keys / values.

    Returns
    -------
    (Tensor, Tensor or None)
        The output ``(L, N, E)`` (``(L, E)`` unbatched) and, with ``need_weights``, the attention weights
        ``(N, L, S)`` averaged over heads, or ``(N, num_heads, L, S)``.
    """
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal mask is applied by scaled_dot_product_attention itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        q, k, v = _in_projection(query, key, value, [q_proj_weight, k_proj_weight, v_proj_weight], in_proj_bias)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection(query, key, value, [in_proj_weight], in_proj_bias)
    src_len = key.shape[0]
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _joining.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _joining.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask, key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # (L, N, E) -> (N * heads, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "static_k", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "static_v", bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = _creation.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k = _joining.cat([k, zeros], dim=1)
        v = _joining.cat([v, zeros.to(v.dtype)], dim=1)
        attn_mask, key_padding_mask = _pad_key_axis(attn_mask, key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        weights = _attention_weights(q, k, math.sqrt(1.0 / head_dim), attn_mask, safe=False)
        if dropout_p > 0.0:
            weights = _dropout.dropout(weights, dropout_p)
        out = _linalg.matmul(weights, v)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        if attn_mask is not None:
            if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
                attn_mask = attn_mask.unsqueeze(0)
            else:
                attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
        q, k, v = (t.reshape(bsz, num_heads, -1, head_dim) for t in (q, k, v))
        out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
        out = out.reshape(bsz * num_heads, tgt_len, head_dim)
        weights = None
    out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _linear.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights


def _pad_key_axis(attn_mask, key_padding_mask):
    """Both masks with one more key (not masked), for an appended bias or zero key."""
    return tuple(None if m is None else _vision.pad(m, (0, 1)) for m in (attn_mask, key_padding_mask))


def _heads(t, static, name, batch_heads, head_dim):
    """Keys or values ``(S, N, E)`` as ``(N * heads, S, head_dim)``, or the checked static replacement."""
    if static is None:
        return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
