"""Transformer, TransformerEncoder, TransformerDecoder and their layers.

The layers are MultiheadAttention, Linear, LayerNorm and Dropout modules, in torch's order (so the same
seed gives torch's initial weights) and with torch's post-norm / pre-norm residual blocks.  In inference
(eval mode, nothing requiring grad) an encoder given a left-aligned ``src_key_padding_mask`` returns
zeros at the padded positions, as torch's nested-tensor fast path does.
"""

import copy

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _layout
from vfw.frontends.torch._dispatch import wrap
from vfw.frontends.torch.nn.functional import _activation
from vfw.frontends.torch.nn.functional import _attention as F
from vfw.frontends.torch.nn.init import xavier_uniform_
from vfw.frontends.torch.nn.modules.activation import GELU, ReLU
from vfw.frontends.torch.nn.modules.attention import MultiheadAttention
from vfw.frontends.torch.nn.modules.container import ModuleList
from vfw.frontends.torch.nn.modules.dropout import Dropout
from vfw.frontends.torch.nn.modules.linear import Linear
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.modules.normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    return _layout.triu(_creation.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """``is_causal`` if given; otherwise whether ``mask`` equals the causal mask of ``size`` (None: no mask)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.shape[-2]
    causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool(np.array_equal(mask.array, causal.array))


def _get_activation_fn(activation):
    if activation == "relu":
        return _activation.relu
    if activation == "gelu":
        return _activation.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class Transformer(Module):
    """Encoder-decoder transformer ("Attention Is All You Need").

    Parameters
    ----------
    d_model : int
        Feature size of inputs and outputs.
    nhead : int
        Attention heads.
    num_encoder_layers, num_decoder_layers : int
    dim_feedforward : int
        Hidden size of the feed-forward blocks.
    dropout : float
    activation : str or callable
        ``"relu"``, ``"gelu"`` or a function / module applied in the feed-forward blocks.
    custom_encoder, custom_decoder : Module, optional
        Used instead of the stacks built here.
    layer_norm_eps : float
    batch_first : bool
        Inputs and outputs are ``(N, S, E)`` instead of ``(S, N, E)``.
    norm_first : bool
        Pre-norm blocks (LayerNorm before attention / feed-forward) instead of post-norm.
    bias : bool
        Biases in the linear layers and the layer norms.
    device, dtype : optional
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=_activation.relu, custom_encoder=None, custom_decoder=None,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src`` ``(S, N, E)`` and decode ``tgt`` ``(T, N, E)`` against it; returns ``(T, N, E)``.

        Masks: ``src_mask`` ``(S, S)``, ``tgt_mask`` ``(T, T)``, ``memory_mask`` ``(T, S)`` (or per head
        ``(N * nhead, ., .)``); key padding masks ``(N, S)`` / ``(N, T)`` / ``(N, S)``.  The ``*_is_causal``
        flags are hints that the corresponding mask is causal.
        """
        batched = src.dim() == 3
        if batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The ``(sz, sz)`` causal mask: 0 on and below the diagonal, -inf above."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of ``encoder_layer``, then ``norm`` (if given).

    Parameters
    ----------
    encoder_layer : TransformerEncoderLayer
    num_layers : int
    norm : Module, optional
    enable_nested_tensor : bool
        Allow torch's inference fast path (padded positions of the output are zeros there); torch warns when
        the layer rules it out.
    mask_check : bool
        Only take that path for left-aligned key padding masks.
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_fast_path(encoder_layer)
        if enable_nested_tensor and why_not:
            warn_for_user(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}")
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """``src`` ``(S, N, E)`` (or batch first, or ``(S, E)``) through every layer; same shape out."""
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(mask), "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        valid = self._nested_valid(src, mask, src_key_padding_mask)
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if valid is not None:  # torch's nested tensors have nothing at padded positions: (+0.0) zeros come back
            output = output.masked_fill(wrap(~valid[..., None]), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_valid(self, src, mask, key_padding_mask):
        """The ``(N, S)`` valid-position array where torch would take its nested-tensor path, else None."""
        first = self.layers[0]
        if not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3 \
                or key_padding_mask is None or mask is not None:
            return None
        valid = key_padding_mask.array == 0
        if getattr(self, "mask_check", True) and not np.all(valid[:, :-1] >= valid[:, 1:]):
            return None  # not left-aligned
        attn, norm1, norm2 = first.self_attn, first.norm1, first.norm2
        args = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, norm1.weight,
                norm1.bias, norm2.weight, norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight,
                first.linear2.bias)
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in args):
            return None
        return valid


def _why_no_fast_path(layer):
    """Why torch's encoder cannot use nested tensors with ``layer`` ("" when it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of ``decoder_layer``, then ``norm`` (if given)."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """``tgt`` ``(T, N, E)`` through every layer, each attending to ``memory`` ``(S, N, E)``."""
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                               _get_seq_len(tgt, self.layers[0].self_attn.batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                           memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class _LayerBase(Module):
    """What encoder and decoder layers share: the feed-forward block and the activation."""

    def _set_activation(self, activation):
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def _ff_block(self, x, dropout_out):
        return dropout_out(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def _attend(self, attention, x, memory, attn_mask, key_padding_mask, is_causal, dropout_out):
        """Attention of ``x`` to ``memory`` (to itself for None), then ``dropout_out``."""
        kv = x if memory is None else memory
        out = attention(x, kv, kv, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                        need_weights=False, is_causal=is_causal)[0]
        return dropout_out(out)


class TransformerEncoderLayer(_LayerBase):
    """Self-attention and a feed-forward block, each with a residual connection and LayerNorm.

    Parameters
    ----------
    d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias,
    device, dtype
        As for :class:`Transformer`.
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_activation.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        fn = _get_activation_fn(activation) if isinstance(activation, str) else activation
        if fn is _activation.relu or isinstance(fn, ReLU):
            self.activation_relu_or_gelu = 1
        elif fn is _activation.gelu or isinstance(fn, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self._set_activation(fn)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """``src`` ``(S, N, E)`` (or batch first, or ``(S, E)``) -> same shape."""
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, src_mask, src_key_padding_mask, is_causal,
                                 self.dropout1)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._attend(self.self_attn, x, None, src_mask, src_key_padding_mask, is_causal,
                                            self.dropout1))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_LayerBase):
    """Self-attention, attention to the encoder's memory and a feed-forward block (residuals, LayerNorms).

    Parameters as :class:`TransformerEncoderLayer`.
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=_activation.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self._set_activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """``tgt`` ``(T, N, E)`` attending to itself and to ``memory`` ``(S, N, E)`` -> ``(T, N, E)``."""
        x = tgt
        if self.norm_first:
            x = x + self._attend(self.self_attn, self.norm1(x), None, tgt_mask, tgt_key_padding_mask, tgt_is_causal,
                                 self.dropout1)
            x = x + self._attend(self.multihead_attn, self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                 memory_is_causal, self.dropout2)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._attend(self.self_attn, x, None, tgt_mask, tgt_key_padding_mask, tgt_is_causal,
                                            self.dropout1))
            x = self.norm2(x + self._attend(self.multihead_attn, x, memory, memory_mask, memory_key_padding_mask,
                                            memory_is_causal, self.dropout2))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x
