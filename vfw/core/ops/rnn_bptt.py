"""Fused backpropagation through time: RNNGrad, GRUGrad, LSTMGrad (engine-internal ops).

One kernel computes every input gradient of one RNN / GRU / LSTM call, where
the replayed gradient (``rnn_grad``) differentiates the recurrence op by op.

1. Activations.  LSTMTrain / GRUTrain (``rnn_train``) save them in the forward.
   After the ONNX ops they are recomputed: ``Y`` holds each step's new hidden
   state, so the state every step read is known without running the
   recurrence again and the gate pre-activations of all steps are one matmul
   by ``R``; only the LSTM cell state needs a loop over time (two elementwise
   ops per step).  An RNN's activation slope comes from ``Y`` itself.
2. Backward through time.  The factors of each step's local derivatives that
   do not depend on the incoming gradient are computed for all steps at once;
   the loop then costs one matmul by ``R`` and a few products per step.
3. ``dX``, ``dW``, ``dR`` and ``dB`` are one matmul (or sum) each over all steps.

Arrays are time-major ``[T, D, B, ...]`` in *step order* (the reverse
direction flipped in time, as the forward kernel runs it).  Padded steps
(``sequence_lens``) hold the state and output zeros, so their local
derivatives are masked to zero and the state gradient passes them unchanged.

Supported: the activations PyTorch uses (RNN: Tanh or Relu; GRU: Sigmoid,
Tanh with ``linear_before_reset=1``; LSTM: Sigmoid, Tanh, Tanh), no ``clip``,
no peepholes, no ``input_forget``, float32/float64.  :func:`fused_gradient`
says whether a recorded call qualifies; others keep the replay, as does a
backward that is itself recorded (these ops are not differentiable).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.eager import execute
from vfw.core.errors import OpAttributeError, ShapeError
from vfw.core.ops._common import array_of
from vfw.core.ops.rnn import _COMMON_ATTRS, _activation_specs, _check_activations, _config, _prepare
from vfw.core.registry import Attr, TensorInfo, defop

_X, _W, _R, _B, _LENS, _H0, _C0 = range(7)
# the activation keys per direction each fused kernel implements (RNN: either one)
_FUSED_ACTIVATIONS = {"RNN": (("tanh",), ("relu",)), "GRU": (("sigmoid", "tanh"),),
                      "LSTM": (("sigmoid", "tanh", "tanh"),)}
_DEFAULT_ACTIVATIONS = {"RNN": ("Tanh",), "GRU": ("Sigmoid", "Tanh"), "LSTM": ("Sigmoid", "Tanh", "Tanh")}
_FLOATS = {dt.float32, dt.float64}


# -- layout helpers ------------------------------------------------------------------


def _flip_reverse(a, reverse):
    """Time order <-> step order of a ``[T, D, ...]`` array (the reverse direction flipped in time)."""
    if all(reverse):
        return a[::-1]
    if any(reverse):
        a = a.copy()
        a[:, 1] = a[::-1, 1]
    return a


def _time_major(a, layout, perm):
    """An array of the op's ``layout`` as time-major (and back: the permutations used are involutions)."""
    return a.transpose(perm) if layout else a


def _step_mm(a, m):
    """``a[d] @ m[d]`` for every direction ``d``: ``a`` is [D, B, K], ``m`` [D, K, M] -> [D, B, M]."""
    if len(m) == 1:
        return np.dot(a[0], m[0])[None]
    return np.matmul(a, m)


def _rows(a, d):
    """Direction ``d`` of a ``[T, D, B, K]`` array as [T * B, K] rows."""
    return a[:, d].reshape(a.shape[0] * a.shape[2], a.shape[-1])


class _Context:
    """Step-ordered arrays shared by the three kernels (see the module docstring)."""

    __slots__ = ("s", "cfg", "r", "ys", "prev", "dy", "dfinal", "valid", "held")

    def __init__(self, cfg, gates, x, w, r, b, lens, h0, c0, y, dy, dfinals, fold_rh_bias=True, project=True):
        s = self.s = _prepare(cfg, gates, x, w, r, b, lens, h0, c0, fold_rh_bias=fold_rh_bias, project=project)
        self.cfg = cfg
        layout, ct = cfg["layout"], s.dtype
        self.r = r.astype(ct, copy=False)  # [D, G*H, H]: the per-step product of the backward reads R itself
        expect = (s.B, s.T, s.D, s.H) if layout else (s.T, s.D, s.B, s.H)
        for name, a in (("Y", y), ("dY", dy)):
            if a.shape != expect:
                raise ShapeError(f"{cfg['op']}Grad: {name} has shape {list(a.shape)}, expected {list(expect)}")
        ys = _flip_reverse(_time_major(y, layout, (1, 2, 0, 3)).astype(ct, copy=False), cfg["reverse"])
        dy = _flip_reverse(_time_major(dy, layout, (1, 2, 0, 3)).astype(ct, copy=False), cfg["reverse"])
        # the state each step read: the previous step's output, or h0 before a sequence's first valid step
        prev = np.empty((s.T, s.D, s.B, s.H), ct)
        if s.T:
            prev[0] = s.h0
        valid = s.valid  # [T, D, B, 1] or None
        if valid is None:
            prev[1:] = ys[:-1]
            self.dy = dy
        else:
            np.copyto(prev[1:], ys[:-1], where=valid[:-1])
            np.copyto(prev[1:], s.h0, where=~valid[:-1])
            self.dy = dy * valid  # Y is zero past a sequence's end: no gradient flows from there
        self.ys, self.prev, self.valid = ys, prev, valid
        self.held = None if valid is None else ~valid
        state = (s.B, s.D, s.H) if layout else (s.D, s.B, s.H)
        self.dfinal = []
        for name, g in dfinals:
            if g.shape != state:
                raise ShapeError(f"{cfg['op']}Grad: {name} has shape {list(g.shape)}, expected {list(state)}")
            g = _time_major(g, layout, (1, 0, 2)).astype(ct)  # a copy: scaled in place below
            if s.empty is not None:  # a zero-length sequence's final state is zero whatever came before
                g *= ~s.empty
            self.dfinal.append(g)

    def recurrent_products(self):
        """``h_prev R^T`` of every step, [T, D, B, G*H] (a fresh C-contiguous array)."""
        s = self.s
        T, D, B, H = self.prev.shape
        GH = s.rt.shape[-1]
        if D == 1:
            return np.dot(self.prev.reshape(T * B, H), s.rt[0]).reshape(T, 1, B, GH)
        per_dir = np.matmul(self.prev.transpose(1, 0, 2, 3).reshape(D, T * B, H), s.rt)
        return np.ascontiguousarray(per_dir.reshape(D, T, B, GH).transpose(1, 0, 2, 3))

    def mask(self, *factors):
        """Zero local derivative factors ([T, D, B, H] or [T, D, B, k, H]) at padded steps, in place."""
        if self.valid is not None:
            for f in factors:
                f *= self.valid if f.ndim == 4 else self.valid[..., None]

    def carry_through(self, factor):
        """``factor`` where the step is valid, 1 where it is padded (the state passes unchanged)."""
        return factor if self.valid is None else np.where(self.valid, factor, 1)

    def input_grads(self, wanted, x, w, b, da_x, da_h, gate_order=None):
        """[dX, dW, dR, dB] from the step-ordered gradients of the input and recurrent pre-activations.

        ``gate_order[k]`` is the gate block of W that block ``k`` of ``da_*`` belongs to (None: the same).
        """
        s, cfg = self.s, self.cfg
        rows = slice(None)
        if gate_order is not None:
            rows = np.concatenate([np.arange(k * s.H, (k + 1) * s.H) for k in gate_order])
        to_w = slice(None) if gate_order is None else np.argsort(rows)  # da's blocks -> W's order
        out = [None] * 4
        da_x_time = _flip_reverse(da_x, cfg["reverse"])
        xt = _time_major(x, cfg["layout"], (1, 0, 2)).astype(s.dtype, copy=False)
        if 0 in wanted:
            w_rows = w.astype(s.dtype, copy=False)[:, rows]
            dx = np.dot(_rows(da_x_time, 0), w_rows[0])
            for d in range(1, s.D):
                dx += np.dot(_rows(da_x_time, d), w_rows[d])
            out[0] = _time_major(dx.reshape(xt.shape), cfg["layout"], (1, 0, 2))
        if 1 in wanted:
            x_rows = xt.reshape(s.T * s.B, xt.shape[-1])
            out[1] = np.stack([np.dot(_rows(da_x_time, d).T, x_rows)[to_w] for d in range(s.D)])
        if 2 in wanted:
            out[2] = np.stack([np.dot(_rows(da_h, d).T, _rows(self.prev, d))[to_w] for d in range(s.D)])
        if 3 in wanted and b is not None:
            out[3] = np.concatenate([a.sum(axis=(0, 2))[:, to_w] for a in (da_x, da_h)], axis=1)
        return out

    def state_grad(self, g):
        """A state gradient [D, B, H] in the op's layout."""
        return _time_major(g, self.cfg["layout"], (1, 0, 2))


def _finish(grads, wanted, sources, dtype):
    """The kernel's outputs: the requested gradients of present inputs, in the input dtype; None otherwise."""
    return tuple(None if i not in wanted or src is None else np.ascontiguousarray(g, dtype=dtype)
                 for i, (g, src) in enumerate(zip(grads, sources)))


# -- kernels ---------------------------------------------------------------------------

_GRAD_ATTRS = {
    "direction": _COMMON_ATTRS["direction"],
    "layout": _COMMON_ATTRS["layout"],
    "gradients": Attr("ints", tuple(range(6))),
}
# LSTM gradients are assembled in gate order (i, f, c, o), so that the three gates fed by the
# cell-state gradient are one block; entry k is the block of W's order (i, o, f, c) it belongs to
_LSTM_GATES = (0, 2, 3, 1)


def _grad_infer(n_out):
    def infer(attrs, infos):
        sources = [infos[i] for i in (_X, _W, _R, _B, _H0, _C0)[:n_out]]
        return [None if i not in attrs["gradients"] or src is None else TensorInfo(src.shape, src.dtype)
                for i, src in enumerate(sources)]

    return infer


def _rnn_backward(ctx, relu):
    """Pre-activation gradients [T, D, B, H] and the initial state's gradient of an RNN.

    The activation's slope comes from the outputs (``Y`` is each step's state; padded steps are masked).
    """
    s, h = ctx.s, ctx.ys
    slope = (h > 0).astype(s.dtype) if relu else 1 - h * h
    ctx.mask(slope)
    da = np.empty_like(slope)
    (carry,) = ctx.dfinal
    for t in range(s.T - 1, -1, -1):
        dh = carry + ctx.dy[t]
        np.multiply(dh, slope[t], out=da[t])
        carry = _step_mm(da[t], ctx.r)
        if ctx.held is not None:  # padded step: the state passes unchanged
            carry += dh * ctx.held[t]
    return da, carry


def _lstm_activations(ctx):
    """Recomputed gates ``[T, D, B, 4H]`` (sigmoid i, o, f and tanh g) and cell states ``[T + 1, D, B, H]``
    (``cells[0]`` the initial state), as LSTMTrain saves them."""
    s = ctx.s
    H = s.H
    gates = ctx.recurrent_products()
    gates += s.xs
    sigmoid_(gates[..., :3 * H])
    np.tanh(gates[..., 3 * H:], out=gates[..., 3 * H:])
    ig = gates[..., :H] * gates[..., 3 * H:]
    f_step = ctx.carry_through(gates[..., 2 * H:3 * H])
    if ctx.valid is not None:
        ig *= ctx.valid
    cells = np.empty((s.T + 1,) + ig.shape[1:], s.dtype)  # cells[t + 1]: the cell state after step t
    cells[0] = s.c0
    for t in range(s.T):
        np.multiply(f_step[t], cells[t], out=cells[t + 1])
        cells[t + 1] += ig[t]
    return gates, cells


def _lstm_backward(ctx, gates, cells):
    """Pre-activation gradients [T, D, B, 4H] (gate order ``_LSTM_GATES``) and the initial states' gradients."""
    s = ctx.s
    T, D, B, H = s.T, s.D, s.B, s.H
    iof, g = gates[..., :3 * H], gates[..., 3 * H:]
    i, o, f = iof[..., :H], iof[..., H:2 * H], iof[..., 2 * H:]
    tc = np.tanh(cells[1:])
    slopes = iof * (1 - iof)  # sigmoid' of i, o, f
    # factors of dc (gates i, f, c) and of dh (gate o, and dh's share of dc)
    via_c = np.empty((T, D, B, 3, H), s.dtype)
    np.multiply(g, slopes[..., :H], out=via_c[:, :, :, 0])
    np.multiply(cells[:-1], slopes[..., 2 * H:], out=via_c[:, :, :, 1])
    np.multiply(g, g, out=via_c[:, :, :, 2])
    np.subtract(1, via_c[:, :, :, 2], out=via_c[:, :, :, 2])
    via_c[:, :, :, 2] *= i
    via_h = tc * slopes[..., H:2 * H]
    h_to_c = tc * tc
    np.subtract(1, h_to_c, out=h_to_c)
    h_to_c *= o
    ctx.mask(via_c, via_h, h_to_c)
    f_step = ctx.carry_through(f)
    da = np.empty((T, D, B, 4, H), s.dtype)
    r = ctx.r.reshape(D, 4, H, H)[:, list(_LSTM_GATES)].reshape(D, 4 * H, H)
    carry_h, carry_c = ctx.dfinal
    for t in range(T - 1, -1, -1):
        dh = carry_h + ctx.dy[t]
        dc = dh * h_to_c[t]
        dc += carry_c
        np.multiply(dc[:, :, None], via_c[t], out=da[t, :, :, :3])
        np.multiply(dh, via_h[t], out=da[t, :, :, 3])
        carry_c = dc * f_step[t]
        carry_h = _step_mm(da[t].reshape(D, B, 4 * H), r)
        if ctx.held is not None:  # padded step: the state passes unchanged
            carry_h += dh * ctx.held[t]
    return da.reshape(T, D, B, 4 * H), carry_h, carry_c


def _gru_activations(ctx):
    """Recomputed gates ``[T, D, B, 3H]`` (sigmoid z, r and tanh n) and the reset-scaled products
    ``h_prev R_h^T + Rb_h`` ``[T, D, B, H]``, as GRUTrain saves them."""
    s = ctx.s
    H = s.H
    gates = ctx.recurrent_products()  # h_prev R^T; its h block is overwritten by n
    hidden = gates[..., 2 * H:].copy()
    if s.bias_r is not None:
        hidden += s.bias_r
    gates[..., :2 * H] += s.xs[..., :2 * H]
    sigmoid_(gates[..., :2 * H])
    n = gates[..., 2 * H:]
    np.multiply(gates[..., H:2 * H], hidden, out=n)
    n += s.xs[..., 2 * H:]
    np.tanh(n, out=n)
    return gates, hidden


def _gru_backward(ctx, gates, hidden):
    """Gradients [T, D, B, 3H] of the input and recurrent pre-activations, and the initial state's gradient."""
    s = ctx.s
    T, D, B, H = s.T, s.D, s.B, s.H
    z, rg, n = gates[..., :H], gates[..., H:2 * H], gates[..., 2 * H:]
    via_n = (1 - z) * (1 - n * n)
    # factors of dh in the gradients of the input products (z, r, h) and of the recurrent ones (h scaled by r)
    via_x = np.empty((T, D, B, 3, H), s.dtype)
    np.multiply(ctx.prev - n, z * (1 - z), out=via_x[:, :, :, 0])
    np.multiply(via_n * hidden, rg * (1 - rg), out=via_x[:, :, :, 1])
    via_x[:, :, :, 2] = via_n
    via_hr = via_x.copy()
    via_hr[:, :, :, 2] *= rg
    ctx.mask(via_x, via_hr)
    z_step = ctx.carry_through(z)
    da_x = np.empty((T, D, B, 3, H), s.dtype)
    da_h = np.empty_like(da_x)
    (carry,) = ctx.dfinal
    for t in range(T - 1, -1, -1):
        dh = carry + ctx.dy[t]
        dh3 = dh[:, :, None]
        np.multiply(dh3, via_x[t], out=da_x[t])
        np.multiply(dh3, via_hr[t], out=da_h[t])
        carry = _step_mm(da_h[t].reshape(D, B, 3 * H), ctx.r)
        carry += dh * z_step[t]
    return da_x.reshape(T, D, B, 3 * H), da_h.reshape(T, D, B, 3 * H), carry


def sigmoid_(a):
    """The logistic function in place (tanh form: no overflow, one transcendental per element)."""
    a *= 0.5
    np.tanh(a, out=a)
    a *= 0.5
    a += 0.5
    return a


def _saved(name, op, arrays, shapes):
    """Saved activations of a Train op, checked against the shapes the call implies (None when not given)."""
    if all(a is None for a in arrays):
        return None
    for label, a, shape in zip(name.split(), arrays, shapes):
        if a is None or a.shape != shape:
            raise ShapeError(f"{op}: {label} has shape {None if a is None else list(a.shape)}, expected "
                             f"{list(shape)} (both saved activations or neither)")
    return arrays


@defop("RNNGrad", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T Y:T dY:T dY_h:T",
       outputs="dX?:T dW?:T dR?:T dB?:T dinitial_h?:T", types={"T": _FLOATS, "T1": {dt.int32}},
       attrs=dict(_GRAD_ATTRS, activations=Attr("strings", None, check=_check_activations)),
       infer=_grad_infer(5))
def rnn_grad(direction, layout, gradients, activations):
    """Gradients of an RNN call (``activations`` Tanh or Relu) from its inputs, ``Y`` and the output gradients.

    ``gradients`` lists which of (X, W, R, B, initial_h) to compute (positions); the others are None.
    """
    cfg = _config("RNN", direction, None, layout, None)
    keys = {k for k, _, _ in _activation_specs("RNN", activations, None, None, ("Tanh",), cfg["D"])}
    if len(keys) != 1 or not keys <= {"tanh", "relu"}:
        raise OpAttributeError(f"RNNGrad: activations {activations} are not supported (Tanh or Relu, the same "
                               "for both directions)")
    relu = keys == {"relu"}

    def kernel(x, w, r, b, sequence_lens, initial_h, y, dy, dy_h):
        ctx = _Context(cfg, 1, x, w, r, b, sequence_lens, initial_h, None, y, dy, [("dY_h", dy_h)], project=False)
        da, dh0 = _rnn_backward(ctx, relu)
        grads = ctx.input_grads(gradients, x, w, b, da, da) + [ctx.state_grad(dh0)]
        return _finish(grads, gradients, (x, w, r, b, initial_h), x.dtype)

    return kernel


@defop("GRUGrad", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T Y:T dY:T dY_h:T gates?:T hidden?:T",
       outputs="dX?:T dW?:T dR?:T dB?:T dinitial_h?:T", types={"T": _FLOATS, "T1": {dt.int32}},
       attrs=dict(_GRAD_ATTRS), infer=_grad_infer(5))
def gru_grad(direction, layout, gradients):
    """Gradients of a GRU call with ``linear_before_reset=1`` and the default activations.

    ``gradients`` lists which of (X, W, R, B, initial_h) to compute (positions); the others are None.
    ``gates`` and ``hidden`` are GRUTrain's saved activations; without them they are recomputed.
    """
    cfg = _config("GRU", direction, None, layout, None)

    def kernel(x, w, r, b, sequence_lens, initial_h, y, dy, dy_h, gates=None, hidden=None):
        saved = gates is not None or hidden is not None
        ctx = _Context(cfg, 3, x, w, r, b, sequence_lens, initial_h, None, y, dy, [("dY_h", dy_h)],
                       fold_rh_bias=False, project=not saved)
        s = ctx.s
        if saved:
            shapes = ((s.T, s.D, s.B, 3 * s.H), (s.T, s.D, s.B, s.H))
            gates, hidden = _saved("gates hidden", "GRUGrad", (gates, hidden), shapes)
        else:
            gates, hidden = _gru_activations(ctx)
        da_x, da_h, dh0 = _gru_backward(ctx, gates, hidden)
        grads = ctx.input_grads(gradients, x, w, b, da_x, da_h) + [ctx.state_grad(dh0)]
        return _finish(grads, gradients, (x, w, r, b, initial_h), x.dtype)

    return kernel


@defop("LSTMGrad", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T initial_c?:T Y:T dY:T dY_h:T dY_c:T "
                           "gates?:T cells?:T",
       outputs="dX?:T dW?:T dR?:T dB?:T dinitial_h?:T dinitial_c?:T", types={"T": _FLOATS, "T1": {dt.int32}},
       attrs=dict(_GRAD_ATTRS), infer=_grad_infer(6))
def lstm_grad(direction, layout, gradients):
    """Gradients of an LSTM call without peepholes, clip or input_forget, with the default activations.

    ``gradients`` lists which of (X, W, R, B, initial_h, initial_c) to compute (positions); the others are None.
    ``gates`` and ``cells`` are LSTMTrain's saved activations; without them they are recomputed.
    """
    cfg = _config("LSTM", direction, None, layout, None)

    def kernel(x, w, r, b, sequence_lens, initial_h, initial_c, y, dy, dy_h, dy_c, gates=None, cells=None):
        saved = gates is not None or cells is not None
        ctx = _Context(cfg, 4, x, w, r, b, sequence_lens, initial_h, initial_c, y, dy,
                       [("dY_h", dy_h), ("dY_c", dy_c)], project=not saved)
        s = ctx.s
        if saved:
            shapes = ((s.T, s.D, s.B, 4 * s.H), (s.T + 1, s.D, s.B, s.H))
            gates, cells = _saved("gates cells", "LSTMGrad", (gates, cells), shapes)
        else:
            gates, cells = _lstm_activations(ctx)
        da, dh0, dc0 = _lstm_backward(ctx, gates, cells)
        grads = ctx.input_grads(gradients, x, w, b, da, da, gate_order=_LSTM_GATES)
        grads += [ctx.state_grad(dh0), ctx.state_grad(dc0)]
        return _finish(grads, gradients, (x, w, r, b, initial_h, initial_c), x.dtype)

    return kernel


not_differentiable("RNNGrad", "GRUGrad", "LSTMGrad")


# -- use from the gradient maker -----------------------------------------------------------


def fused_config(op, attrs):
    """Whether ``op`` (RNN, GRU or LSTM) with ``attrs`` computes what the fused kernels implement."""
    if attrs["clip"] is not None or (op == "LSTM" and attrs["input_forget"]):
        return False
    if op == "GRU" and not attrs["linear_before_reset"]:
        return False
    D = 2 if attrs["direction"] == "bidirectional" else 1
    specs = _activation_specs(op, attrs["activations"], attrs["activation_alpha"], attrs["activation_beta"],
                              _DEFAULT_ACTIVATIONS[op], D)
    keys = [key for key, _, _ in specs]
    k = len(_DEFAULT_ACTIVATIONS[op])
    per_dir = {tuple(keys[d * k:(d + 1) * k]) for d in range(D)}
    return len(per_dir) == 1 and per_dir.pop() in _FUSED_ACTIVATIONS[op]


def fused_gradient(node, grads, wanted):
    """The input gradients of a recorded RNN/GRU/LSTM call from its fused kernel, or None where it does not apply.

    Parameters
    ----------
    node : Node
        The recorded call.
    grads : sequence of Tensor
        The output gradients (Y, Y_h and, for LSTM, Y_c).
    wanted : list[int]
        Input positions whose gradients are needed.

    Returns
    -------
    tuple or None
        One gradient (or None) per input of the node.
    """
    op = node.op.schema.op_type
    inputs = node.inputs
    if array_of(inputs[_X]).dtype not in _FLOATS or not fused_config(op, node.attrs):
        return None
    if op == "LSTM" and len(inputs) > _C0 + 1 and inputs[_C0 + 1] is not None:  # peepholes
        return None
    extra = {"activations": node.attrs["activations"]} if op == "RNN" else {}
    return run_fused(op, node, grads, wanted, (), **extra)


def run_fused(op, node, grads, wanted, saved, **attrs):
    """Run ``{op}Grad`` for ``node`` (an RNN/GRU/LSTM or Train call) with its ``saved`` activations (tensors).

    Returns one gradient (or None) per input of the node.
    """
    inputs = node.inputs
    n_state = 2 if op == "LSTM" else 1
    ins = list(inputs[:_H0 + n_state]) + [None] * (_H0 + n_state - len(inputs))
    # output k of the grad op is the gradient of input k (sequence_lens, position 4, has none)
    positions = [i if i < _LENS else i - 1 for i in wanted]
    found = execute(op + "Grad", *ins, node.output(0), *grads[:1 + n_state], *saved, direction=node.attrs["direction"],
                    layout=node.attrs["layout"], gradients=positions, **attrs)
    result = [None] * len(inputs)
    for i, p in zip(wanted, positions):
        result[i] = found[p]
    return tuple(result)
