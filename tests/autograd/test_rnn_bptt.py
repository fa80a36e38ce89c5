"""The fused BPTT kernels (RNNGrad, GRUGrad, LSTMGrad) against float64 central differences of the forward ops.

Each case draws random output gradients ``dY, dY_h (, dY_c)`` and compares the kernel's input gradients with
the finite-difference gradient of ``<dY, Y> + <dY_h, Y_h> (+ <dY_c, Y_c>)`` computed by the forward kernel.
Tiny sizes keep the finite differences fast.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, numeric_grad, scalar_fn
from vfw.core import Tensor, TensorInfo, autograd, execute, get_schema, run
from vfw.core.ops import rnn_bptt

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
FORWARD_ATTRS = {"RNN": {}, "GRU": {"linear_before_reset": 1}, "LSTM": {}}
GRAD_OPS = {"RNN": "RNNGrad", "GRU": "GRUGrad", "LSTM": "LSTMGrad"}
TRAIN_OPS = {"GRU": "GRUTrain", "LSTM": "LSTMTrain"}
DIRECTIONS = ["forward", "reverse", "bidirectional"]


def make_inputs(op, T=3, B=2, n_in=2, H=2, direction="forward", layout=0, bias=True, h0=True, lens=None, seed=0):
    """Forward inputs in schema order up to initial_h / initial_c (None where absent), float64."""
    rng = np.random.default_rng(seed)
    D = 2 if direction == "bidirectional" else 1
    G = GATES[op]
    state = (B, D, H) if layout else (D, B, H)
    ins = [rng.standard_normal((B, T, n_in) if layout else (T, B, n_in)),
           rng.standard_normal((D, G * H, n_in)) * 0.7, rng.standard_normal((D, G * H, H)) * 0.7,
           rng.standard_normal((D, 2 * G * H)) * 0.5 if bias else None,
           None if lens is None else np.array(lens, np.int32),
           rng.standard_normal(state) if h0 else None]
    if op == "LSTM":
        ins.append(rng.standard_normal(state) if h0 else None)
    return ins


def check_fused(op, ins, attrs, gradients=None, seed=1):
    """Compare ``{op}Grad`` with central differences of ``op`` for every requested, present input."""
    sources = [i for i in range(len(ins)) if i != 4]  # sequence_lens has no gradient
    gradients = list(range(len(sources))) if gradients is None else gradients
    outs = run(op, *ins, **attrs)
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(o.shape) for o in outs]
    grad_attrs = {k: v for k, v in attrs.items() if k in ("direction", "layout", "activations")}
    found = run(GRAD_OPS[op], *ins, outs[0], *weights, gradients=gradients, **grad_attrs)
    f = scalar_fn(op, attrs, weights, list(range(len(outs))))
    arrays = [None if a is None else a.copy() for a in ins]
    for k, i in enumerate(sources):
        if k not in gradients or ins[i] is None:
            assert found[k] is None, f"{op}Grad output {k} should be None"
            continue
        expected = numeric_grad(f, arrays, i, 1e-6)
        assert found[k].shape == ins[i].shape and found[k].dtype == ins[i].dtype
        np.testing.assert_allclose(found[k], expected, rtol=1e-6, atol=1e-8, err_msg=f"{op}Grad d/d input {i}")


def op_attrs(op, direction, layout=0, relu=False):
    attrs = dict(FORWARD_ATTRS[op], direction=direction, layout=layout)
    if relu:
        attrs["activations"] = ["Relu"] * (2 if direction == "bidirectional" else 1)
    return attrs


@pytest.mark.parametrize("op,relu", [("RNN", False), ("RNN", True), ("GRU", False), ("LSTM", False)])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
def test_directions_and_layouts(op, relu, direction, layout):
    check_fused(op, make_inputs(op, direction=direction, layout=layout), op_attrs(op, direction, layout, relu))


@pytest.mark.parametrize("op", list(GATES))
@pytest.mark.parametrize("lens", [[3, 1], [2, 0], [0, 0]])
@pytest.mark.parametrize("layout", [0, 1])
def test_sequence_lens(op, lens, layout):
    # padded steps hold the state and output zeros; a zero-length sequence has zero final states
    ins = make_inputs(op, direction="bidirectional", layout=layout, lens=lens, seed=2)
    check_fused(op, ins, op_attrs(op, "bidirectional", layout))


@pytest.mark.parametrize("op", list(GATES))
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_without_bias_and_initial_state(op, direction):
    ins = make_inputs(op, direction=direction, bias=False, h0=False, seed=3)
    check_fused(op, ins, op_attrs(op, direction))


@pytest.mark.parametrize("op", list(GATES))
def test_only_requested_gradients(op):
    ins = make_inputs(op, direction="bidirectional", lens=[1, 3], seed=4)
    check_fused(op, ins, op_attrs(op, "bidirectional"), gradients=[0, 4])
    check_fused(op, ins, op_attrs(op, "bidirectional"), gradients=[1, 2, 3])


@pytest.mark.parametrize("op", list(GATES))
def test_float32_matches_float64(op):
    ins = make_inputs(op, T=5, B=3, n_in=4, H=3, direction="bidirectional", lens=[5, 2, 4], seed=5)
    attrs = op_attrs(op, "bidirectional")
    outs = run(op, *ins, **attrs)
    weights = [np.random.default_rng(6).standard_normal(o.shape) for o in outs]
    want = run(GRAD_OPS[op], *ins, outs[0], *weights, direction="bidirectional")
    as32 = [None if a is None or a.dtype.kind != "f" else a.astype(np.float32) for a in ins]
    as32[4] = ins[4]
    outs32 = run(op, *as32, **attrs)
    got = run(GRAD_OPS[op], *as32, outs32[0], *[w.astype(np.float32) for w in weights], direction="bidirectional")
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("op", list(GATES))
def test_empty_sequence_axis(op):
    ins = make_inputs(op, T=0, direction="bidirectional")
    outs = run(op, *ins, **op_attrs(op, "bidirectional"))
    found = run(GRAD_OPS[op], *ins, outs[0], *[np.ones_like(o) for o in outs], direction="bidirectional")
    for g, i in zip(found, [0, 1, 2, 3, 5, 6]):
        assert g.shape == ins[i].shape and not g.any()


def test_gradient_maker_uses_fused_kernel(monkeypatch):
    calls = []
    original = rnn_bptt.fused_gradient

    def spy(node, grads, wanted):
        result = original(node, grads, wanted)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(rnn_bptt, "fused_gradient", spy)
    ins = make_inputs("LSTM", direction="bidirectional", lens=[3, 2])
    check_gradient("LSTM", ins, {"direction": "bidirectional"})
    ins = make_inputs("GRU")
    check_gradient("GRU", ins, {"linear_before_reset": 1})
    check_gradient("GRU", ins, {"linear_before_reset": 0})  # not fused: the replay
    check_gradient("RNN", make_inputs("RNN"), {"activations": ["Relu"]})
    assert calls == [True, True, False, True]


def test_recorded_backward_keeps_the_replay():
    # create_graph: the gradient must be differentiable again, which the fused kernel is not
    ins = make_inputs("LSTM")
    tensors = [None if a is None else Tensor(a, requires_grad=a.dtype.kind == "f") for a in ins]
    y, _, _ = execute("LSTM", *tensors)
    (gw,) = autograd.gradient([y], [tensors[1]], create_graph=True)
    assert gw.requires_grad


@pytest.mark.parametrize("op,attrs", [("GRU", {}), ("LSTM", {"clip": 1.0}), ("RNN", {"activations": ["Relu", "Tanh"],
                                                                                      "direction": "bidirectional"})])
def test_unsupported_configurations_are_not_fused(op, attrs):
    ins = make_inputs(op, direction=attrs.get("direction", "forward"))
    tensors = [None if a is None else Tensor(a, requires_grad=a.dtype.kind == "f") for a in ins]
    outs = execute(op, *tensors, **attrs)
    node = outs[0].grad_node
    node.needs_input_grad = tuple(t is not None and t.requires_grad for t in tensors)
    assert rnn_bptt.fused_gradient(node, [Tensor(np.ones_like(o.array)) for o in outs], [0, 1, 2]) is None


def test_bad_shapes_are_named():
    ins = make_inputs("LSTM")
    outs = run("LSTM", *ins)
    with pytest.raises(ValueError, match="LSTMGrad.*dY"):
        run("LSTMGrad", *ins, outs[0], outs[0][:1], outs[1], outs[2])


# -- LSTMTrain / GRUTrain: the forwards that save their activations -------------------------------

TRAIN_ATTRS = {"GRU": {"linear_before_reset": 1}, "LSTM": {}}


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("lens", [None, [3, 1], [0, 2]])
def test_train_forward_is_the_onnx_op(op, direction, layout, lens):
    ins = make_inputs(op, direction=direction, layout=layout, lens=lens, seed=11)
    attrs = {"direction": direction, "layout": layout}
    want = run(op, *ins, **attrs, **TRAIN_ATTRS[op])
    got = run(TRAIN_OPS[op], *ins, **attrs)
    assert len(got) == len(want) + 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)
    # the saved activations are what the gradient kernel would recompute
    weights = [np.random.default_rng(12).standard_normal(o.shape) for o in want]
    from_saved = run(GRAD_OPS[op], *ins, want[0], *weights, *got[len(want):], direction=direction, layout=layout)
    recomputed = run(GRAD_OPS[op], *ins, want[0], *weights, direction=direction, layout=layout)
    for a, b in zip(from_saved, recomputed):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_train_op_gradient(op, direction):
    n_out = 3 if op == "LSTM" else 2
    ins = make_inputs(op, direction=direction, lens=[3, 2], seed=13)
    check_gradient(TRAIN_OPS[op], ins, {"direction": direction}, outputs=list(range(n_out)))
    ins = make_inputs(op, direction=direction, bias=False, h0=False, seed=14)
    check_gradient(TRAIN_OPS[op], ins, {"direction": direction, "layout": 0}, outputs=list(range(n_out)))


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_train_op_second_order(op):
    # a recorded backward differentiates the ONNX op's replay: the same values, differentiable again
    ins = make_inputs(op, direction="bidirectional", lens=[3, 2], seed=15)
    results = []
    for name, attrs in ((op, TRAIN_ATTRS[op]), (TRAIN_OPS[op], {})):
        tensors = [None if a is None else Tensor(a, requires_grad=a.dtype.kind == "f") for a in ins]
        y = execute(name, *tensors, direction="bidirectional", **attrs)[0]
        (gw,) = autograd.gradient([y], [tensors[1]], create_graph=True)
        assert gw.requires_grad
        (gx,) = autograd.gradient([execute("ReduceSum", execute("Mul", gw, gw), keepdims=0)], [tensors[0]])
        results.append((gw.array, gx.array))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_train_grad_checks_saved_shapes():
    ins = make_inputs("LSTM")
    y, yh, yc, gates, cells = run("LSTMTrain", *ins)
    with pytest.raises(ValueError, match="LSTMGrad: cells"):
        run("LSTMGrad", *ins, y, y, yh, yc, gates, cells[1:])
    with pytest.raises(ValueError, match="both saved activations or neither"):
        run("LSTMGrad", *ins, y, y, yh, yc, gates, None)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
@pytest.mark.parametrize("layout", [0, 1])
def test_train_shape_inference(op, layout):
    ins = make_inputs(op, direction="bidirectional", layout=layout)
    outs = run(TRAIN_OPS[op], *ins, direction="bidirectional", layout=layout)
    infos = [None if a is None else TensorInfo(a.shape, a.dtype) for a in ins]
    attrs = get_schema(TRAIN_OPS[op]).bind_attrs({"direction": "bidirectional", "layout": layout})
    inferred = get_schema(TRAIN_OPS[op]).infer(attrs, infos)
    assert [tuple(i.shape) for i in inferred] == [o.shape for o in outs]
    grads = run(GRAD_OPS[op], *ins, outs[0], *outs[:3 if op == "LSTM" else 2], direction="bidirectional",
                layout=layout)
    g_attrs = get_schema(GRAD_OPS[op]).bind_attrs({"direction": "bidirectional", "layout": layout})
    g_infos = infos + [TensorInfo(o.shape, o.dtype) for o in outs[:1] + outs[:3 if op == "LSTM" else 2]]
    assert [None if i is None else tuple(i.shape) for i in get_schema(GRAD_OPS[op]).infer(g_attrs, g_infos)] == [
        None if g is None else g.shape for g in grads]
