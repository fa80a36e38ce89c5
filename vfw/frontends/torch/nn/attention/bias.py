"""torch.nn.attention.bias: causal masks aligned to the upper-left or lower-right corner."""

import enum

import numpy as np

from vfw.frontends.torch import _dispatch

__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]


class CausalVariant(enum.IntEnum):
    """Where the causal diagonal starts: the upper-left corner or the lower-right one."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal mask of ``seq_len_q`` queries over ``seq_len_kv`` keys (bool, True where attention is allowed).

    Pass it as ``attn_mask`` of ``F.scaled_dot_product_attention`` (it converts with :meth:`_materialize`)."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        self.variant, self.seq_len_q, self.seq_len_kv = CausalVariant(variant), seq_len_q, seq_len_kv

    def _materialize(self, device=None):
        """The mask as a bool tensor of shape ``(seq_len_q, seq_len_kv)``."""
        offset = self.seq_len_kv - self.seq_len_q if self.variant is CausalVariant.LOWER_RIGHT else 0
        return _dispatch.wrap(np.tri(self.seq_len_q, self.seq_len_kv, offset, dtype=bool))

    def __repr__(self):
        return repr(self._materialize())


def causal_upper_left(*size):
    """A causal bias whose diagonal starts at the upper-left corner; ``size`` is ``(seq_len_q, seq_len_kv)``."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    return CausalBias(CausalVariant.UPPER_LEFT, *size)


def causal_lower_right(*size):
    """A causal bias whose diagonal ends at the lower-right corner; ``size`` is ``(seq_len_q, seq_len_kv)``."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    return CausalBias(CausalVariant.LOWER_RIGHT, *size)
