"""Recurrent layers: RNN, GRU, LSTM (ONNX semantics, one layer, optional bidirectional).

All three share one driver: the input projection ``X @ W^T`` (plus the biases
that can be folded in) is computed for every time step in one matmul, then a
Python loop over the time steps runs the recurrence for both directions at once
(a batched matmul over the direction axis).  The reverse direction reads the
projected input flipped in time, so step ``s`` of every direction is one slice.

Variable sequence lengths (``sequence_lens``) are handled with masks over the
batch: a step past a sequence's end leaves its state unchanged and writes zeros
into ``Y``, so the final state is the one of the last valid step, and the
reverse direction starts at each sequence's own last valid step.  A sequence of
length 0 (or ``X`` with no time steps) has zero final states, as in onnxruntime.

Where the spec leaves room, onnxruntime's choices are followed: ``clip`` bounds
the gate pre-activations (the LSTM cell state is not clipped before ``h``);
``activation_alpha``/``activation_beta`` are consumed in list order by the
functions that take them.  Unlike onnxruntime, omitted alphas/betas take the
ONNX operators' defaults, as the spec says.

float16 and bfloat16 inputs are computed in float32 and rounded once at the end.
Gradients: ``rnn_grad`` (the recurrence replayed in engine ops and differentiated), or one fused
kernel (``rnn_bptt``) for the configurations PyTorch uses, whose forward runs the in-place loops of
``rnn_train``.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import OpAttributeError, OpInputError, ShapeError
from vfw.core.ops._common import positive
from vfw.core.registry import Attr, TensorInfo, defop, describe

# -- activation functions ---------------------------------------------------------


def _sigmoid(x):
    # tanh form: no overflow for large |x|, one transcendental per element
    y = np.multiply(x, 0.5)
    np.tanh(y, out=y)
    y *= 0.5
    y += 0.5
    return y


def _make_activation(name, alpha, beta):
    """Elementwise function ``fn(x) -> new array`` for one RNN activation name."""
    if name == "relu":
        return lambda x: np.maximum(x, 0)
    if name == "tanh":
        return np.tanh
    if name == "sigmoid":
        return _sigmoid
    if name == "affine":
        return lambda x: x * alpha + beta
    if name == "leakyrelu":
        return lambda x: np.where(x >= 0, x, x * alpha)
    if name == "thresholdedrelu":  # strict, as the ThresholdedRelu operator (and onnxruntime)
        return lambda x: np.where(x > alpha, x, 0).astype(x.dtype, copy=False)
    if name == "scaledtanh":
        return lambda x: np.tanh(x * beta) * alpha
    if name == "hardsigmoid":
        return lambda x: np.clip(x * alpha + beta, 0, 1)
    if name == "elu":
        # exp only of the non-positive part: no overflow, exact x for x >= 0
        return lambda x: np.maximum(x, 0) + alpha * np.expm1(np.minimum(x, 0))
    if name == "softsign":
        return lambda x: x / (1 + np.abs(x))
    if name == "softplus":
        return lambda x: np.logaddexp(x, 0).astype(x.dtype, copy=False)
    raise AssertionError(name)


# name -> (display name, default alpha or None if unused, default beta or None if unused).
# Defaults are those of the ONNX operators of the same name, as the spec says (onnxruntime
# uses 0 for Affine, ThresholdedRelu and ScaledTanh); ScaledTanh has no ONNX default: 1, 1.
_ACTIVATIONS = {
    "relu": ("Relu", None, None),
    "tanh": ("Tanh", None, None),
    "sigmoid": ("Sigmoid", None, None),
    "affine": ("Affine", 1.0, 0.0),
    "leakyrelu": ("LeakyRelu", 0.01, None),
    "thresholdedrelu": ("ThresholdedRelu", 1.0, None),
    "scaledtanh": ("ScaledTanh", 1.0, 1.0),
    "hardsigmoid": ("HardSigmoid", 0.2, 0.5),
    "elu": ("Elu", 1.0, None),
    "softsign": ("Softsign", None, None),
    "softplus": ("Softplus", None, None),
}


def _check_activations(names):
    bad = [n for n in names if n.lower() not in _ACTIVATIONS]
    if bad:
        known = ", ".join(v[0] for v in _ACTIVATIONS.values())
        return f"unknown activation(s) {', '.join(map(repr, bad))} (known: {known})"
    return None


def _per_direction(fns):
    """One function applying ``fns[d]`` to slice ``d`` of a [D, ...] array (or ``fns[0]`` if all equal)."""
    if len(set(key for key, _ in fns)) == 1:
        return fns[0][1]
    parts = [fn for _, fn in fns]

    def apply(x):
        return np.stack([fn(x[d]) for d, fn in enumerate(parts)])

    return apply


def _activation_specs(op, names, alphas, betas, defaults, num_dirs):
    """``(key, alpha, beta)`` per direction and gate slot (index ``d * k + j``), validated.

    ``activation_alpha`` and ``activation_beta`` are consumed in the order of
    the activation list by the functions that take them (missing ones get the
    ONNX defaults), as onnxruntime does.
    """
    k = len(defaults)
    names = list(defaults) * num_dirs if names is None else list(names)
    if op == "RNN" and num_dirs == 1 and len(names) == 2:
        names = names[:1]  # RNN's schema default, ["Tanh", "Tanh"], lists both directions
    if len(names) != k * num_dirs:
        raise OpAttributeError(
            f"{op}: 'activations' needs {k} function(s) per direction ({k * num_dirs} in all), "
            f"got {len(names)}: {names}"
        )
    alphas = list(alphas or ())
    betas = list(betas or ())
    specs = []
    for name in names:
        key = name.lower()
        _, alpha, beta = _ACTIVATIONS[key]
        if alpha is not None and alphas:
            alpha = alphas.pop(0)
        if beta is not None and betas:
            beta = betas.pop(0)
        specs.append((key, alpha, beta))
    return specs


def _resolve_activations(op, names, alphas, betas, defaults, num_dirs):
    """Per gate slot, a function of a [num_directions, ...] array."""
    k = len(defaults)
    resolved = [(spec, _make_activation(*spec)) for spec in _activation_specs(op, names, alphas, betas, defaults,
                                                                               num_dirs)]
    return [_per_direction([resolved[d * k + j] for d in range(num_dirs)]) for j in range(k)]


# -- shared driver ----------------------------------------------------------------


def _as_compute(a, dtype):
    return None if a is None else a.astype(dtype, copy=False)


class _Setup:
    """Checked, layout-normalized inputs of one call (time-major, compute dtype)."""

    __slots__ = ("xs", "rt", "bias_r", "h0", "c0", "p", "valid", "empty", "T", "B", "H", "D", "dtype")


def _prepare(cfg, gates, x, w, r, b, seq_lens, h0, c0=None, p=None, fold_rh_bias=True, project=True):
    """Validate shapes, transpose layout 1, project the input for all steps.

    ``xs[s]`` (shape [D, B, G*H]) is the projected input (with the W bias and
    the foldable R biases) that step ``s`` of each direction consumes
    (None without ``project``: a gradient kernel given saved gates needs none).
    """
    op, D = cfg["op"], cfg["D"]
    dtype = x.dtype if x.dtype in (dt.float32, dt.float64) else dt.float32
    for name, a in (("X", x), ("W", w), ("R", r)):
        if a.ndim != 3:
            raise ShapeError(f"{op}: {name} must be 3-D, got {describe(a)}")
    if cfg["layout"]:
        B, T, n_in = x.shape
    else:
        T, B, n_in = x.shape
    H = cfg["hidden_size"]
    if H is None:
        H = r.shape[-1]
    GH = gates * H
    expect = {
        "W": (w, (D, GH, n_in)), "R": (r, (D, GH, H)), "B": (b, (D, 2 * GH)),
        "initial_h": (h0, (B, D, H) if cfg["layout"] else (D, B, H)),
        "initial_c": (c0, (B, D, H) if cfg["layout"] else (D, B, H)),
        "P": (p, (D, 3 * H)), "sequence_lens": (seq_lens, (B,)),
    }
    for name, (a, shape) in expect.items():
        if a is not None and a.shape != shape:
            raise ShapeError(
                f"{op}: {name} has shape {list(a.shape)}, expected {list(shape)} "
                f"(X: {describe(x)}, W: {describe(w)}, R: {describe(r)}, hidden_size={H}, "
                f"direction={cfg['direction']!r}, {gates} gate(s))"
            )
    s = _Setup()
    s.T, s.B, s.H, s.D, s.dtype = T, B, H, D, dtype
    if cfg["layout"]:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    w, r, b = _as_compute(w, dtype), _as_compute(r, dtype), _as_compute(b, dtype)
    x = x.astype(dtype, copy=False)
    s.bias_r = None
    if b is not None and not fold_rh_bias:  # GRU linear_before_reset: Rbh is scaled by the reset gate
        s.bias_r = b[:, None, GH + 2 * H:]
    reverse = cfg["reverse"]
    s.xs = None
    if project:
        xw = np.matmul(x.reshape(T * B, n_in), w.transpose(0, 2, 1)).reshape(D, T, B, GH)
        if b is not None:
            bias = b[:, :GH] + b[:, GH:]
            if not fold_rh_bias:
                bias[:, 2 * H:] = b[:, 2 * H:GH]
            xw += bias[:, None, None, :]
        if all(reverse):
            xw = xw[:, ::-1]
        elif any(reverse):
            xw[1] = xw[1, ::-1].copy()
        s.xs = xw.transpose(1, 0, 2, 3)
    s.rt = np.ascontiguousarray(r.transpose(0, 2, 1))  # BLAS reads a contiguous R^T faster, every step
    s.h0 = np.zeros((D, B, H), dtype) if h0 is None else h0.astype(dtype, copy=False)
    s.c0 = np.zeros((D, B, H), dtype) if c0 is None else c0.astype(dtype, copy=False)
    s.p = None if p is None else _as_compute(p, dtype)[:, None, :]
    s.valid = s.empty = None
    if seq_lens is not None and B:
        lo, hi = int(seq_lens.min()), int(seq_lens.max())
        if lo < 0 or hi > T:
            raise OpInputError(f"{op}: sequence_lens must lie in [0, {T}] (seq_length), got {seq_lens.tolist()}")
        if lo < T:
            steps = np.arange(T)
            tidx = np.stack([T - 1 - steps if rev else steps for rev in reverse], axis=1)  # [T, D]
            s.valid = (tidx[:, :, None] < seq_lens[None, None, :])[..., None]  # [T, D, B, 1]
        if lo == 0:
            s.empty = (seq_lens == 0)[None, :, None]
    if T == 0:  # every sequence is empty
        s.empty = np.ones((1, B, 1), dt.bool_)
    return s


def _finish(cfg, ys, states, out_dtype):
    """Put step-ordered outputs in time order and the requested layout."""
    reverse = cfg["reverse"]
    if all(reverse):
        ys = ys[::-1]
    elif any(reverse):
        ys[:, 1] = ys[::-1, 1].copy()
    if cfg["layout"]:
        ys = ys.transpose(2, 0, 1, 3)
        states = [st.transpose(1, 0, 2) for st in states]
    return tuple(np.ascontiguousarray(a, dtype=out_dtype) for a in (ys, *states))


def _run(s, step, n_states):
    """Run ``step(s_index, states) -> (h_new, new_states)`` over time with masking."""
    ys = np.empty((s.T, s.D, s.B, s.H), s.dtype)
    states = [s.h0, s.c0][:n_states]
    valid = s.valid
    for t in range(s.T):
        new = step(t, states)
        if valid is None:
            states = new
            ys[t] = new[0]
        else:
            v = valid[t]
            states = [np.where(v, n, o) for n, o in zip(new, states)]
            ys[t] = np.where(v, new[0], 0)
    if s.empty is not None:
        states = [np.where(s.empty, 0, st) for st in states]
    return ys, states


def _infer(n_out):
    def infer(attrs, infos):
        x, r = infos[0], infos[2]
        dtype = x.dtype
        D = 2 if attrs["direction"] == "bidirectional" else 1
        H = attrs["hidden_size"]
        if H is None and r.shape is not None and len(r.shape) == 3:
            H = r.shape[2]
        if x.shape is None or len(x.shape) != 3:
            return [TensorInfo(None, dtype)] * n_out
        if attrs["layout"]:
            B, T = x.shape[:2]
            y, yh = (B, T, D, H), (B, D, H)
        else:
            T, B = x.shape[:2]
            y, yh = (T, D, B, H), (D, B, H)
        return [TensorInfo(y, dtype)] + [TensorInfo(yh, dtype)] * (n_out - 1)

    return infer


_COMMON_ATTRS = {
    "activation_alpha": Attr("floats", None),
    "activation_beta": Attr("floats", None),
    "activations": Attr("strings", None, check=_check_activations),
    "clip": Attr("float", None, check=positive),
    "direction": Attr("string", "forward", choices=("forward", "reverse", "bidirectional")),
    "hidden_size": Attr("int", None, check=positive),
    "layout": Attr("int", 0, choices=(0, 1)),
}


def _config(op, direction, hidden_size, layout, clip):
    D = 2 if direction == "bidirectional" else 1
    reverse = {"forward": (False,), "reverse": (True,), "bidirectional": (False, True)}[direction]
    return {"op": op, "D": D, "reverse": reverse, "hidden_size": hidden_size, "layout": layout,
            "direction": direction, "clip": clip}


def _clipper(clip):
    if clip is None:
        return lambda a: a
    return lambda a: np.clip(a, -clip, clip, out=a)


# -- ops --------------------------------------------------------------------------


@defop("RNN", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T",
       outputs="Y?:T Y_h?:T", types={"T": dt.FLOATS, "T1": {dt.int32}},
       attrs=dict(_COMMON_ATTRS), infer=_infer(2))
def rnn(activation_alpha, activation_beta, activations, clip, direction, hidden_size, layout):
    """Simple one-layer RNN: ``H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)``."""
    cfg = _config("RNN", direction, hidden_size, layout, clip)
    (f,) = _resolve_activations("RNN", activations, activation_alpha, activation_beta, ("Tanh",), cfg["D"])
    clipped = _clipper(clip)

    def kernel(x, w, r, b=None, sequence_lens=None, initial_h=None):
        s = _prepare(cfg, 1, x, w, r, b, sequence_lens, initial_h)
        xs, rt = s.xs, s.rt

        def step(t, states):
            return [f(clipped(xs[t] + np.matmul(states[0], rt)))]

        ys, states = _run(s, step, 1)
        return _finish(cfg, ys, states, x.dtype)

    return kernel


@defop("GRU", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T",
       outputs="Y?:T Y_h?:T", types={"T": dt.FLOATS, "T1": {dt.int32}},
       attrs=dict(_COMMON_ATTRS, linear_before_reset=Attr("int", 0)), infer=_infer(2))
def gru(activation_alpha, activation_beta, activations, clip, direction, hidden_size, layout, linear_before_reset):
    """One-layer GRU (gate order z, r, h in W, R and B)."""
    cfg = _config("GRU", direction, hidden_size, layout, clip)
    f, g = _resolve_activations("GRU", activations, activation_alpha, activation_beta, ("Sigmoid", "Tanh"), cfg["D"])
    clipped = _clipper(clip)
    lbr = bool(linear_before_reset)
    fast = rnn_bptt.fused_config("GRU", {"activation_alpha": activation_alpha, "activation_beta": activation_beta,
                                         "activations": activations, "clip": clip, "direction": direction,
                                         "linear_before_reset": linear_before_reset})

    def kernel(x, w, r, b=None, sequence_lens=None, initial_h=None):
        s = _prepare(cfg, 3, x, w, r, b, sequence_lens, initial_h, fold_rh_bias=not lbr)
        if fast:  # PyTorch's configuration: the in-place loop GRUTrain runs
            ys, states = rnn_train.gru_steps(s)[:2]
            return _finish(cfg, ys, states, x.dtype)
        xs, rt, H, bias_r = s.xs, s.rt, s.H, s.bias_r
        H2 = 2 * H
        rt_zr, rt_h = rt[..., :H2], rt[..., H2:]

        def step(t, states):
            h = states[0]
            xt = xs[t]
            if lbr:
                hr = np.matmul(h, rt)
                zr = f(clipped(xt[..., :H2] + hr[..., :H2]))
                rh = hr[..., H2:]
                if bias_r is not None:
                    rh += bias_r
                cand = xt[..., H2:] + zr[..., H:] * rh
            else:
                zr = f(clipped(xt[..., :H2] + np.matmul(h, rt_zr)))
                cand = xt[..., H2:] + np.matmul(zr[..., H:] * h, rt_h)
            cand = g(clipped(cand))
            # (1 - z) * cand + z * h
            return [cand + zr[..., :H] * (h - cand)]

        ys, states = _run(s, step, 1)
        return _finish(cfg, ys, states, x.dtype)

    return kernel


@defop("LSTM", inputs="X:T W:T R:T B?:T sequence_lens?:T1 initial_h?:T initial_c?:T P?:T",
       outputs="Y?:T Y_h?:T Y_c?:T", types={"T": dt.FLOATS, "T1": {dt.int32}},
       attrs=dict(_COMMON_ATTRS, input_forget=Attr("int", 0)), infer=_infer(3))
def lstm(activation_alpha, activation_beta, activations, clip, direction, hidden_size, layout, input_forget):
    """One-layer LSTM (gate order i, o, f, c in W, R and B; peepholes i, o, f in P)."""
    cfg = _config("LSTM", direction, hidden_size, layout, clip)
    f, g, hf = _resolve_activations("LSTM", activations, activation_alpha, activation_beta,
                                    ("Sigmoid", "Tanh", "Tanh"), cfg["D"])
    clipped = _clipper(clip)
    coupled = bool(input_forget)
    fast = rnn_bptt.fused_config("LSTM", {"activation_alpha": activation_alpha, "activation_beta": activation_beta,
                                          "activations": activations, "clip": clip, "direction": direction,
                                          "input_forget": input_forget})

    def kernel(x, w, r, b=None, sequence_lens=None, initial_h=None, initial_c=None, P=None):
        s = _prepare(cfg, 4, x, w, r, b, sequence_lens, initial_h, initial_c, P)
        if fast and P is None:  # PyTorch's configuration: the in-place loop LSTMTrain runs
            ys, states = rnn_train.lstm_steps(s)[:2]
            return _finish(cfg, ys, states, x.dtype)
        xs, rt, H, p = s.xs, s.rt, s.H, s.p
        H2, H3 = 2 * H, 3 * H
        if p is not None:
            p_i, p_o, p_f = p[..., :H], p[..., H:H2], p[..., H2:]

        def step(t, states):
            h, c = states
            gates = xs[t] + np.matmul(h, rt)
            if p is None:
                clipped(gates)  # in place; clip is elementwise, so once for all gates
                iof = f(gates[..., :H3])
                i, o, fg = iof[..., :H], iof[..., H:H2], iof[..., H2:]
            else:  # peepholes enter before the clip
                i = f(clipped(gates[..., :H] + p_i * c))
                fg = None if coupled else f(clipped(gates[..., H2:H3] + p_f * c))
            if coupled:
                fg = 1 - i
            c_new = fg * c + i * g(clipped(gates[..., H3:]) if p is not None else gates[..., H3:])
            if p is not None:
                o = f(clipped(gates[..., H:H2] + p_o * c_new))
            return [o * hf(c_new), c_new]

        ys, states = _run(s, step, 2)
        return _finish(cfg, ys, states, x.dtype)

    return kernel


# The gradient makers and the fast loops import helpers from this module, so they come last.
from vfw.core.ops import rnn_bptt, rnn_grad, rnn_train  # noqa: E402,F401
