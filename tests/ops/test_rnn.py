"""RNN, GRU, LSTM against the ONNX reference evaluator and a naive numpy reference.

The reference evaluator ignores ``sequence_lens``, ``clip`` and ``input_forget``
and lacks most activation functions, so those cases are checked against
``naive`` below: a deliberately plain per-sequence, per-step implementation of
the ONNX equations in float64.  ``naive`` itself is cross-checked against
onnxruntime where that is installed.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, vfw_run
from vfw.core import DTypeError, OpAttributeError, OpInputError, ShapeError, TensorInfo, get_schema

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
N_OUT = {"RNN": 2, "GRU": 2, "LSTM": 3}
N_ACTS = {"RNN": 1, "GRU": 2, "LSTM": 3}
DIRECTIONS = ["forward", "reverse", "bidirectional"]


def make_inputs(op, T=4, B=3, n_in=5, H=3, direction="forward", dtype=np.float32, *, bias=True, init=True,
                peep=True, seq=None, layout=0, seed=0):
    """[X, W, R, B, sequence_lens, initial_h(, initial_c, P)] with ``None`` for absent ones."""
    rng = np.random.default_rng(seed)
    D = 2 if direction == "bidirectional" else 1
    G = GATES[op]

    def r(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    X = r(B, T, n_in) if layout else r(T, B, n_in)
    state = (B, D, H) if layout else (D, B, H)
    ins = [X, r(D, G * H, n_in, scale=0.6), r(D, G * H, H, scale=0.6), r(D, 2 * G * H, scale=0.5) if bias else None,
           None if seq is None else np.asarray(seq, np.int32), r(*state) if init else None]
    if op == "LSTM":
        ins += [r(*state) if init else None, r(D, 3 * H, scale=0.5) if peep else None]
    return ins


# -- naive reference ------------------------------------------------------------

ACT = {
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: np.where(x >= 0, x, a * x),
    "ThresholdedRelu": lambda x, a, b: np.where(x > a, x, 0),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "HardSigmoid": lambda x, a, b: np.minimum(np.maximum(a * x + b, 0), 1),
    "Elu": lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "Softplus": lambda x, a, b: np.log(1 + np.exp(x)),
}
# (uses alpha, uses beta) -> defaults of the ONNX operators of the same name
ALPHA = {"Affine": 1.0, "LeakyRelu": 0.01, "ThresholdedRelu": 1.0, "ScaledTanh": 1.0, "HardSigmoid": 0.2, "Elu": 1.0}
BETA = {"Affine": 0.0, "ScaledTanh": 1.0, "HardSigmoid": 0.5}
CANONICAL = {name.lower(): name for name in ACT}
DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def naive(op, X, W, R, B=None, seq=None, h0=None, c0=None, P=None, *, hidden_size=None, direction="forward",
          layout=0, clip=None, activations=None, activation_alpha=None, activation_beta=None,
          linear_before_reset=0, input_forget=0):
    dtype = X.dtype
    X, W, R = (a.astype(np.float64) for a in (X, W, R))
    if layout:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    T, Bn, _ = X.shape
    D = W.shape[0]
    H = R.shape[2]
    k = N_ACTS[op]
    names = activations or DEFAULT_ACTS[op] * D
    if len(names) == k:
        names = names * D
    alphas, betas = list(activation_alpha or []), list(activation_beta or [])
    fns = []
    for name in names:
        name = CANONICAL[name.lower()]
        a = (alphas.pop(0) if alphas else ALPHA[name]) if name in ALPHA else None
        b = (betas.pop(0) if betas else BETA[name]) if name in BETA else None
        fns.append(lambda x, name=name, a=a, b=b: ACT[name](x, a, b))

    def cl(v):
        return v if clip is None else np.clip(v, -clip, clip)

    Y = np.zeros((T, D, Bn, H))
    Yh = np.zeros((D, Bn, H))
    Yc = np.zeros((D, Bn, H))
    for d in range(D):
        f = fns[d * k:(d + 1) * k]
        bias = np.zeros(2 * GATES[op] * H) if B is None else B[d].astype(np.float64)
        Wb, Rb = np.split(bias, 2)
        backwards = direction == "reverse" or d == 1
        for b in range(Bn):
            L = T if seq is None else int(seq[b])
            h = np.zeros(H) if h0 is None else h0[d, b].astype(np.float64)
            c = np.zeros(H) if c0 is None else c0[d, b].astype(np.float64)
            for t in (range(L - 1, -1, -1) if backwards else range(L)):
                x = X[t, b]
                if op == "RNN":
                    h = f[0](cl(W[d] @ x + R[d] @ h + Wb + Rb))
                elif op == "GRU":
                    Wz, Wr, Wh = np.split(W[d], 3)
                    Rz, Rr, Rh = np.split(R[d], 3)
                    wbz, wbr, wbh = np.split(Wb, 3)
                    rbz, rbr, rbh = np.split(Rb, 3)
                    z = f[0](cl(Wz @ x + Rz @ h + wbz + rbz))
                    r = f[0](cl(Wr @ x + Rr @ h + wbr + rbr))
                    if linear_before_reset:
                        hh = f[1](cl(Wh @ x + r * (Rh @ h + rbh) + wbh))
                    else:
                        hh = f[1](cl(Wh @ x + Rh @ (r * h) + rbh + wbh))
                    h = (1 - z) * hh + z * h
                else:
                    Wi, Wo, Wf, Wc = np.split(W[d], 4)
                    Ri, Ro, Rf, Rc = np.split(R[d], 4)
                    wbi, wbo, wbf, wbc = np.split(Wb, 4)
                    rbi, rbo, rbf, rbc = np.split(Rb, 4)
                    pi, po, pf = np.split(np.zeros(3 * H) if P is None else P[d].astype(np.float64), 3)
                    i = f[0](cl(Wi @ x + Ri @ h + pi * c + wbi + rbi))
                    fg = 1 - i if input_forget else f[0](cl(Wf @ x + Rf @ h + pf * c + wbf + rbf))
                    c = fg * c + i * f[1](cl(Wc @ x + Rc @ h + wbc + rbc))
                    o = f[0](cl(Wo @ x + Ro @ h + po * c + wbo + rbo))
                    h = o * f[2](c)
                Y[t, d, b] = h
            if L:  # onnxruntime: an empty sequence has zero final states
                Yh[d, b], Yc[d, b] = h, c
    if layout:
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    return [a.astype(dtype) for a in (Y, Yh, Yc)[:N_OUT[op]]]


def check_naive(op, ins, attrs, rtol=1e-4, atol=1e-5):
    ours = vfw_run(op, ins, attrs)
    expected = naive(op, *ins, **attrs)
    assert len(ours) == len(expected)
    for i, (a, e) in enumerate(zip(ours, expected)):
        assert_same(a, e, rtol, atol, what=f"{op} output {i}")
    return ours


# -- against the ONNX reference evaluator -----------------------------------------

VARIANTS = [dict(bias=True, init=True), dict(bias=False, init=False), dict(bias=True, init=False)]


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_matches_onnx(op, direction, layout, variant):
    ins = make_inputs(op, direction=direction, layout=layout, **VARIANTS[variant])
    attrs = {"hidden_size": 3, "direction": direction, "layout": layout}
    if op == "GRU":
        attrs["linear_before_reset"] = variant % 2
    check_op(op, ins, attrs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_dtypes_match_onnx(op, dtype):
    ins = make_inputs(op, direction="bidirectional", dtype=dtype, seed=3)
    tol = 1e-10 if dtype == np.float64 else 1e-2  # vfw computes float16 in float32, the oracle in float16
    check_op(op, ins, {"hidden_size": 3, "direction": "bidirectional"}, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_bfloat16(op):
    # the reference evaluator has no bfloat16 RNNs: the naive reference, in float64, rounded
    ins = make_inputs(op, direction="bidirectional", seq=[4, 1, 3], dtype=ml_dtypes.bfloat16, seed=4)
    check_naive(op, ins, {"direction": "bidirectional"}, rtol=3e-2, atol=3e-2)


def test_gru_linear_before_reset_without_bias_and_lstm_without_peepholes():
    for lbr in (0, 1):
        check_op("GRU", make_inputs("GRU", bias=False, seed=lbr), {"hidden_size": 3, "linear_before_reset": lbr})
    check_op("LSTM", make_inputs("LSTM", peep=False, direction="bidirectional"),
             {"hidden_size": 3, "direction": "bidirectional"})


def test_hidden_size_inferred_from_r():
    ins = make_inputs("LSTM", direction="reverse")
    ours = vfw_run("LSTM", ins, {"direction": "reverse"})
    for a, b in zip(ours, vfw_run("LSTM", ins, {"direction": "reverse", "hidden_size": 3})):
        np.testing.assert_array_equal(a, b)


# -- features the reference evaluator lacks: against the naive reference ------------

SEQ = [4, 2, 0, 1, 3]


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
def test_sequence_lens(op, direction, layout):
    ins = make_inputs(op, B=5, direction=direction, layout=layout, seq=SEQ, seed=7)
    Y = check_naive(op, ins, {"hidden_size": 3, "direction": direction, "layout": layout})[0]
    if layout:
        Y = Y.transpose(1, 2, 0, 3)
    # padded steps are exactly zero
    for b, L in enumerate(SEQ):
        assert not Y[L:, :, b].any()


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_sequence_lens_all_full_and_without_initial_state(op):
    ins = make_inputs(op, direction="bidirectional", seq=[4, 4, 4], init=False)
    check_naive(op, ins, {"hidden_size": 3, "direction": "bidirectional"})
    full = vfw_run(op, ins[:4] + [None] + ins[5:], {"hidden_size": 3, "direction": "bidirectional"})
    for a, b in zip(vfw_run(op, ins, {"hidden_size": 3, "direction": "bidirectional"}), full):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_clip(op, direction):
    ins = make_inputs(op, direction=direction, seed=11)
    ins[0] *= 3  # make sure the clip bites
    attrs = {"hidden_size": 3, "direction": direction, "clip": 0.6}
    if op == "GRU":
        for lbr in (0, 1):
            check_naive(op, ins, dict(attrs, linear_before_reset=lbr))
    else:
        check_naive(op, ins, attrs)


@pytest.mark.parametrize("peep", [False, True])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_lstm_input_forget(peep, direction):
    ins = make_inputs("LSTM", direction=direction, peep=peep, seed=5)
    check_naive("LSTM", ins, {"hidden_size": 3, "direction": direction, "input_forget": 1})
    check_naive("LSTM", ins, {"hidden_size": 3, "direction": direction, "input_forget": 1, "clip": 0.5})


ACTIVATION_CASES = [
    ("RNN", ["Relu"], None, None),
    ("RNN", ["Softplus", "Softsign"], None, None),
    ("RNN", ["Affine"], [0.5], [0.2]),
    ("RNN", ["Affine", "ThresholdedRelu"], None, None),
    ("RNN", ["ScaledTanh"], None, None),
    ("GRU", ["HardSigmoid", "Elu"], None, None),
    ("GRU", ["HardSigmoid", "LeakyRelu", "Sigmoid", "ScaledTanh"], [0.3, 0.2, 1.5], [0.4, 0.7]),
    ("GRU", ["Sigmoid", "Relu"], None, None),
    ("LSTM", ["HardSigmoid", "Softsign", "Elu"], [0.25, 0.5], [0.45]),
    ("LSTM", ["Sigmoid", "LeakyRelu", "Tanh", "Sigmoid", "Tanh", "ThresholdedRelu"], [0.2, 0.1], None),
    ("LSTM", ["sigmoid", "tanh", "softplus"], None, None),  # names are case-insensitive, as in onnxruntime
]


@pytest.mark.parametrize("case", ACTIVATION_CASES, ids=lambda c: "-".join([c[0]] + c[1]))
def test_activations(case):
    op, acts, alpha, beta = case
    D = 2 if len(acts) == 2 * N_ACTS[op] else 1
    direction = "bidirectional" if D == 2 else "forward"
    ins = make_inputs(op, direction=direction, seed=2)
    attrs = {"hidden_size": 3, "direction": direction, "activations": acts,
             "activation_alpha": alpha, "activation_beta": beta}
    check_naive(op, ins, {k: v for k, v in attrs.items() if v is not None})


def test_rnn_schema_default_activation_list_is_accepted():
    ins = make_inputs("RNN")
    for a, b in zip(vfw_run("RNN", ins, {"activations": ["Tanh", "Tanh"]}), vfw_run("RNN", ins, {})):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_empty_sequence_and_batch(op):
    for T, B in ((0, 3), (4, 0)):
        ins = make_inputs(op, T=T, B=B, direction="bidirectional")
        check_naive(op, ins, {"direction": "bidirectional"})


# -- the naive reference against onnxruntime -----------------------------------------


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_naive_reference_matches_onnxruntime(op):
    ort = pytest.importorskip("onnxruntime")
    from onnx import helper

    from vfw.core import dtypes as dt

    def ort_run(ins, attrs):
        names = ["" if x is None else f"x{i}" for i, x in enumerate(ins)]
        while names[-1] == "":
            names.pop()
        outs = [f"y{i}" for i in range(N_OUT[op])]
        graph = helper.make_graph(
            [helper.make_node(op, names, outs, **attrs)], "g",
            [helper.make_tensor_value_info(n, dt.onnx_code(x.dtype), x.shape) for n, x in zip(names, ins) if n],
            [helper.make_tensor_value_info(o, 1, None) for o in outs])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, {n: x for n, x in zip(names, ins) if n})

    acts = {"RNN": ["Affine", "ThresholdedRelu"], "GRU": ["HardSigmoid", "ScaledTanh", "Elu", "LeakyRelu"],
            "LSTM": ["HardSigmoid", "Softsign", "Elu", "Sigmoid", "ScaledTanh", "Softplus"]}[op]
    extra = {"GRU": {"linear_before_reset": 1}, "LSTM": {"input_forget": 1}}.get(op, {})
    ins = make_inputs(op, B=5, direction="bidirectional", seq=SEQ, seed=9)
    ins[0] *= 2
    # onnxruntime's defaults for Affine, ThresholdedRelu and ScaledTanh differ from the spec: pass all values
    attrs = dict(extra, hidden_size=3, direction="bidirectional", clip=0.9, activations=acts,
                 activation_alpha=[0.7, 0.4, 0.9, 0.3, 1.2, 0.5], activation_beta=[0.2, 0.6, 0.1, 0.8])
    for a, e in zip(ort_run(ins, attrs), naive(op, *ins, **attrs)):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)
    check_naive(op, ins, attrs)


# -- shape inference ------------------------------------------------------------------


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("layout", [0, 1])
def test_infer(op, layout):
    schema = get_schema(op)
    ins = make_inputs(op, direction="bidirectional", layout=layout, dtype=np.float64)
    attrs = {"direction": "bidirectional", "layout": layout}
    ours = vfw_run(op, ins, attrs)
    infos = [None if x is None else TensorInfo(x.shape, x.dtype) for x in ins]
    got = schema.infer(schema.bind_attrs(attrs), infos)
    assert got == [TensorInfo(y.shape, y.dtype) for y in ours]
    got = schema.infer(schema.bind_attrs(dict(attrs, hidden_size=3)), infos)
    assert got == [TensorInfo(y.shape, y.dtype) for y in ours]


# -- bad input ------------------------------------------------------------------------


def test_w_inconsistent_with_hidden_size():
    ins = make_inputs("LSTM", H=3)
    with pytest.raises(ShapeError, match=r"LSTM: W has shape \[1, 12, 5\], expected \[1, 16, 5\]"):
        vfw_run("LSTM", ins, {"hidden_size": 4})
    with pytest.raises(ShapeError, match=r"GRU: R has shape \[1, 9, 2\], expected \[1, 9, 3\]"):
        ins = make_inputs("GRU")
        ins[2] = ins[2][..., :2]
        vfw_run("GRU", ins, {"hidden_size": 3})


def test_bad_shapes():
    ins = make_inputs("RNN", direction="bidirectional")
    with pytest.raises(ShapeError, match=r"RNN: W has shape \[2, 3, 5\], expected \[1, 3, 5\].*forward"):
        vfw_run("RNN", ins, {"hidden_size": 3})
    with pytest.raises(ShapeError, match=r"RNN: X must be 3-D, got float32\[3, 5\]"):
        vfw_run("RNN", [ins[0][0]] + ins[1:], {"hidden_size": 3, "direction": "bidirectional"})
    with pytest.raises(ShapeError, match=r"RNN: R must be 3-D, got float32\[6, 3\]"):
        vfw_run("RNN", ins[:2] + [ins[2].reshape(6, 3)] + ins[3:], {"direction": "bidirectional"})
    bad_b = list(ins)
    bad_b[3] = bad_b[3][:, :4]
    with pytest.raises(ShapeError, match=r"RNN: B has shape \[2, 4\], expected \[2, 6\]"):
        vfw_run("RNN", bad_b, {"direction": "bidirectional"})
    bad_h = list(ins)
    bad_h[5] = bad_h[5][:1]
    with pytest.raises(ShapeError, match=r"RNN: initial_h has shape \[1, 3, 3\], expected \[2, 3, 3\]"):
        vfw_run("RNN", bad_h, {"direction": "bidirectional"})
    ins = make_inputs("LSTM")
    ins[7] = ins[7][:, :6]
    with pytest.raises(ShapeError, match=r"LSTM: P has shape \[1, 6\], expected \[1, 9\]"):
        vfw_run("LSTM", ins, {})


def test_bad_attributes():
    ins = make_inputs("GRU")
    with pytest.raises(OpAttributeError, match="GRU: attribute 'direction'"):
        vfw_run("GRU", ins, {"direction": "sideways"})
    with pytest.raises(OpAttributeError, match="GRU: attribute 'activations'.*'Swish'"):
        vfw_run("GRU", ins, {"activations": ["Sigmoid", "Swish"]})
    with pytest.raises(OpAttributeError, match="GRU: 'activations' needs 2 function"):
        vfw_run("GRU", ins, {"activations": ["Sigmoid", "Tanh", "Tanh"]})
    with pytest.raises(OpAttributeError, match=r"GRU: 'activations' needs 2 function\(s\) per direction \(4 in all\)"):
        vfw_run("GRU", make_inputs("GRU", direction="bidirectional"),
                {"activations": ["Sigmoid", "Tanh"], "direction": "bidirectional"})
    with pytest.raises(OpAttributeError, match="GRU: attribute 'layout'"):
        vfw_run("GRU", ins, {"layout": 2})
    with pytest.raises(OpAttributeError, match="GRU: attribute 'hidden_size'"):
        vfw_run("GRU", ins, {"hidden_size": 0})
    with pytest.raises(OpAttributeError, match="GRU: attribute 'clip'"):
        vfw_run("GRU", ins, {"clip": -1.0})


def test_bad_sequence_lens_and_dtypes():
    ins = make_inputs("RNN", seq=[4, 5, 1])
    with pytest.raises(OpInputError, match=r"RNN: sequence_lens must lie in \[0, 4\].*\[4, 5, 1\]"):
        vfw_run("RNN", ins, {})
    ins[4] = np.array([4, 4, 1], np.int64)
    with pytest.raises(DTypeError, match="RNN: input 'sequence_lens' has dtype int64"):
        vfw_run("RNN", ins, {})
    ins[4] = np.array([4, 4], np.int32)
    with pytest.raises(ShapeError, match=r"RNN: sequence_lens has shape \[2\], expected \[3\]"):
        vfw_run("RNN", ins, {})
    ins = make_inputs("RNN")
    ins[1] = ins[1].astype(np.float64)
    with pytest.raises(DTypeError, match="RNN: inputs 'X' .* and 'W'"):
        vfw_run("RNN", ins, {})
