"""LSTMTrain and GRUTrain (engine-internal): LSTM / GRU forwards that keep their gate activations.

They compute exactly what LSTM (default activations, no clip, peepholes or input_forget) and GRU
(default activations, ``linear_before_reset=1``) compute (the configurations PyTorch uses) and also
return the activations their fused gradient (``LSTMGrad`` / ``GRUGrad`` in ``rnn_bptt``) would
otherwise recompute: a frontend calls them when it records a backward, the ONNX ops otherwise (whose
kernels run the same loops, :func:`lstm_steps` and :func:`gru_steps`, for these configurations).

Saved activations are in step order (the reverse direction flipped in time), whatever the layout:

* LSTMTrain: ``gates`` ``[T, D, B, 4H]`` (sigmoid i, o, f and tanh g, ONNX gate order) and ``cells``
  ``[T + 1, D, B, H]`` (``cells[0]`` the initial cell state, ``cells[t + 1]`` the state after step t).
* GRUTrain: ``gates`` ``[T, D, B, 3H]`` (sigmoid z, r and tanh n) and ``hidden`` ``[T, D, B, H]``
  (``h_{t-1} R_h^T + Rb_h``, the product the reset gate scales).

Each step writes into these arrays in place (one matmul and a few ufuncs, no temporaries).  A backward
that is itself recorded (``create_graph``) differentiates the ONNX op's replay (``rnn_grad``) instead.
"""

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops import rnn_bptt, rnn_grad
from vfw.core.ops.rnn import _COMMON_ATTRS, _config, _finish, _prepare
from vfw.core.ops.rnn_bptt import _FLOATS, sigmoid_
from vfw.core.registry import TensorInfo, defop, make_op

_ATTRS = {"direction": _COMMON_ATTRS["direction"], "layout": _COMMON_ATTRS["layout"],
          "hidden_size": _COMMON_ATTRS["hidden_size"]}


def _step_product(h, rt, out):
    """``h[d] @ rt[d]`` for every direction, written into ``out`` ([D, B, H] @ [D, H, G*H] -> [D, B, G*H])."""
    if len(rt) == 1:
        np.dot(h[0], rt[0], out=out[0])
    else:
        np.matmul(h, rt, out=out)


def _masked_step(s, t, h, y, cells=None):
    """The state after step ``t``: its output ``y`` (Y's row) where the step is valid, ``h`` held where it is
    padded; then Y's row is zeroed there, and a held cell state restored into ``cells[t + 1]``."""
    if s.valid is None:
        return y
    v = s.valid[t]
    h = np.where(v, y, h)
    if cells is not None:
        np.copyto(cells[t + 1], cells[t], where=~v)
    y *= v
    return h


def _finals(s, states):
    """Final states (copies: ``_finish`` may reorder Y, which a state can be a view of)."""
    states = [st.copy() for st in states]
    if s.empty is not None:  # a zero-length sequence has zero final states
        states = [np.where(s.empty, 0, st) for st in states]
    return states


def _infer(lstm):
    """Shape inference: Y, the final state(s) and the saved activations (see the module docstring)."""
    gate_count, n_out = (4, 5) if lstm else (3, 4)

    def infer(attrs, infos):
        x, r = infos[0], infos[2]
        D = 2 if attrs["direction"] == "bidirectional" else 1
        H = attrs["hidden_size"] or (r.shape[2] if r.shape is not None and len(r.shape) == 3 else None)
        if x.shape is None or len(x.shape) != 3:
            return [TensorInfo(None, x.dtype)] * n_out
        B, T = x.shape[:2] if attrs["layout"] else x.shape[1::-1]
        y = (B, T, D, H) if attrs["layout"] else (T, D, B, H)
        state = (B, D, H) if attrs["layout"] else (D, B, H)
        steps = T + 1 if lstm and T is not None else T  # cells hold the initial state too
        saved = [TensorInfo((T, D, B, None if H is None else gate_count * H), x.dtype),
                 TensorInfo((steps, D, B, H), x.dtype)]
        return [TensorInfo(y, x.dtype)] + [TensorInfo(state, x.dtype)] * (n_out - 3) + saved

    return infer


@defop("LSTMTrain", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T initial_c?:T",
       outputs="Y:T Y_h:T Y_c:T gates:T cells:T", types={"T": _FLOATS, "T1": {dt.int32}}, attrs=dict(_ATTRS),
       infer=_infer(True))
def lstm_train(direction, layout, hidden_size):
    """LSTM (ONNX semantics, gates i, o, f, c) that also returns its gates and cell states (see the module)."""
    cfg = _config("LSTM", direction, hidden_size, layout, None)

    def kernel(x, w, r, b=None, sequence_lens=None, initial_h=None, initial_c=None):
        s = _prepare(cfg, 4, x, w, r, b, sequence_lens, initial_h, initial_c)
        ys, states, gates, cells = lstm_steps(s)
        return _finish(cfg, ys, states, x.dtype) + (gates, cells)

    return kernel


def lstm_steps(s):
    """Run the LSTM recurrence of a prepared call (``rnn._prepare``) with the default activations.

    Returns ``(ys, [h_n, c_n], gates, cells)``, Y in step order.  The ONNX LSTM kernel runs this too
    when its configuration allows.
    """
    T, D, B, H = s.T, s.D, s.B, s.H
    gates = np.empty((T, D, B, 4 * H), s.dtype)
    cells = np.empty((T + 1, D, B, H), s.dtype)
    cells[0] = s.c0
    ys = np.empty((T, D, B, H), s.dtype)
    scratch = np.empty((D, B, H), s.dtype)
    h = s.h0
    for t in range(T):
        a = gates[t]
        _step_product(h, s.rt, a)
        a += s.xs[t]
        sigmoid_(a[..., :3 * H])
        np.tanh(a[..., 3 * H:], out=a[..., 3 * H:])
        c = cells[t + 1]
        np.multiply(a[..., 2 * H:3 * H], cells[t], out=c)
        np.multiply(a[..., :H], a[..., 3 * H:], out=scratch)
        c += scratch
        np.tanh(c, out=scratch)
        h = _masked_step(s, t, h, np.multiply(a[..., H:2 * H], scratch, out=ys[t]), cells)
    return (ys, _finals(s, [h, cells[T]]), gates, cells)


@defop("GRUTrain", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T",
       outputs="Y:T Y_h:T gates:T hidden:T", types={"T": _FLOATS, "T1": {dt.int32}}, attrs=dict(_ATTRS),
       infer=_infer(False))
def gru_train(direction, layout, hidden_size):
    """GRU (ONNX semantics, gates z, r, h, ``linear_before_reset=1``) that also returns its activations."""
    cfg = _config("GRU", direction, hidden_size, layout, None)

    def kernel(x, w, r, b=None, sequence_lens=None, initial_h=None):
        s = _prepare(cfg, 3, x, w, r, b, sequence_lens, initial_h, fold_rh_bias=False)
        ys, states, gates, hidden = gru_steps(s)
        return _finish(cfg, ys, states, x.dtype) + (gates, hidden)

    return kernel


def gru_steps(s):
    """Run the GRU recurrence (``linear_before_reset=1``, default activations) of a prepared call.

    Returns ``(ys, [h_n], gates, hidden)``, Y in step order.  The ONNX GRU kernel runs this too when
    its configuration allows.
    """
    T, D, B, H = s.T, s.D, s.B, s.H
    gates = np.empty((T, D, B, 3 * H), s.dtype)
    hidden = np.empty((T, D, B, H), s.dtype)
    ys = np.empty((T, D, B, H), s.dtype)
    h = s.h0
    for t in range(T):
        a = gates[t]
        _step_product(h, s.rt, a)  # h R^T; the h block moves to ``hidden`` before n overwrites it
        hh = hidden[t]
        if s.bias_r is None:
            hh[...] = a[..., 2 * H:]
        else:
            np.add(a[..., 2 * H:], s.bias_r, out=hh)
        a += s.xs[t]
        sigmoid_(a[..., :2 * H])
        n = a[..., 2 * H:]
        np.multiply(a[..., H:2 * H], hh, out=n)
        n += s.xs[t][..., 2 * H:]
        np.tanh(n, out=n)
        y = np.subtract(h, n, out=ys[t])  # h' = n + z * (h - n)
        y *= a[..., :H]
        y += n
        h = _masked_step(s, t, h, y)
    return (ys, _finals(s, [h]), gates, hidden)


class _AsOnnx:
    """A recorded Train call seen as the ONNX op it computes (for the replayed, differentiable gradient)."""

    __slots__ = ("op", "inputs", "needs_input_grad")

    def __init__(self, node, op_type, extra):
        attrs = {"direction": node.attrs["direction"], "layout": node.attrs["layout"],
                 "hidden_size": node.attrs["hidden_size"], **extra}
        self.op = make_op(op_type, attrs)
        self.inputs = node.inputs
        self.needs_input_grad = node.needs_input_grad

    @property
    def attrs(self):
        return self.op.attrs


@register_gradient("LSTMTrain", "GRUTrain")
def _train_grad(node, *grads):
    op = node.op.schema.op_type[:-len("Train")]
    n_out = 3 if op == "LSTM" else 2
    if autograd.is_grad_enabled():  # recorded backward: differentiate the ONNX op's replay
        return rnn_grad._recurrent_grad(_AsOnnx(node, op, {"linear_before_reset": 1} if op == "GRU" else {}),
                                        *grads[:n_out])
    wanted = [i for i, need in enumerate(node.needs_input_grad) if need and i != 4]
    if not wanted:
        return (None,) * len(node.inputs)
    return rnn_bptt.run_fused(op, node, grads, wanted, (node.output(n_out), node.output(n_out + 1)))
