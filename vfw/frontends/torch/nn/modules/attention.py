"""MultiheadAttention (and NonDynamicallyQuantizableLinear, the class of its output projection)."""

from vfw.frontends.torch import _creation
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.functional import _attention as F
from vfw.frontends.torch.nn.modules.linear import Linear
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear (torch names MultiheadAttention's output projection so, to keep quantization tools off it)."""


class MultiheadAttention(Module):
    """Multi-head attention: ``concat(head_1, ..., head_h) W_o`` with ``head_i = softmax(Q_i K_i^T / sqrt(d)) V_i``.

    Parameters
    ----------
    embed_dim : int
        Model dimension E (split across heads).
    num_heads : int
        Number of heads (must divide ``embed_dim``).
    dropout : float
        Dropout probability on the attention weights (training only).
    bias : bool
        Input and output projection biases.
    add_bias_kv : bool
        Learn a bias key and value appended to the keys and values (``bias_k``, ``bias_v`` ``(1, 1, E)``).
    add_zero_attn : bool
        Append a zero key and value.
    kdim, vdim : int, optional
        Key and value feature sizes (default ``embed_dim``); when they differ, the projections are separate
        parameters ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` instead of ``in_proj_weight``.
    batch_first : bool
        Inputs and output are ``(N, L, E)`` instead of ``(L, N, E)``.
    device, dtype : optional

    Attributes
    ----------
    in_proj_weight : Parameter or None
        ``(3E, E)``, xavier-uniform.
    in_proj_bias : Parameter or None
        ``(3E,)``, zeros.
    out_proj : NonDynamicallyQuantizableLinear
        ``E -> E``; its bias starts at zero.
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_creation.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_creation.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_creation.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_creation.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_creation.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_creation.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_creation.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's initialization (after ``out_proj`` drew its own): xavier-uniform projections, zero biases,
        xavier-normal ``bias_k`` / ``bias_v``."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """Attend ``query`` to ``key`` / ``value``.

        Parameters
        ----------
        query : Tensor
            ``(L, N, E)`` (``(N, L, E)`` batch first, ``(L, E)`` unbatched).
        key, value : Tensor
            ``(S, N, kdim)`` and ``(S, N, vdim)`` (same layouts).
        key_padding_mask : Tensor, optional
            ``(N, S)``: True (or -inf) marks keys to ignore.
        need_weights : bool
            Also return the attention weights.
        attn_mask : Tensor, optional
            ``(L, S)`` or ``(N * num_heads, L, S)``, bool (True = not allowed) or float (added).
        average_attn_weights : bool
            Average the returned weights over heads.
        is_causal : bool
            Hint that ``attn_mask`` is the causal mask.

        Returns
        -------
        (Tensor, Tensor or None)
            The output shaped like ``query`` and the weights ``(N, L, S)`` (or ``(N, num_heads, L, S)``).
        """
        batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(key_padding_mask, "key_padding_mask", F._none_or_dtype(attn_mask),
                                             "attn_mask", query.dtype)
        attn_mask = F._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One ``(N, num_heads, L, L)`` float mask from ``attn_mask`` and ``key_padding_mask``, and its type
        (1: key padding only, 2: attention mask); what torch's fused path consumes."""
        mask_type = merged = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.reshape(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.reshape(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.reshape(batch_size, 1, 1, seq_len).expand(-1, self.num_heads,
                                                                                             -1, -1)
        return merged, mask_type
