"""torch.* entry points of recurrent cells and normalizations that return their statistics:
``lstm_cell``, ``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell``, ``native_layer_norm``,
``native_batch_norm``, ``embedding_bag`` (torch's four outputs)."""

import numpy as np

from vfw.frontends.torch import _creation, _dispatch
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["embedding_bag", "gru_cell", "lstm_cell", "native_batch_norm", "native_layer_norm", "rnn_relu_cell",
           "rnn_tanh_cell"]


def _layers():
    from vfw.frontends.torch.nn.modules import _rnn_layers  # nn imports this package first
    return _rnn_layers


def _check_cell(name, input, hx, w_ih, w_hh, gates):
    for value, arg in ((input, "input"), (w_ih, "w_ih"), (w_hh, "w_hh")):
        tensor_arg(value, name, arg)
    hidden = w_hh.shape[1]
    if input.dim() != 2 or input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"{name}: input has inconsistent input_size: got {input.shape[-1]} expected "
                           f"{w_ih.shape[1]}")
    for h in hx:
        if tuple(h.shape) != (input.shape[0], hidden):
            raise RuntimeError(f"{name}: hidden state has shape {list(h.shape)}, expected "
                               f"[{input.shape[0]}, {hidden}]")
    if w_ih.shape[0] != gates * hidden or w_hh.shape[0] != gates * hidden:
        raise RuntimeError(f"{name}: expected weights with {gates * hidden} rows ({gates} gates of hidden size "
                           f"{hidden}), got {w_ih.shape[0]} and {w_hh.shape[0]}")


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``(h', c')`` from ``input`` ``(B, I)`` and ``hx = (h, c)`` ``(B, H)`` each."""
    _check_cell("lstm_cell", input, hx, w_ih, w_hh, 4)
    return _layers().lstm_cell(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``h'`` from ``input`` ``(B, I)`` and ``hx`` ``(B, H)``."""
    _check_cell("gru_cell", input, (hx,), w_ih, w_hh, 3)
    return _layers().gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step ``tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)``."""
    _check_cell("rnn_tanh_cell", input, (hx,), w_ih, w_hh, 1)
    return _layers().rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ReLU."""
    _check_cell("rnn_relu_cell", input, (hx,), w_ih, w_hh, 1)
    return _layers().rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, relu=True)


def _inverse_std(centered_squares_mean, eps):
    return (centered_squares_mean + eps).rsqrt()


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(layer_norm(input), mean, rstd)``; the statistics keep the normalized dims as size 1."""
    from vfw.frontends.torch.nn.functional._normalization import layer_norm
    dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    output = layer_norm(input, list(normalized_shape), weight, bias, eps)
    mean = input.mean(dims, keepdim=True)
    rstd = _inverse_std((input - mean).square().mean(dims, keepdim=True), eps)
    return output, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``(batch_norm(input), save_mean, save_invstd)``: the batch's per-channel mean and ``1 / sqrt(var + eps)``
    (biased variance) when training, empty tensors otherwise; running statistics update as in ``batch_norm``."""
    from vfw.frontends.torch.nn.functional._normalization import batch_norm
    output = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        empty = _creation.empty(0, dtype=input.dtype)
        return output, empty, empty.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    with _no_grad():
        mean = input.mean(dims)
        shape = (1, -1) + (1,) * (input.dim() - 2)
        invstd = _inverse_std((input - mean.reshape(shape)).square().mean(dims), eps)
    return output, mean, invstd


def _no_grad():
    from vfw.frontends.torch.autograd.grad_mode import no_grad
    return no_grad()


_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``(output, offset2bag, bag_size, max_indices)`` of torch's CPU kernel (mode 0: sum, 1: mean, 2: max)."""
    from vfw.frontends.torch.nn.functional._sparse import embedding_bag as functional_embedding_bag
    if mode not in _MODES:
        raise RuntimeError(f"embedding_bag: unknown mode {mode}")
    output = functional_embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                                      mode=_MODES[mode], sparse=sparse, per_sample_weights=per_sample_weights,
                                      include_last_offset=include_last_offset, padding_idx=padding_idx)
    index = np.asarray(indices.array, np.int64).reshape(-1)
    starts = np.asarray(offsets.array, np.int64).reshape(-1)
    bags = output.shape[0]
    ends = np.append(starts[1:], index.size)[:bags]
    starts = starts[:bags]
    kept = np.ones(index.size, bool) if padding_idx is None else index != padding_idx % weight.shape[0]
    counts = np.add.reduceat(np.append(kept, 0).astype(np.int64), starts) if index.size else np.zeros(bags, np.int64)
    counts = np.where(ends > starts, counts[:bags], 0)
    bag_of = np.repeat(np.arange(bags), ends - starts)
    long = np.dtype(np.int64)
    offset2bag = np.zeros(index.size, long)
    offset2bag[:bag_of.size] = bag_of
    if mode == 0:  # sums keep no bag sizes; the bag of each entry only to skip padding
        return (output, _dispatch.wrap(offset2bag if padding_idx is not None else np.empty(0, long)),
                _dispatch.wrap(np.zeros(bags, long)), _dispatch.wrap(np.zeros(bags, long)))
    if mode == 1:
        return output, _dispatch.wrap(offset2bag), _dispatch.wrap(counts), _dispatch.wrap(counts.copy())
    values = np.asarray(weight.array)[index].astype(np.float64)
    values[~kept] = -np.inf  # padding entries never win
    nonempty = ends > starts
    best = np.zeros((bags, values.shape[1] if values.ndim == 2 else 0), long)
    if nonempty.any():
        firsts = starts[nonempty]
        peaks = np.maximum.reduceat(values, firsts, axis=0)
        positions = np.where(values == np.repeat(peaks, (ends - starts)[nonempty], axis=0),
                             np.arange(index.size)[:, None], index.size)
        best[nonempty] = index[np.minimum.reduceat(positions, firsts, axis=0)]  # first among equals
    return output, _dispatch.wrap(offset2bag), _dispatch.wrap(counts), _dispatch.wrap(best)
