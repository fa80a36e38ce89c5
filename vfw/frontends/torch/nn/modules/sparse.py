"""Embedding and EmbeddingBag: learned lookup tables."""

from vfw.core import autograd
from vfw.frontends.torch import _creation
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.functional import _sparse as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


def _padding_index(padding_idx, num_embeddings, name):
    """``padding_idx`` counted from the start (negatives from the end); AssertionError outside the table."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return padding_idx + num_embeddings if padding_idx < 0 else padding_idx


class _Table(Module):
    """The weight table shared by Embedding and EmbeddingBag: created and drawn from N(0, 1) (padding row
    zeroed), or taken from ``_weight``."""

    def _make_weight(self, _weight, _freeze, device, dtype):
        if _weight is None:
            self.weight = Parameter(_creation.empty((self.num_embeddings, self.embedding_dim), device=device,
                                                    dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
            return
        if list(_weight.shape) != [self.num_embeddings, self.embedding_dim]:
            raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
        self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        """Draw the weight from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with autograd.no_grad():
                self.weight[self.padding_idx].fill_(0)

    @classmethod
    def _pretrained(cls, embeddings, **kwargs):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, **kwargs)


class Embedding(_Table):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``.

    Parameters
    ----------
    num_embeddings, embedding_dim : int
    padding_idx : int, optional
        Row initialized to zeros that gets no gradient (negative: counted from the end).
    max_norm : float, optional
        Looked-up rows with a larger ``norm_type``-norm are rescaled in the weight itself.
    norm_type : float
    scale_grad_by_freq : bool
        Divide gradients by the frequency of each index in the batch.
    sparse : bool
        Make the weight's gradient a sparse COO tensor (one entry per looked-up index), as torch does.
    device, dtype : optional

    Shape: input ``(*)`` int64/int32 indices, output ``(*, embedding_dim)``.

    Attributes
    ----------
    weight : Parameter
        ``(num_embeddings, embedding_dim)`` from N(0, 1).
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "Padding_idx")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self._make_weight(_weight, _freeze, device, dtype)
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (2-D; frozen unless ``freeze=False``)."""
        return cls._pretrained(embeddings, _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                               norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(_Table):
    """Sums, means or maxima of bags of embedding vectors (without materializing the bags).

    Parameters
    ----------
    num_embeddings, embedding_dim : int
    max_norm, norm_type, scale_grad_by_freq, sparse
        As :class:`Embedding`.
    mode : str
        ``'sum'``, ``'mean'`` or ``'max'``.
    include_last_offset : bool
        ``offsets`` ends with the end of the last bag.
    padding_idx : int, optional
        Entries with this index are left out of their bag (row initialized to zeros).
    device, dtype : optional

    Shape: input ``(B, L)``, or 1-D with ``offsets`` ``(B,)`` (``B + 1`` with ``include_last_offset``);
    ``per_sample_weights`` shaped like the input; output ``(B, embedding_dim)``.

    Attributes
    ----------
    weight : Parameter
        ``(num_embeddings, embedding_dim)`` from N(0, 1).
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "padding_idx")
        self._make_weight(_weight, False, device, dtype)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings!r}, {self.embedding_dim!r}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx!r}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight is ``embeddings`` (2-D; frozen unless ``freeze=False``)."""
        bag = cls._pretrained(embeddings, max_norm=max_norm, norm_type=norm_type,
                              scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                              include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
