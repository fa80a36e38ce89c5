"""Gradients of RNN, GRU and LSTM against float64 finite differences of the kernels.

Tiny sizes (T <= 3, B <= 2, I <= 2, H <= 2) keep the finite differences fast.
Random inputs keep pre-activations away from the kinks (clip bounds, Relu at 0).
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, autograd_tape, execute, run

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
OPS = list(GATES)
DIRECTIONS = ["forward", "reverse", "bidirectional"]


def make_inputs(op, T=3, B=2, n_in=2, H=2, direction="forward", layout=0, bias=True, h0=True, c0=True, peep=True,
                lens=None, scale=0.7, seed=0):
    """RNN/GRU/LSTM inputs in schema order (None where absent)."""
    rng = np.random.default_rng(seed)
    D = 2 if direction == "bidirectional" else 1
    G = GATES[op]
    state = (B, D, H) if layout else (D, B, H)
    ins = [
        rng.standard_normal((B, T, n_in) if layout else (T, B, n_in)),
        rng.standard_normal((D, G * H, n_in)) * scale,
        rng.standard_normal((D, G * H, H)) * scale,
        rng.standard_normal((D, 2 * G * H)) * 0.5 if bias else None,
        None if lens is None else np.array(lens, np.int32),
        rng.standard_normal(state) if h0 else None,
    ]
    if op == "LSTM":
        ins += [rng.standard_normal(state) if c0 else None, rng.standard_normal((D, 3 * H)) if peep else None]
    return ins


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
def test_directions_and_layouts(op, direction, layout):
    ins = make_inputs(op, direction=direction, layout=layout, lens=[3, 2])
    check_gradient(op, ins, {"direction": direction, "layout": layout})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_without_optional_inputs(op, direction):
    ins = make_inputs(op, direction=direction, bias=False, h0=False, c0=False, peep=False)
    check_gradient(op, ins, {"direction": direction})
    check_gradient(op, ins[:3], {"direction": direction})  # trailing optional inputs left out, not None
    ins = make_inputs(op, direction=direction, h0=False, c0=False, peep=False)
    check_gradient(op, ins[:4], {"direction": direction})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("lens", [[2, 0], [1, 3], [3, 3]])
@pytest.mark.parametrize("layout", [0, 1])
def test_sequence_lens(op, lens, layout):
    # padded steps contribute nothing; a zero-length sequence has zero final states
    ins = make_inputs(op, direction="bidirectional", layout=layout, lens=lens, seed=1)
    check_gradient(op, ins, {"direction": "bidirectional", "layout": layout})


def test_padded_steps_get_no_gradient():
    ins = make_inputs("LSTM", direction="bidirectional", lens=[1, 3])
    x = Tensor(ins[0], requires_grad=True)
    y, _, _ = execute("LSTM", x, *ins[1:], direction="bidirectional")
    (gx,) = autograd.gradient([y], [x])
    assert np.all(gx.array[1:, 0] == 0) and np.all(gx.array[:, 1] != 0)


@pytest.mark.parametrize("op", OPS)
def test_only_some_inputs_and_outputs(op):
    ins = make_inputs(op, direction="bidirectional", lens=[3, 1])
    check_gradient(op, ins, {"direction": "bidirectional"}, wrt=[0, 2], outputs=[1])
    check_gradient(op, ins, {"direction": "bidirectional"}, wrt=[1, 5], outputs=[0])


@pytest.mark.parametrize("lbr", [0, 1])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_gru_linear_before_reset(lbr, bias, direction):
    ins = make_inputs("GRU", direction=direction, bias=bias, lens=[3, 2], seed=2)
    check_gradient("GRU", ins, {"direction": direction, "linear_before_reset": lbr})


@pytest.mark.parametrize("peep", [True, False])
@pytest.mark.parametrize("direction", ["reverse", "bidirectional"])
def test_lstm_input_forget(peep, direction):
    ins = make_inputs("LSTM", direction=direction, peep=peep, lens=[2, 3], seed=3)
    check_gradient("LSTM", ins, {"direction": direction, "input_forget": 1})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_clip(op, direction):
    # large weights: some pre-activations are clipped (zero gradient there), others not
    ins = make_inputs(op, direction=direction, lens=[3, 2], scale=1.5, seed=4)
    check_gradient(op, ins, {"direction": direction, "clip": 0.8})


@pytest.mark.parametrize("op", OPS)
def test_gradient_is_zero_where_everything_is_clipped(op):
    ins = make_inputs(op, h0=False, c0=False, peep=False, bias=False, seed=5)
    ins[0] = np.sign(ins[0]) * (np.abs(ins[0]) + 1) * 100  # every gate pre-activation far beyond the bound
    ins[1] = np.ones_like(ins[1])
    attrs = {"clip": 1e-3}
    tensors = [None if a is None else Tensor(a, requires_grad=True) for a in ins]
    outs = execute(op, *tensors, **attrs)
    grads = autograd.gradient(list(outs), [tensors[i] for i in (0, 1, 2)])
    for g in grads:
        assert g is None or not np.any(g.array)


ACTIVATION_CASES = {
    "RNN": [
        ({"activations": ["Relu"]}, "forward"),
        ({"activations": ["Affine", "LeakyRelu"], "activation_alpha": [0.7, 0.2], "activation_beta": [0.3]},
         "bidirectional"),
        ({"activations": ["ScaledTanh"], "activation_alpha": [1.5], "activation_beta": [0.8]}, "reverse"),
        ({"activations": ["Elu", "Softsign"], "activation_alpha": [0.9]}, "bidirectional"),
        ({"activations": ["Softplus"]}, "forward"),
        ({"activations": ["ThresholdedRelu"], "activation_alpha": [0.1]}, "forward"),
    ],
    "GRU": [
        ({"activations": ["HardSigmoid", "Softsign"], "activation_alpha": [0.3], "activation_beta": [0.4]},
         "forward"),
        ({"activations": ["Sigmoid", "Relu", "HardSigmoid", "Elu"]}, "bidirectional"),
    ],
    "LSTM": [
        ({"activations": ["Sigmoid", "Softsign", "ScaledTanh"], "activation_alpha": [0.9],
          "activation_beta": [1.2]}, "forward"),
        ({"activations": ["HardSigmoid", "Tanh", "Affine", "Sigmoid", "Softplus", "Tanh"]}, "bidirectional"),
    ],
}


@pytest.mark.parametrize("op,attrs,direction", [(op, a, d) for op, cases in ACTIVATION_CASES.items()
                                                for a, d in cases])
def test_activations(op, attrs, direction):
    ins = make_inputs(op, direction=direction, lens=[3, 2], seed=6)
    check_gradient(op, ins, dict(attrs, direction=direction))


@pytest.mark.parametrize("op", OPS)
def test_empty_sequences_give_zero_gradients(op):
    ins = make_inputs(op, lens=[0, 0])
    check_gradient(op, ins, {})
    ins = make_inputs(op, T=0)
    check_gradient(op, ins, {})


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision_gradients(op, dtype):
    ins = make_inputs(op, direction="bidirectional", lens=[3, 1], seed=7)
    attrs = {"direction": "bidirectional"}
    weights = [np.random.default_rng(8).standard_normal(o.shape) for o in run(op, *ins, **attrs)]

    def grads(arrays):
        tensors = [None if a is None or a.dtype.kind != "f" else Tensor(a, requires_grad=True) for a in arrays]
        tensors[4] = arrays[4]
        outs = execute(op, *tensors, **attrs)
        vs = [Tensor(w.astype(arrays[0].dtype)) for w in weights]
        return autograd.gradient(list(outs), [t for t in tensors if isinstance(t, Tensor)], vs)

    exact = grads(ins)
    low = grads([a if a is None or a.dtype.kind != "f" else a.astype(dtype) for a in ins])
    tol = 2e-5 if dtype == np.float32 else 3e-2
    for e, g in zip(exact, low):
        assert g.dtype == dtype
        np.testing.assert_allclose(g.array.astype(np.float64), e.array, rtol=tol, atol=tol)


@pytest.mark.parametrize("op,attrs", [
    ("RNN", {"direction": "bidirectional", "clip": 1.0}),
    ("GRU", {"direction": "reverse", "linear_before_reset": 1}),
    ("GRU", {"layout": 1}),
    ("LSTM", {"direction": "bidirectional", "clip": 2.0}),
    ("LSTM", {"input_forget": 1, "layout": 1}),
])
def test_second_order(op, attrs):
    D = 2 if attrs.get("direction") == "bidirectional" else 1
    ins = make_inputs(op, T=2, B=2, n_in=1, H=1, direction=attrs.get("direction", "forward"),
                      layout=attrs.get("layout", 0), lens=[2, 1], seed=9)
    assert ins[1].shape[0] == D
    check_higher_order(op, ins, attrs, order=2)


@pytest.mark.parametrize("op", OPS)
def test_third_order(op):
    check_higher_order(op, make_inputs(op, T=2, B=1, n_in=1, H=1, lens=[2], seed=3), {"direction": "reverse"},
                       order=3)


def test_gradient_tape_second_order():
    ins = make_inputs("LSTM", T=2, B=1, n_in=1, H=1, seed=10)
    x = Tensor(ins[0])
    with autograd_tape.GradientTape() as outer:
        outer.watch(x)
        with autograd_tape.GradientTape() as inner:
            inner.watch(x)
            _, h, c = execute("LSTM", x, *ins[1:])
            total = execute("Add", h, c)
        (gx,) = inner.gradient(total, [x])
        s = execute("ReduceSum", gx, np.zeros(0, np.int64), keepdims=0)
    (ggx,) = outer.gradient(s, [x])
    assert ggx is not None and ggx.shape == x.shape and np.all(np.isfinite(ggx.array))


def test_stacked_layers_sharing_weights():
    # X comes from another op and the weights feed two calls: gradients flow through and add up
    ins = make_inputs("GRU", T=2, B=2, n_in=2, H=2, h0=False, seed=11)
    w, r = ins[1], ins[2][:, :, :2]
    v = np.random.default_rng(12).standard_normal((2, 1, 2, 2))

    def f(x0, w, r, record=False):
        wrap = (lambda a: Tensor(a, requires_grad=True)) if record else Tensor
        x0, w, r = wrap(x0), wrap(w), wrap(r)
        y1, _ = execute("GRU", execute("Tanh", x0), w, r, hidden_size=2)
        y2, _ = execute("GRU", execute("Reshape", y1, np.array([2, 2, 2])), w, r, hidden_size=2)
        return execute("ReduceSum", execute("Mul", y2, Tensor(v)), np.zeros(0, np.int64), keepdims=0), (x0, w, r)

    total, leaves = f(ins[0], w, r, record=True)
    grads = autograd.gradient([total], list(leaves))
    arrays = [ins[0].copy(), w.copy(), r.copy()]
    for j, g in enumerate(grads):
        num = np.zeros(arrays[j].shape)
        for idx in np.ndindex(arrays[j].shape):
            orig = arrays[j][idx]
            arrays[j][idx] = orig + 1e-6
            hi = float(f(*arrays)[0].array)
            arrays[j][idx] = orig - 1e-6
            lo = float(f(*arrays)[0].array)
            arrays[j][idx] = orig
            num[idx] = (hi - lo) / 2e-6
        np.testing.assert_allclose(g.array, num, rtol=1e-5, atol=1e-7)
