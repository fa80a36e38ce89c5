"""Gradients of RNN, GRU and LSTM: the recurrence replayed in engine ops, then differentiated.

The maker replays the forward step by step with differentiable engine ops
(Gemm, Add, Mul, Split, Where, Clip and the activation ops) on 2-D
[batch, features] pieces, vectorized over the batch, one direction at a time,
on stand-ins for the saved inputs, and asks :func:`vfw.core.autograd.gradient`
for the vector-Jacobian product.  The output gradients are split per time step
and direction and paired with the matching replayed step outputs, so ``Y`` is
never reassembled.  Masks for ``sequence_lens`` are computed with engine ops
from the lengths tensor (no value is read in Python), so the replay is the
same for any lengths.

When the backward itself is recorded (``create_graph``), the stand-ins are
``Identity`` (``Cast`` for half types) of the saved inputs and the replay is
differentiated with ``create_graph=True``: the gradients are then engine
expressions of the inputs and can be differentiated again, to any order the
ops used support.  Otherwise the stand-ins are fresh leaves and the replay is
freed as it is walked.

float16 and bfloat16 are replayed in float32, as the kernels compute, and the
gradients cast back.
"""

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops import rnn_bptt
from vfw.core.ops._common import array_of, execute, int64s, reshape_to
from vfw.core.ops.rnn import _activation_specs
from vfw.core.tensor import Tensor

# input positions (RNN and GRU stop after initial_h)
_X, _W, _R, _B, _LENS, _H0, _C0, _P = range(8)
_DEFAULTS = {"RNN": ("Tanh",), "GRU": ("Sigmoid", "Tanh"), "LSTM": ("Sigmoid", "Tanh", "Tanh")}

# activation name -> (engine op, its attributes taken from (alpha, beta))
_ACTIVATION_OPS = {
    "relu": ("Relu", ()),
    "tanh": ("Tanh", ()),
    "sigmoid": ("Sigmoid", ()),
    "leakyrelu": ("LeakyRelu", ("alpha",)),
    "thresholdedrelu": ("ThresholdedRelu", ("alpha",)),
    "hardsigmoid": ("HardSigmoid", ("alpha", "beta")),
    "elu": ("Elu", ("alpha",)),
    "softsign": ("Softsign", ()),
    "softplus": ("Softplus", ()),
}


def _activation(spec, dtype):
    """``fn(Tensor) -> Tensor`` computing one RNN activation with engine ops."""
    key, alpha, beta = spec
    if key == "affine":
        a, b = np.asarray(alpha, dtype), np.asarray(beta, dtype)
        return lambda x: execute("Add", execute("Mul", x, a), b)
    if key == "scaledtanh":
        a, b = np.asarray(alpha, dtype), np.asarray(beta, dtype)
        return lambda x: execute("Mul", execute("Tanh", execute("Mul", x, b)), a)
    op, params = _ACTIVATION_OPS[key]
    values = {"alpha": alpha, "beta": beta}
    attrs = {name: values[name] for name in params}
    return lambda x: execute(op, x, **attrs)


def _split(x, n, axis):
    """``n`` equal pieces of ``x`` along ``axis`` (a list; ``[x]`` when ``n == 1``)."""
    return [x] if n == 1 else list(execute("Split", x, axis=axis, num_outputs=n))


def _split_sizes(x, sizes, axis):
    return list(execute("Split", x, int64s(sizes), axis=axis))


def _add(a, b):
    return execute("Add", a, b)


def _mul(a, b):
    return execute("Mul", a, b)


def _stand_in(x, wanted, create, dtype):
    """The tensor the replay reads for saved input ``x``.

    Recording the backward: an Identity (or Cast) of ``x``, so the gradient stays
    connected to ``x``.  Otherwise a fresh leaf that requires grad when ``wanted``.
    """
    if create and isinstance(x, Tensor) and x.requires_grad:
        return execute("Identity", x) if x.array.dtype == dtype else execute("Cast", x, to=dtype)
    # Not recording (grad mode is off here): a Cast is still an op, so graph tracing sees the value's origin.
    t = Tensor.wrap(array_of(x)) if array_of(x).dtype == dtype else execute("Cast", x, to=dtype)
    t.requires_grad = wanted
    return t


def _rows(a, shape, n):
    """``a`` reshaped to 2-D ``shape`` and split into ``n`` equal row blocks."""
    return _split(reshape_to(a, shape), n, 0)


class _Replay:
    """The forward of one call re-run with engine ops, on 2-D [batch, features] pieces (BLAS-friendly)."""

    def __init__(self, op, attrs, ins, T, B, dtype):
        self.op, self.attrs, self.ins, self.T, self.B, self.dtype = op, attrs, ins, T, B, dtype
        self.D = 2 if attrs["direction"] == "bidirectional" else 1
        self.H = ins[_R].array.shape[-1]
        self.reverse = {"forward": (False,), "reverse": (True,), "bidirectional": (False, True)}[attrs["direction"]]
        k = len(_DEFAULTS[op])
        specs = _activation_specs(op, attrs["activations"], attrs["activation_alpha"], attrs["activation_beta"],
                                  _DEFAULTS[op], self.D)
        self.acts = [[_activation(specs[d * k + j], dtype) for j in range(k)] for d in range(self.D)]
        clip = attrs["clip"]
        if clip is None:
            self.clip = lambda a: a
        else:
            lo, hi = np.asarray(-clip, dtype), np.asarray(clip, dtype)
            self.clip = lambda a: execute("Clip", a, lo, hi)
        self.zero = np.zeros((), dtype)
        self.zeros = np.zeros((B, self.H), dtype)
        self.masks = self.empty = None
        lens = ins[_LENS]
        if lens is not None:
            steps = np.arange(T, dtype=array_of(lens).dtype).reshape(T, 1)
            valid = execute("Less", steps, reshape_to(lens, [1, B]))  # [T, B]
            self.masks = _rows(valid, [T * B, 1], T)  # [B, 1] per time index
            self.empty = execute("Equal", reshape_to(lens, [B, 1]), np.zeros((), steps.dtype))

    def run(self):
        """Step outputs ``ys[time][direction]`` and final states ``finals[direction]``, each [B, H]."""
        ins, D, T, B, H = self.ins, self.D, self.T, self.B, self.H
        layout = self.attrs["layout"]
        x = ins[_X]
        if layout:
            x = execute("Transpose", x, perm=(1, 0, 2))
        x = reshape_to(x, [T * B, x.array.shape[-1]])
        w, r = (_rows(ins[i], [-1, ins[i].array.shape[-1]], D) for i in (_W, _R))  # [G*H, I] and [G*H, H]
        b = None if ins[_B] is None else _rows(ins[_B], [2 * D, -1], 2 * D)  # Wb and Rb, [1, G*H] each
        p = None if len(ins) <= _P or ins[_P] is None else _rows(ins[_P], [3 * D, H], 3 * D)  # [1, H] each
        init = {}
        for i in (_H0, _C0)[:len(ins) - _H0]:
            if ins[i] is not None:
                a = execute("Transpose", ins[i], perm=(1, 0, 2)) if layout else ins[i]
                init[i] = _rows(a, [D * B, H], D)
        ys = [[None] * D for _ in range(T)]
        finals = []
        for d in range(D):
            states = self._direction(
                d, x, w[d], r[d], None if b is None else b[2 * d:2 * d + 2], None if p is None else p[3 * d:3 * d + 3],
                [init[i][d] if i in init else self.zeros for i in (_H0, _C0)], ys)
            if self.empty is not None:
                states = [execute("Where", self.empty, self.zero, st) for st in states]
            finals.append(states)
        return ys, finals

    def _direction(self, d, x, w, r, b, p, states, ys):
        op, H, T = self.op, self.H, self.T
        acts, clip = self.acts[d], self.clip
        lbr = op == "GRU" and self.attrs["linear_before_reset"]
        bias = bias_rh = None
        if b is not None:
            wb, rb = b
            if lbr:  # Rbh is scaled by the reset gate: keep it out of the folded bias
                bias_rh = _split(rb, 3, 1)[2]
                rb = _mul(rb, np.repeat(np.array([1, 1, 0], self.dtype), H))
            bias = _add(wb, rb)
        proj = execute("Gemm", x, w, bias, transB=1)  # [T * B, G * H]
        if op == "GRU" and not lbr:
            r_zr, r_h = _split_sizes(r, (2 * H, H), 0)
        if p is not None:
            p_i, p_o, p_f = p
        h, c = states
        steps = _split(proj, T, 0)
        for s in range(T):
            tau = T - 1 - s if self.reverse[d] else s
            xt = steps[tau]
            if op == "RNN":
                new = [acts[0](clip(_add(xt, _gemm(h, r))))]
            elif op == "GRU":
                x_zr, x_h = _split_sizes(xt, (2 * H, H), 1)
                if lbr:
                    hr_zr, rh = _split_sizes(_gemm(h, r), (2 * H, H), 1)
                    z, rg = _split(acts[0](clip(_add(x_zr, hr_zr))), 2, 1)
                    if bias_rh is not None:
                        rh = _add(rh, bias_rh)
                    cand = _add(x_h, _mul(rg, rh))
                else:
                    z, rg = _split(acts[0](clip(_add(x_zr, _gemm(h, r_zr)))), 2, 1)
                    cand = _add(x_h, _gemm(_mul(rg, h), r_h))
                cand = acts[1](clip(cand))
                new = [_add(cand, _mul(z, execute("Sub", h, cand)))]  # (1 - z) * cand + z * h
            else:
                gi, go, gf, gc = _split(_add(xt, _gemm(h, r)), 4, 1)
                if p is not None:
                    gi = _add(gi, _mul(p_i, c))
                    gf = _add(gf, _mul(p_f, c))
                i = acts[0](clip(gi))
                fg = execute("Sub", np.ones((), self.dtype), i) if self.attrs["input_forget"] else acts[0](clip(gf))
                c_new = _add(_mul(fg, c), _mul(i, acts[1](clip(gc))))
                if p is not None:
                    go = _add(go, _mul(p_o, c_new))
                new = [_mul(acts[0](clip(go)), acts[2](c_new)), c_new]
            if self.masks is None:
                ys[tau][d] = new[0]
            else:  # past a sequence's end: the state holds, Y is zero
                m = self.masks[tau]
                ys[tau][d] = execute("Where", m, new[0], self.zero)
                new = [execute("Where", m, n, o) for n, o in zip(new, (h, c))]
            h = new[0]
            c = new[1] if op == "LSTM" else c
        return [h, c] if op == "LSTM" else [h]


def _gemm(h, r):
    """``h @ r^T`` (the recurrent product; Gemm reads the transposed weight in place)."""
    return execute("Gemm", h, r, transB=1)


def _per_step(g, dims, layout, dtype):
    """Output gradient ``g`` as [B, H] pieces: Y's per (time, direction), or a state's per direction."""
    if g.array.dtype != dtype:
        g = execute("Cast", g, to=dtype)
    if len(dims) == 4:  # Y: [T, D, B, H] or, layout 1, [B, T, D, H]
        if layout:
            g = execute("Transpose", g, perm=(1, 2, 0, 3))
        T, D, B, H = dims
        return _rows(g, [T * D * B, H], T * D)
    if layout:  # [B, D, H]
        g = execute("Transpose", g, perm=(1, 0, 2))
    D, B, H = dims
    return _rows(g, [D * B, H], D)


@register_gradient("RNN", "GRU", "LSTM")
def _recurrent_grad(node, *grads):
    """Gradients to X, W, R, B, initial_h, initial_c and P (sequence_lens gets none)."""
    op = node.op.schema.op_type
    inputs = node.inputs
    n = len(inputs)
    wanted = [i for i in range(n) if node.needs_input_grad[i] and i != _LENS]
    attrs = node.attrs
    x = array_of(inputs[_X])
    T, B = (x.shape[1], x.shape[0]) if attrs["layout"] else x.shape[:2]
    if not wanted or T == 0 or B == 0:  # empty sequences: zero final states, nothing depends on the inputs
        return (None,) * n
    create = autograd.is_grad_enabled()
    if not create:  # a backward that is not itself recorded: one fused kernel where it applies
        fused = rnn_bptt.fused_gradient(node, grads, wanted)
        if fused is not None:
            return fused
    dtype = x.dtype if x.dtype in (dt.float32, dt.float64) else dt.float32
    ins = [inputs[i] if i == _LENS or inputs[i] is None else _stand_in(inputs[i], i in wanted, create, dtype)
           for i in range(n)]
    ins += [None] * (len(node.op.schema.inputs) - n)  # trailing optional inputs may be left out
    # stand-ins made by Identity/Cast are sources: the walk must not go above them
    first = 1 + max((t.grad_node.seq for t in ins if isinstance(t, Tensor) and t.grad_node is not None), default=-1)
    with autograd.enable_grad():
        ys, finals = _Replay(op, attrs, ins, T, B, dtype).run()
    D = len(finals)
    H = finals[0][0].array.shape[-1]
    layout = attrs["layout"]
    targets = [y for row in ys for y in row] + [f[k] for k in range(len(finals[0])) for f in finals]
    out_grads = _per_step(grads[0], (T, D, B, H), layout, dtype)
    for k in range(len(finals[0])):
        out_grads += _per_step(grads[1 + k], (D, B, H), layout, dtype)
    found = autograd.gradient(targets, [ins[i] for i in wanted], out_grads, create_graph=create, first_seq=first)
    result = [None] * n
    for i, g in zip(wanted, found):
        if g is not None and g.array.dtype != inputs[i].array.dtype:
            g = execute("Cast", g, to=inputs[i].array.dtype)
        result[i] = g
    return tuple(result)
