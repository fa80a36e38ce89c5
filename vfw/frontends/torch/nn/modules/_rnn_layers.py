"""The computation behind nn.RNN / LSTM / GRU and the cells, in engine ops.

A stacked recurrent module runs one engine RNN / GRU / LSTM op per layer, both directions in one call.
The engine ops follow ONNX, whose gate order differs from torch's (LSTM: ONNX i, o, f, c for torch's
i, f, g, o; GRU: ONNX z, r, h for torch's r, z, n, with ``linear_before_reset=1``), so each forward
splits torch's weights into gate blocks and concatenates them in ONNX's order: engine ops, so the
gradients flow back to torch's parameters.  The ops' gradients are one fused kernel each
(``vfw.core.ops.rnn_bptt``).

While a backward is recorded, LSTM and GRU layers run the engine's LSTMTrain / GRUTrain, which also
keep the gate activations their gradient reads (the ONNX ops would have them recomputed).

An LSTM with ``proj_size`` (no ONNX counterpart) steps through time with the cell's ops.
Variable lengths (packed sequences) are the ops' ``sequence_lens``: a step past a sequence's end
keeps its state and outputs zeros, as packing requires.
"""

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.frontends.torch import _creation
from vfw.frontends.torch._dispatch import call, op
from vfw.frontends.torch.nn.functional import _dropout, _linear
from vfw.frontends.torch.nn.utils.rnn import pack_rows, pad_rows

ENGINE_OPS = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
# the torch gate block that goes at each ONNX gate position
_ONNX_BLOCKS = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2)}


def _reshape(t, shape):
    return call(op("Reshape", allowzero=1), t, np.array(shape, np.int64))  # allowzero: a 0 is an empty dim


def _concat(parts, axis=0):
    return parts[0] if len(parts) == 1 else call(op("Concat", axis=axis), *parts)


def _split(t, n, axis=0):
    return [t] if n == 1 else list(call(op("Split", axis=axis, num_outputs=n), t))


def _onnx_blocks(t, mode):
    """The gate blocks of a torch weight ``(G*H, K)`` or bias ``(G*H,)`` in the engine op's order."""
    order = _ONNX_BLOCKS.get(mode)
    if order is None:
        return [t]
    blocks = _split(t, len(order))
    return [blocks[k] for k in order]


def onnx_weights(mode, directions):
    """``W (D, G*H, I)``, ``R (D, G*H, H)`` and ``B (D, 2*G*H)`` (or None) of one layer.

    ``directions`` holds ``(w_ih, w_hh, b_ih, b_hh)`` per direction (biases None without bias).
    """
    D = len(directions)
    gh, n_in = directions[0][0].shape
    hidden = directions[0][1].shape[1]
    w = _reshape(_concat([b for p in directions for b in _onnx_blocks(p[0], mode)]), (D, gh, n_in))
    r = _reshape(_concat([b for p in directions for b in _onnx_blocks(p[1], mode)]), (D, gh, hidden))
    if directions[0][2] is None:
        return w, r, None
    bias = _concat([b for p in directions for t in p[2:4] for b in _onnx_blocks(t, mode)])
    return w, r, _reshape(bias, (D, 2 * gh))


def _layer_output(y):
    """The engine's Y, ``(T, D, B, H)``, as torch's ``(T, B, D*H)``."""
    a, b, c, H = y.shape
    if b == 1:
        return _reshape(y, (a, c, H))
    return _reshape(call(op("Transpose", perm=(0, 2, 1, 3)), y), (a, c, b * H))


def _between_layers(x, layer, num_layers, dropout, training, lengths=None):
    """Dropout on a layer's output, except the last layer's (training only).

    For packed input (``lengths`` given, time-major ``x``) torch drops out the packed rows, so its
    random draws cover only the real time steps: the mask is drawn in that layout too.
    """
    if not (dropout and training and layer < num_layers - 1):
        return x
    if lengths is None:
        return _dropout.dropout(x, dropout, True)
    data, batch_sizes = pack_rows(x, lengths)
    return pad_rows(_dropout.dropout(data, dropout, True), batch_sizes, x.shape[0])[0]


def _records(mode, x, states, params):
    """Whether a backward will be recorded through an LSTM / GRU call (float32 / float64)."""
    if mode not in ("LSTM", "GRU") or x.array.dtype not in (np.float32, np.float64) or not is_grad_enabled():
        return False
    return any(t is not None and t.requires_grad for t in (x, *states, *(p for ps in params for p in ps)))


def run_layers(mode, x, states, params, num_layers, bidirectional, dropout, training, layout, lengths=None):
    """Run a stacked recurrent module.

    Parameters
    ----------
    mode : str
        ``RNN_TANH``, ``RNN_RELU``, ``LSTM`` or ``GRU``.
    x : Tensor
        ``(T, B, I)``, or ``(B, T, I)`` when ``layout`` is 1.
    states : list of (Tensor or None)
        The initial states ``(L*D, B, H)``: ``[h0]`` or, for LSTM, ``[h0, c0]``; None for zeros.
    params : list of tuple
        ``(w_ih, w_hh, b_ih, b_hh)`` per layer and direction, in torch's order (biases None without bias).
    num_layers, bidirectional, dropout, training
        The module's configuration.
    layout : int
        1 when ``x`` and the output are batch-first.
    lengths : numpy.ndarray or Tensor, optional
        int32 ``(B,)`` sequence lengths (packed input): an array (time-major input, dropout between layers
        drawn over the packed rows) or a tensor (a packed sequence's padded form, in the graph).

    ``params`` with a fifth entry (``w_hr``) mean an LSTM with projections, which steps through time
    with the cell's ops (no engine op has projections); its ``h0`` is ``(L*D, B, P)``.

    Returns
    -------
    (Tensor, list of Tensor)
        The last layer's output ``(T, B, D*H)`` (or batch-first) and the final states ``(L*D, B, H)``.
    """
    if layout:
        # torch runs batch-first input time-major and returns the output as a transposed view of a time-major
        # buffer: its strides, and the memory order in which dropout (between layers or on the output) draws masks.
        swap = op("Transpose", perm=(1, 0, 2))
        output, finals = _run_time_major(mode, call(swap, x), states, params, num_layers, bidirectional, dropout,
                                         training, lengths)
        return call(swap, output), finals
    return _run_time_major(mode, x, states, params, num_layers, bidirectional, dropout, training, lengths)


def _run_time_major(mode, x, states, params, num_layers, bidirectional, dropout, training, lengths):
    """:func:`run_layers` for a time-major ``x``."""
    if len(params[0]) == 5:
        return _projected_lstm(x, states, params, num_layers, bidirectional, dropout, training, lengths)
    D = 2 if bidirectional else 1
    attrs = {"direction": "bidirectional" if bidirectional else "forward", "layout": 0}
    n_states = 2 if mode == "LSTM" else 1
    if _records(mode, x, states, params):  # the variant that saves its activations for the backward
        engine_op = op(mode + "Train", **attrs)
    else:
        if mode == "GRU":
            attrs["linear_before_reset"] = 1
        elif mode == "RNN_RELU":
            attrs["activations"] = ["Relu"] * D
        engine_op = op(ENGINE_OPS[mode], **attrs)
    per_layer = [None if s is None else _split(s, num_layers) for s in states]
    finals = [[] for _ in states]
    for layer in range(num_layers):
        initial = [None if s is None else s[layer] for s in per_layer]
        w, r, b = onnx_weights(mode, params[layer * D:(layer + 1) * D])
        y, *last = call(engine_op, x, w, r, b, lengths, *initial)[:1 + n_states]
        for k, state in enumerate(last):
            finals[k].append(state)
        x = _between_layers(_layer_output(y), layer, num_layers, dropout, training, lengths)
    return x, [_concat(f) for f in finals]


def _projected_lstm(x, states, params, num_layers, bidirectional, dropout, training, lengths):
    """:func:`run_layers` for a time-major LSTM with projections: ``params`` hold ``(w_ih, w_hh, b_ih, b_hh,
    w_hr)``."""
    D = 2 if bidirectional else 1
    T, B = x.shape[0], x.shape[1]
    if lengths is None:
        valid = None
    elif isinstance(lengths, np.ndarray):
        valid = np.arange(T)[:, None, None] < lengths[None, :, None]  # [T, B, 1]
    else:  # a tensor (a packed sequence's padded form): the mask is computed in the graph
        steps = np.arange(T, dtype=lengths.array.dtype).reshape(T, 1, 1)
        valid = [_reshape(v, (B, 1)) for v in _split(call(op("Less"), steps, _reshape(lengths, (1, B, 1))), T)]
    h0, c0 = (None if s is None else _split(s, num_layers * D) for s in states)
    finals_h, finals_c = [], []
    for layer in range(num_layers):
        outputs = []
        for d in range(D):
            k = layer * D + d
            w_ih, w_hh, b_ih, b_hh, w_hr = params[k]
            h = _zeros_state(x, B, w_hr.shape[0]) if h0 is None else _reshape(h0[k], (B, w_hr.shape[0]))
            c = _zeros_state(x, B, w_hr.shape[1]) if c0 is None else _reshape(c0[k], (B, w_hr.shape[1]))
            steps = _split(_reshape(_linear.linear(x, w_ih, b_ih), (T * B, w_ih.shape[0])), T)
            ys = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                full, c_new = _lstm_update(call(op("Add"), steps[t], _linear.linear(h, w_hh, b_hh)), c)
                h_new = _linear.linear(full, w_hr)
                if valid is None:
                    h, c, ys[t] = h_new, c_new, h_new
                else:  # past a sequence's end the state holds and the output is zero
                    h, c = (call(op("Where"), valid[t], new, old) for new, old in ((h_new, h), (c_new, c)))
                    ys[t] = call(op("Where"), valid[t], h_new, np.zeros((), h_new.array.dtype))
            outputs.append(_reshape(_concat(ys), (T, B, w_hr.shape[0])))
            finals_h.append(h)
            finals_c.append(c)
        x = _between_layers(_concat(outputs, axis=2), layer, num_layers, dropout, training, lengths)
    return x, [_reshape(_concat(f), (num_layers * D, B, f[0].shape[-1])) for f in (finals_h, finals_c)]


def _zeros_state(x, batch, size):
    return _creation.zeros((batch, size), dtype=x.dtype)


# -- cells -------------------------------------------------------------------------------------


def _lstm_update(gates, c):
    """``(o * tanh(c'), c')`` with ``c' = f * c + i * g`` from torch-ordered gate pre-activations (B, 4H)."""
    i, f, g, o = _split(gates, 4, axis=1)
    sigmoid, tanh, mul, add = op("Sigmoid"), op("Tanh"), op("Mul"), op("Add")
    c_new = call(add, call(mul, call(sigmoid, f), c), call(mul, call(sigmoid, i), call(tanh, g)))
    return call(mul, call(sigmoid, o), call(tanh, c_new)), c_new


def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, relu=False):
    """One Elman RNN step: ``act(x W_ih^T + b_ih + h W_hh^T + b_hh)`` on (B, I) and (B, H)."""
    pre = call(op("Add"), _linear.linear(x, w_ih, b_ih), _linear.linear(h, w_hh, b_hh))
    return call(op("Relu" if relu else "Tanh"), pre)


def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One LSTM step on (B, I), (B, H), (B, H): ``(h', c')``."""
    return _lstm_update(call(op("Add"), _linear.linear(x, w_ih, b_ih), _linear.linear(h, w_hh, b_hh)), c)


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """One GRU step on (B, I) and (B, H): ``h' = n + z * (h - n)`` with torch's gates r, z, n."""
    sigmoid, add, mul = op("Sigmoid"), op("Add"), op("Mul")
    x_r, x_z, x_n = _split(_linear.linear(x, w_ih, b_ih), 3, axis=1)
    h_r, h_z, h_n = _split(_linear.linear(h, w_hh, b_hh), 3, axis=1)
    r = call(sigmoid, call(add, x_r, h_r))
    z = call(sigmoid, call(add, x_z, h_z))
    n = call(op("Tanh"), call(add, x_n, call(mul, r, h_n)))
    return call(add, n, call(mul, z, call(op("Sub"), h, n)))
