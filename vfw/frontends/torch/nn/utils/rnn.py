"""torch.nn.utils.rnn: PackedSequence and the packing / padding of variable-length sequences.

A packed sequence stores the steps of a batch of sequences sorted by decreasing length, time step by
time step: ``data[offset[t] + b]`` is step ``t`` of sequence ``b`` for the ``batch_sizes[t]`` sequences
that are that long.  Packing and padding are one gather (``index_select``) each, with the positions
computed from the lengths in numpy, so both are differentiable.

A sequence :func:`pack_padded_sequence` makes also keeps its *padded form* (``_padded``): the padded batch as
given, in the original batch order, and the lengths as a tensor.  nn.RNN / LSTM / GRU run the engine's
recurrent op on that form (the lengths become its ``sequence_lens``) and give their output one too, and
:func:`pad_packed_sequence` reads it back with a mask: the lengths then stay values of the graph instead of
index plans computed in numpy, so a traced model (ONNX export) works for every lengths tensor.
"""

import collections
from collections.abc import Iterable

import numpy as np

from vfw.core.errors import TraceError
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor
from vfw.frontends.torch import _creation, _dtype, _joining
from vfw.frontends.torch._dispatch import call, cast, op, wrap

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceFields = collections.namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                                   "unsorted_indices"])


class PackedSequence(_PackedSequenceFields):
    """Steps of variable-length sequences packed time step by time step (made by :func:`pack_padded_sequence`).

    Attributes
    ----------
    data : Tensor
        ``(sum(lengths), *)``: step ``t`` of every sequence at least ``t + 1`` long, for each ``t``.
    batch_sizes : Tensor
        int64 ``(max_length,)``: how many sequences have a step ``t``.
    sorted_indices : Tensor or None
        The original batch position of each sorted sequence (None when the batch was already sorted).
    unsorted_indices : Tensor or None
        The inverse permutation (computed from ``sorted_indices`` when not given).
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # the (data, batch_sizes) pair of torch's internal constructor
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The sequence with ``data`` converted by ``Tensor.to`` (self when nothing changes)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        converted = type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)
        form = padded_form(self)
        if form is not None:  # converted alike, so that a model converting its packed input stays exportable
            converted = with_padded_form(converted, form._replace(padded=form.padded.to(*args, **kwargs)))
        return converted

    def cuda(self, *args, **kwargs):
        """Move to a CUDA device: raises as ``Tensor.cuda`` does (vfw computes on the CPU)."""
        return type(self)(self.data.cuda(*args, **kwargs), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to("cpu", *args, **kwargs)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def half(self):
        return self.to(dtype=_dtype.float16)

    def long(self):
        return self.to(dtype=_dtype.int64)

    def int(self):
        return self.to(dtype=_dtype.int32)

    def short(self):
        return self.to(dtype=_dtype.int16)

    def char(self):
        return self.to(dtype=_dtype.int8)

    def byte(self):
        return self.to(dtype=_dtype.uint8)

    @property
    def is_cuda(self):
        """bool: whether ``data`` is on a CUDA device (never, in vfw)."""
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


class PaddedForm(collections.namedtuple("PaddedForm", ["padded", "lengths", "batch_first"])):
    """The padded form of a PackedSequence: ``padded`` ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) in
    the original batch order, with any values past each sequence's length, and the int64 ``lengths`` ``(B,)``."""

    __slots__ = ()


def padded_form(sequence):
    """The PaddedForm of ``sequence`` (None when it has none: made from packed data directly)."""
    return sequence.__dict__.get("_padded") if isinstance(sequence, PackedSequence) else None


def with_padded_form(sequence, form):
    """``sequence`` carrying ``form`` (a PaddedForm consistent with its data)."""
    sequence.__dict__["_padded"] = form
    return sequence


def _exporting():
    from vfw.frontends.torch.onnx import is_in_onnx_export  # (the exporter imports the whole frontend)

    return is_in_onnx_export()


def _exporter_retracing():
    """Whether torch.onnx.export is tracing the model again on inputs of its own (other sizes or values than the
    caller's example inputs)."""
    from vfw.frontends.torch.onnx import _state

    return _state.active and _state.retracing


def refuse_traced_layout(batch_sizes, what):
    """Raise TraceError (an export error) when ``batch_sizes`` follow a lengths tensor of an exported graph:
    ``what`` would read the packed layout in numpy and freeze the example's into the graph."""
    if batch_sizes.__dict__.get("_follows_traced_lengths"):
        raise TraceError(
            f"{what} reads the packed layout (batch_sizes) of pack_padded_sequence() with lengths that are values "
            "of the graph, which an exported graph cannot follow; the lengths are exported as the "
            "sequence_lens of nn.RNN / LSTM / GRU given the PackedSequence itself and read back with "
            "pad_packed_sequence() (not a PackedSequence rebuilt from its data, nor dropout between layers in "
            "training mode)")


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None for None)."""
    if permutation is None:
        return None
    p = permutation.array
    inverse = np.empty_like(p)
    inverse[p] = np.arange(p.size, dtype=p.dtype)
    return wrap(inverse)


# -- index plans (numpy) -------------------------------------------------------------------


def _lengths_array(lengths):
    """``lengths`` (a list or a tensor) as a 1-D int64 numpy array, with torch's checks."""
    if isinstance(lengths, Tensor):
        a = lengths.array
        if a.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {a.ndim}D cpu tensor")
        return a.astype(np.int64)
    a = np.asarray(lengths)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iub"):
        raise TypeError(f"pack_padded_sequence(): lengths must be a 1-D list of ints or a tensor, got {lengths!r}")
    return a.astype(np.int64)


def _lengths_tensor(lengths):
    """``lengths`` as an int64 tensor: the given tensor's values in the graph (cast when needed), a list's as a
    constant."""
    if isinstance(lengths, Tensor):
        return cast(lengths, np.dtype(np.int64))
    return wrap(np.asarray(lengths, np.int64).reshape(-1))


def _from_padded_form(form, batch_first, padding_value, total_length):
    """:func:`pad_packed_sequence` of a sequence with a padded form: the positions past each length masked to
    ``padding_value``, the time axis cut (or padded) to ``total_length`` or the longest length."""
    x, lengths, form_batch_first = form
    if form_batch_first != batch_first:
        x = x.transpose(0, 1)
    axis = 1 if batch_first else 0
    steps = x.shape[axis]
    position = _creation.arange(steps).reshape((1, steps) if batch_first else (steps, 1))
    valid = call(op("Less"), position, lengths.reshape((-1, 1) if batch_first else (1, -1)))
    valid = valid.reshape(tuple(valid.shape) + (1,) * (x.dim() - 2))
    x = call(op("Where"), valid, x, np.asarray(padding_value, x.array.dtype))
    if total_length is None:  # the longest length, a value of the graph
        longest = call(op("ReduceMax", keepdims=1), lengths)
        x = call(op("Slice"), x, np.zeros(1, np.int64), longest, np.array([axis], np.int64))
    elif total_length < steps:
        x = x.narrow(axis, 0, total_length)
    elif total_length > steps:
        shape = list(x.shape)
        shape[axis] = total_length - steps
        x = _joining.cat([x, _creation.full(tuple(shape), padding_value, dtype=x.dtype)], axis)
    return x, call(op("Identity"), lengths)


def packed_positions(lengths, steps, batch_first, order=None):
    """Gather plan of packing: the flat positions in a padded ``(steps, B)`` (or ``(B, steps)``) batch, and
    ``batch_sizes``, for ``lengths`` sorted in decreasing order (those of the sequences at batch positions
    ``order``, when given: the sorting is folded into the plan)."""
    B = len(lengths)
    mask = np.arange(lengths[0] if B else 0)[:, None] < lengths[None, :]  # [max_length, B]
    t, b = np.nonzero(mask)  # time step by time step, then by (sorted) batch position
    if order is not None:
        b = order[b]
    return (b * steps + t if batch_first else t * B + b), mask.sum(axis=1)


def padded_positions(batch_sizes, total_length, batch_first):
    """Gather plan of padding: for each padded ``(total_length, B)`` (or ``(B, total_length)``) position,
    its row in ``data`` or ``N = sum(batch_sizes)`` (a padding row); and the lengths."""
    steps = len(batch_sizes)
    B = int(batch_sizes[0]) if steps else 0
    n = int(batch_sizes.sum())
    offsets = np.cumsum(batch_sizes) - batch_sizes
    index = np.full((total_length, B), n, np.int64)
    present = np.arange(B)[None, :] < batch_sizes[:, None]  # [steps, B]
    index[:steps][present] = (offsets[:, None] + np.arange(B)[None, :])[present]
    lengths = present.sum(axis=0)
    return (index.T if batch_first else index).reshape(-1), lengths


def pack_rows(padded, lengths, batch_first=False, order=None):
    """``(data, batch_sizes)`` of a padded batch whose ``lengths`` are sorted (no checks), or whose sequences
    at batch positions ``order`` have the sorted ``lengths``."""
    steps = padded.shape[1 if batch_first else 0]
    positions, batch_sizes = packed_positions(lengths, steps, batch_first, order)
    data = padded.flatten(0, 1).index_select(0, wrap(positions))
    return data, batch_sizes


def pad_rows(data, batch_sizes, total_length, batch_first=False, padding_value=0.0):
    """The padded batch ``(total_length, B, *)`` (or batch first) of packed ``data``, and the lengths."""
    index, lengths = padded_positions(batch_sizes, total_length, batch_first)
    if data.shape[0] < int(batch_sizes.sum()):
        raise RuntimeError(f"pad_packed_sequence(): data has {data.shape[0]} rows but batch_sizes sum to "
                           f"{int(batch_sizes.sum())}")
    rest = tuple(data.shape[1:])
    pad = _creation.full((1,) + rest, padding_value, dtype=data.dtype)
    rows = _joining.cat([data, pad]).index_select(0, wrap(index))
    B = int(batch_sizes[0]) if len(batch_sizes) else 0
    shape = (B, total_length) if batch_first else (total_length, B)
    return rows.reshape(shape + rest), lengths


# -- public functions ------------------------------------------------------------------------


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of variable-length sequences.

    Parameters
    ----------
    input : Tensor
        ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
    lengths : Tensor or list of int
        ``(B,)`` lengths, each in ``[1, T]``.
    batch_first : bool
    enforce_sorted : bool
        Require ``lengths`` in decreasing order; otherwise the batch is sorted and the permutation kept in
        ``sorted_indices``.

    Returns
    -------
    PackedSequence
    """
    raw_lengths, lengths = lengths, _lengths_array(lengths)
    if enforce_sorted and _exporter_retracing() and np.any(lengths[1:] > lengths[:-1]):
        # The caller's example lengths must be sorted, as torch.onnx.export requires; the exporter's own traces
        # move them around (other values, a larger batch), which the graph takes: it runs on the padded form,
        # which takes lengths in any order (as torch's exported graphs do).
        enforce_sorted = False
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable").astype(np.int64)
        lengths = lengths[order]
        sorted_indices = wrap(order)
        batch_dim = 0 if batch_first else 1
        if input.dim() > batch_dim and len(order) > input.shape[batch_dim]:  # torch gathers the sorted batch first
            raise IndexError("index out of range in self")
    if input.dim() < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch, steps = (input.shape[0], input.shape[1]) if batch_first else (input.shape[1], input.shape[0])
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:
        raise RuntimeError(f"pack_padded_sequence(): a length ({lengths[0]}) exceeds the padded length ({steps})")
    # one gather in either order: traces with the lengths in another order record the same operations
    data, batch_sizes = pack_rows(input, lengths, batch_first, None if sorted_indices is None else order)
    batch_sizes = wrap(batch_sizes.astype(np.int64))
    trace = current_trace()
    if isinstance(raw_lengths, Tensor) and trace is not None and _exporting() and trace.varies(raw_lengths):
        batch_sizes.__dict__["_follows_traced_lengths"] = True  # the packed layout is frozen in the graph
    packed = PackedSequence(data, batch_sizes, sorted_indices, None)
    return with_padded_form(packed, PaddedForm(input, _lengths_tensor(raw_lengths), batch_first))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo :func:`pack_padded_sequence`: the padded batch and the lengths, in the original batch order.

    Parameters
    ----------
    sequence : PackedSequence
    batch_first : bool
        Return ``(B, T, *)`` instead of ``(T, B, *)``.
    padding_value : float
        Value of the padded positions.
    total_length : int, optional
        Pad to this many steps (at least the longest sequence).

    Returns
    -------
    (Tensor, Tensor)
        The padded batch and the int64 lengths ``(B,)``.
    """
    steps = len(sequence.batch_sizes.array)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    form = padded_form(sequence)
    if form is not None:
        return _from_padded_form(form, batch_first, padding_value, total_length)
    refuse_traced_layout(sequence.batch_sizes, "pad_packed_sequence()")
    batch_sizes = sequence.batch_sizes.array
    padded, lengths = pad_rows(sequence.data, batch_sizes, steps, batch_first, padding_value)
    lengths = wrap(lengths.astype(np.int64))
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, unsorted), wrap(lengths.array[unsorted.array])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths into one padded batch.

    Parameters
    ----------
    sequences : iterable of Tensor
        Each ``(L_i, *)`` with the same trailing dims.
    batch_first : bool
        ``(B, T, *)`` instead of ``(T, B, *)``.
    padding_value : float
    padding_side : {"right", "left"}
        Where the padding goes.

    Returns
    -------
    Tensor
        In the first sequence's dtype; ``T = max(L_i)``.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if any(s.dim() == 0 for s in sequences):
        raise RuntimeError("pad_sequence(): every sequence needs at least one dimension (its length)")
    dtype = sequences[0].dtype
    sequences = [s if s.dtype == dtype else s.to(dtype) for s in sequences]
    lengths = np.array([s.shape[0] for s in sequences], np.int64)
    steps, B = int(lengths.max()), len(sequences)
    starts = np.cumsum(lengths) - lengths
    t = np.arange(steps)[:, None]
    offset = t if padding_side == "right" else t - (steps - lengths)[None, :]
    present = (offset >= 0) & (offset < lengths[None, :])  # [steps, B]
    index = np.where(present, starts[None, :] + offset, lengths.sum())
    rest = tuple(sequences[0].shape[1:])
    pad = _creation.full((1,) + rest, padding_value, dtype=dtype)
    rows = _joining.cat(sequences + [pad]).index_select(0, wrap((index.T if batch_first else index).reshape(-1)))
    return rows.reshape(((B, steps) if batch_first else (steps, B)) + rest)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch into a list of its sequences (copies), each ``(L_i, *)``.

    As in torch, a time-major ``padded_sequences`` is transposed in place to batch-major.
    """
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    counts = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    return [seq[:int(n)].clone() for seq, n in zip(padded_sequences, counts, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences ``(L_i, *)`` (sorted by decreasing length unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences ``(L_i, *)`` of a PackedSequence, in the original batch order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
