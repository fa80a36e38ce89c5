"""Models saved by onnxruntime's optimizer (``optimized_model_filepath`` at ``ORT_ENABLE_EXTENDED``) hold
onnxruntime's contrib operators (``com.microsoft``); vfw imports them with onnxruntime's semantics.  The oracle is
onnxruntime running the same file.  The model tests also assert that the saved file holds the contrib ops expected,
so that they notice when onnxruntime stops writing them (and the import would no longer be tested)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from vfw.core.errors import OpAttributeError, UnknownOpError
from vfw.onnx_io import load
from vfw.onnx_io._import_tensors import OnnxModelError

ort = pytest.importorskip("onnxruntime")

F = TensorProto.FLOAT
MS = "com.microsoft"
RNG = np.random.default_rng(0)


def _f32(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _model(nodes, inputs, outputs, initializers=(), opset=17):
    """A model importing the default domain at ``opset`` and ``com.microsoft`` 1."""
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
                              [helper.make_tensor_value_info(n, F, None) for n in outputs],
                              [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m


def _ort_run(m, feeds):
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _assert_matches_ort(m, feeds, rtol=1e-5, atol=1e-5):
    """vfw's import of ``m`` gives onnxruntime's outputs (dtype, shape and values)."""
    ours = load(m).run(feeds)
    theirs = _ort_run(m, feeds)
    assert len(ours) == len(theirs)
    for k, (a, e) in enumerate(zip(ours, theirs)):
        assert a.dtype == e.dtype, f"output {k}: {a.dtype} != {e.dtype}"
        assert a.shape == e.shape, f"output {k}: {a.shape} != {e.shape}"
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=f"output {k}")
    return ours


def _ort_optimized(m, tmp_path, level="ORT_ENABLE_EXTENDED"):
    """The model onnxruntime's optimizer saves for ``m`` at ``level``."""
    source, target = tmp_path / "model.onnx", tmp_path / f"model_{level}.onnx"
    onnx.save(m, str(source))
    options = ort.SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
    options.optimized_model_filepath = str(target)
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    return onnx.load(str(target))


def _ops(m):
    return {(n.domain or "", n.op_type) for n in m.graph.node}


# -- each operator against onnxruntime -------------------------------------------------------------------------
_CONV_ACTIVATIONS = [
    ("Relu", []), ("Tanh", []), ("Sigmoid", []), ("LeakyRelu", [0.2]), ("Clip", [-0.5, 0.7]),
    ("HardSigmoid", [0.3, 0.4]), (None, []),
]


@pytest.mark.parametrize("activation,params", _CONV_ACTIVATIONS)
@pytest.mark.parametrize("with_z", [False, True])
def test_fused_conv_activations(activation, params, with_z):
    attrs = {"pads": [1, 0, 1, 0], "strides": [1, 2], "kernel_shape": [3, 3]}
    if activation:
        attrs["activation"] = activation
    if params:
        attrs["activation_params"] = params
    inputs = ["x", "w", "b"] + (["z"] if with_z else [])
    feeds_shapes = [("x", [2, 3, 6, 7])] + ([("z", [2, 4, 6, 3])] if with_z else [])
    node = helper.make_node("FusedConv", inputs, ["y"], domain=MS, **attrs)
    m = _model([node], feeds_shapes, ["y"], [("w", _f32(4, 3, 3, 3)), ("b", _f32(4))])
    feeds = {"x": _f32(2, 3, 6, 7)} | ({"z": _f32(2, 4, 6, 3)} if with_z else {})
    _assert_matches_ort(m, feeds)


@pytest.mark.parametrize("attrs", [{"dilations": [2, 1], "pads": [1, 1, 0, 2]},
                                   {"auto_pad": "SAME_UPPER", "strides": [2, 1]}])
def test_fused_conv_groups_without_bias(attrs):
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=MS, group=2, activation="Relu", **attrs)
    m = _model([node], [("x", [1, 4, 7, 5])], ["y"], [("w", _f32(6, 2, 2, 3))])
    _assert_matches_ort(m, {"x": _f32(1, 4, 7, 5)})


@pytest.mark.parametrize("attrs,a_shape,b_shape", [
    ({}, (3, 4), (4, 5)),
    ({"alpha": 0.25, "transA": 1}, (4, 3), (4, 5)),
    ({"transB": 1, "alpha": -2.0}, (2, 3, 4), (5, 4)),
    ({"transA": 1, "transB": 1}, (2, 1, 4, 3), (3, 5, 4)),
    ({"transBatchA": 1}, (3, 2, 5, 4), (2, 5, 4, 6)),
    ({"transBatchA": 1, "transA": 1, "alpha": 0.5}, (4, 2, 5, 3), (2, 5, 4, 6)),
    ({"transBatchB": 1, "transB": 1}, (2, 5, 3, 4), (6, 2, 5, 4)),
    ({"transBatchB": 1}, (2, 3, 4), (4, 2, 6)),
    ({"transBatchA": 1, "transBatchB": 1, "transA": 1, "transB": 1}, (4, 2, 3), (6, 2, 4)),
    ({}, (4,), (2, 4, 3)),
])
def test_fused_matmul(attrs, a_shape, b_shape):
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain=MS, **attrs)
    m = _model([node], [("a", list(a_shape)), ("b", list(b_shape))], ["y"])
    _assert_matches_ort(m, {"a": _f32(*a_shape), "b": _f32(*b_shape)})


_GEMM_ACTIVATIONS = [
    ("Relu", {}), ("Tanh", {}), ("Sigmoid", {}), ("LeakyRelu", {"activation_alpha": 0.3}),
    ("HardSigmoid", {"activation_alpha": 0.3, "activation_beta": 0.6}),
    ("Elu", {"activation_alpha": 0.7}), ("Selu", {"activation_alpha": 1.5, "activation_gamma": 1.2}),
    ("ThresholdedRelu", {"activation_alpha": 0.2}), ("Softsign", {}), ("Softplus", {}),
    ("ScaledTanh", {"activation_alpha": 1.5, "activation_beta": 0.5}),
    ("ParametricSoftplus", {"activation_alpha": 1.5, "activation_beta": 0.5}),
]


@pytest.mark.parametrize("activation,act_attrs", _GEMM_ACTIVATIONS)
def test_fused_gemm_activations(activation, act_attrs):
    node = helper.make_node("FusedGemm", ["a", "b", "c"], ["y"], domain=MS, activation=activation, alpha=0.7,
                            beta=1.3, transB=1, **act_attrs)
    m = _model([node], [("a", [3, 4])], ["y"], [("b", _f32(5, 4)), ("c", _f32(5))])
    _assert_matches_ort(m, {"a": _f32(3, 4, scale=2.0)})


def test_fused_gemm_without_c_transposed_a():
    node = helper.make_node("FusedGemm", ["a", "b"], ["y"], domain=MS, activation="Relu", transA=1)
    m = _model([node], [("a", [4, 3]), ("b", [4, 5])], ["y"])
    _assert_matches_ort(m, {"a": _f32(4, 3), "b": _f32(4, 5)})


def test_gelu_family():
    nodes = [helper.make_node("Gelu", ["x"], ["g"], domain=MS),
             helper.make_node("BiasGelu", ["x", "bias"], ["bg"], domain=MS),
             helper.make_node("FastGelu", ["x"], ["fg"], domain=MS),
             helper.make_node("FastGelu", ["x", "bias"], ["fgb"], domain=MS),
             helper.make_node("QuickGelu", ["x"], ["qg"], domain=MS),
             helper.make_node("QuickGelu", ["x"], ["qga"], domain=MS, alpha=1.1)]
    m = _model(nodes, [("x", [2, 3, 8])], ["g", "bg", "fg", "fgb", "qg", "qga"], [("bias", _f32(8))])
    _assert_matches_ort(m, {"x": _f32(2, 3, 8, scale=3.0)})


@pytest.mark.parametrize("beta,bias", [(False, False), (True, False), (True, True), (False, True)])
@pytest.mark.parametrize("outputs", [1, 4])
def test_skip_layer_normalization(beta, bias, outputs):
    inputs = ["x", "skip", "gamma", "beta" if beta else "", "bias" if bias else ""]
    while not inputs[-1]:
        inputs.pop()
    names = ["y", "mean", "inv_std", "sum"][:outputs]
    node = helper.make_node("SkipLayerNormalization", inputs, names, domain=MS, epsilon=1e-4)
    m = _model([node], [("x", [2, 3, 8]), ("skip", [2, 3, 8])], names,
               [("gamma", _f32(8)), ("beta", _f32(8)), ("bias", _f32(8))])
    _assert_matches_ort(m, {"x": _f32(2, 3, 8), "skip": _f32(2, 3, 8)})


def test_skip_layer_normalization_default_epsilon_and_sum_only():
    node = helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma"], ["y", "", "", "sum"], domain=MS)
    m = _model([node], [("x", [2, 8]), ("skip", [2, 8])], ["y", "sum"], [("gamma", _f32(8))])
    _assert_matches_ort(m, {"x": _f32(2, 8, scale=1e-3), "skip": _f32(2, 8, scale=1e-3)}, atol=1e-4)


@pytest.mark.parametrize("bias", [False, True])
def test_skip_simplified_layer_normalization(bias):
    inputs = ["x", "skip", "gamma"] + (["bias"] if bias else [])
    node = helper.make_node("SkipSimplifiedLayerNormalization", inputs, ["y", "", "inv_std", "sum"], domain=MS,
                            epsilon=1e-5)
    m = _model([node], [("x", [2, 3, 8]), ("skip", [2, 3, 8])], ["y", "inv_std", "sum"],
               [("gamma", _f32(8)), ("bias", _f32(8))])
    _assert_matches_ort(m, {"x": _f32(2, 3, 8), "skip": _f32(2, 3, 8)})


@pytest.mark.parametrize("axis", [-1, 2, 1, -2])
def test_default_domain_layer_norms_below_opset_17(axis):
    """onnxruntime's own LayerNormalization and SimplifiedLayerNormalization, which it writes into models whose
    opset is below 17 (ONNX defines neither there)."""
    nodes = [helper.make_node("LayerNormalization", ["x", "s", "b"], ["ln", "mean", "inv"], axis=axis,
                              epsilon=1e-3),
             helper.make_node("SimplifiedLayerNormalization", ["x", "s"], ["rms", "rms_inv"], axis=axis,
                              epsilon=1e-3)]
    shape = [2, 3, 4]
    param = shape[axis:] if axis != -2 else shape[1:]
    m = _model(nodes, [("x", shape)], ["ln", "mean", "inv", "rms", "rms_inv"],
               [("s", _f32(*param)), ("b", _f32(*param))], opset=13)
    _assert_matches_ort(m, {"x": _f32(*shape)})


@pytest.mark.parametrize("domain,op_type", [(MS, "Attention"), ("com.microsoft.nchwc", "Conv")])
def test_unsupported_onnxruntime_ops_name_the_op_and_the_fix(domain, op_type):
    node = helper.make_node(op_type, ["x"], ["y"], domain=domain)
    m = _model([node], [("x", [2, 3])], ["y"])
    m.opset_import.append(helper.make_opsetid("com.microsoft.nchwc", 1))
    with pytest.raises(UnknownOpError, match=rf"{domain}::{op_type}.*ORT_ENABLE_EXTENDED or ORT_ENABLE_BASIC"):
        load(m)


def test_unsupported_activation_is_an_attribute_error():
    node = helper.make_node("FusedConv", ["x", "w"], ["y"], domain=MS, activation="Gelu", name="conv0")
    m = _model([node], [("x", [1, 1, 3, 3])], ["y"], [("w", _f32(1, 1, 1, 1))])
    with pytest.raises(OpAttributeError, match=r"'conv0'.*activation 'Gelu' is not supported"):
        load(m)


def test_wrong_input_count_names_the_op():
    node = helper.make_node("BiasGelu", ["x"], ["y"], domain=MS)
    m = _model([node], [("x", [2, 3])], ["y"])
    with pytest.raises(OnnxModelError, match=r"com\.microsoft::BiasGelu takes 2 to 2 inputs"):
        load(m)


def test_rms_mean_output_is_refused():
    node = helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma"], ["y", "mean"], domain=MS)
    m = _model([node], [("x", [2, 8]), ("skip", [2, 8])], ["y", "mean"], [("gamma", _f32(8))])
    with pytest.raises(OnnxModelError, match=r"output 1 \(mean\) is requested"):
        load(m)


# -- whole models saved by onnxruntime's optimizer -------------------------------------------------------------
def _assert_optimized_matches_ort(m, feeds, tmp_path, expected_ops, rtol=1e-5, atol=1e-5):
    """onnxruntime saves ``m`` optimized at ORT_ENABLE_EXTENDED with ``expected_ops`` ((domain, op) pairs) in it;
    vfw's import of that file gives what onnxruntime computes with it."""
    optimized = _ort_optimized(m, tmp_path)
    assert expected_ops <= _ops(optimized), f"onnxruntime wrote {sorted(_ops(optimized))}"
    _assert_matches_ort(optimized, feeds, rtol=rtol, atol=atol)


def _exported(module, *args, **kwargs):
    """``module`` exported with vfw.torch.onnx.export, as a ModelProto."""
    import io

    import vfw.torch as vt

    buffer = io.BytesIO()
    vt.onnx.export(module, args, buffer, **kwargs)
    return onnx.load_from_string(buffer.getvalue())


def _feeds_for(m, *arrays):
    initializers = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in initializers]
    return dict(zip(names, arrays))


def test_optimized_torch_cnn_and_mlp(tmp_path):
    import vfw.torch as vt

    vt.manual_seed(0)
    nn = vt.nn
    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3), nn.Sigmoid(), nn.Flatten(),
                        nn.Linear(36, 5), nn.ReLU(), nn.Linear(5, 2), nn.Tanh()).eval()
    x = _f32(2, 3, 5, 5)
    m = _exported(net, vt.tensor(x))
    _assert_optimized_matches_ort(m, _feeds_for(m, x), tmp_path, {(MS, "FusedConv"), (MS, "FusedGemm")})


def test_optimized_torch_transformer_encoder_layer(tmp_path):
    import vfw.torch as vt

    vt.manual_seed(0)
    layer = vt.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True).eval()
    x = _f32(2, 5, 16)
    m = _exported(layer, vt.tensor(x))
    _assert_optimized_matches_ort(m, _feeds_for(m, x), tmp_path,
                                  {(MS, "FusedMatMul"), (MS, "SkipLayerNormalization")}, atol=1e-4)


def test_optimized_torch_bert_residual_layer_norm(tmp_path):
    import vfw.torch as vt

    class Block(vt.nn.Module):
        def __init__(self):
            super().__init__()
            self.dense = vt.nn.Linear(16, 16)
            self.norm = vt.nn.LayerNorm(16, eps=1e-6)

        def forward(self, x):
            return self.norm(x + self.dense(x))

    vt.manual_seed(0)
    x = _f32(2, 5, 16)
    m = _exported(Block().eval(), vt.tensor(x))
    _assert_optimized_matches_ort(m, _feeds_for(m, x), tmp_path, {(MS, "SkipLayerNormalization")}, atol=1e-4)


def _conv_act(activation):
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1])]
    inits = [("w", _f32(4, 3, 3, 3)), ("b", _f32(4))]
    if activation == "Clip":
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
        inits += [("lo", np.float32(-0.5)), ("hi", np.float32(2.0))]
    else:
        attrs = {"LeakyRelu": {"alpha": 0.3}, "HardSigmoid": {"alpha": 0.3, "beta": 0.4}}.get(activation, {})
        nodes.append(helper.make_node(activation, ["c"], ["y"], **attrs))
    return _model(nodes, [("x", [2, 3, 5, 5])], ["y"], inits), {"x": _f32(2, 3, 5, 5)}


def _scaled_transposed_matmul():
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["xt", "w"], ["m"]), helper.make_node("Mul", ["m", "s"], ["y"])]
    return (_model(nodes, [("x", [2, 4, 5])], ["y"], [("w", _f32(4, 3)), ("s", np.float32(0.5))]),
            {"x": _f32(2, 4, 5)})


def _gemm_leaky_relu():
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["m"], transB=1),
             helper.make_node("LeakyRelu", ["m"], ["y"], alpha=0.2)]
    return _model(nodes, [("x", [3, 4])], ["y"], [("w", _f32(5, 4)), ("b", _f32(5))]), {"x": _f32(3, 4)}


def _erf_gelu(bias):
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["d"]), helper.make_node("Erf", ["d"], ["e"]),
             helper.make_node("Add", ["e", "one"], ["a"]), helper.make_node("Mul", ["x", "a"], ["m"]),
             helper.make_node("Mul", ["m", "half"], ["y"])]
    inits = [("sqrt2", np.float32(np.sqrt(2.0))), ("one", np.float32(1.0)), ("half", np.float32(0.5))]
    if bias:
        nodes.insert(0, helper.make_node("Add", ["x0", "bias"], ["x"]))
        inits.append(("bias", _f32(8)))
    name = "x0" if bias else "x"
    return _model(nodes, [(name, [2, 8])], ["y"], inits), {name: _f32(2, 8, scale=2.0)}


def _quick_gelu():
    nodes = [helper.make_node("Mul", ["x", "k"], ["xs"]), helper.make_node("Sigmoid", ["xs"], ["s"]),
             helper.make_node("Mul", ["x", "s"], ["y"])]
    return _model(nodes, [("x", [2, 8])], ["y"], [("k", np.float32(1.702))]), {"x": _f32(2, 8, scale=2.0)}


def _layer_norm_nodes(x, y, rms=False):
    """LayerNorm (or RMS norm) over the last dim written out in elementwise ops, as opset-13 exporters write it."""
    nodes = [] if rms else [helper.make_node("ReduceMean", [x], ["mu"], axes=[-1]),
                            helper.make_node("Sub", [x, "mu"], ["centered"])]
    c = x if rms else "centered"
    nodes += [helper.make_node("Pow", [c, "two"], ["sq"]), helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1]),
              helper.make_node("Add", ["var", "eps"], ["ve"]), helper.make_node("Sqrt", ["ve"], ["sd"]),
              helper.make_node("Div", [c, "sd"], ["n"])]
    if rms:
        nodes.append(helper.make_node("Mul", ["n", "g"], [y]))
    else:
        nodes += [helper.make_node("Mul", ["n", "g"], ["ng"]), helper.make_node("Add", ["ng", "beta"], [y])]
    return nodes


def _norm_model(skip=False, bias=False, rms=False):
    nodes = _layer_norm_nodes("h", "y", rms)
    inits = [("two", np.float32(2.0)), ("eps", np.float32(1e-5)), ("g", _f32(8)), ("beta", _f32(8))]
    inputs, feeds = [("x", [2, 3, 8])], {"x": _f32(2, 3, 8)}
    if skip:
        first = "xb" if bias else "x"
        nodes.insert(0, helper.make_node("Add", [first, "skip"], ["h"]))
        if bias:
            nodes.insert(0, helper.make_node("Add", ["x", "bias"], ["xb"]))
            inits.append(("bias", _f32(8)))
        inputs.append(("skip", [2, 3, 8]))
        feeds["skip"] = _f32(2, 3, 8)
    else:
        nodes.insert(0, helper.make_node("Identity", ["x"], ["h"]))
    return _model(nodes, inputs, ["y"], inits, opset=13), feeds


_PATTERNS = {
    **{f"conv_{a}": (lambda a=a: _conv_act(a), {(MS, "FusedConv")})
       for a in ("Relu", "Tanh", "Sigmoid", "LeakyRelu", "Clip", "HardSigmoid")},
    "transposed_scaled_matmul": (_scaled_transposed_matmul, {(MS, "FusedMatMul")}),
    "gemm_leaky_relu": (_gemm_leaky_relu, {(MS, "FusedGemm")}),
    "erf_gelu": (lambda: _erf_gelu(False), {(MS, "Gelu")}),
    "bias_erf_gelu": (lambda: _erf_gelu(True), {(MS, "BiasGelu")}),
    "quick_gelu": (_quick_gelu, {(MS, "QuickGelu")}),
    "layer_norm_opset13": (_norm_model, {("", "LayerNormalization")}),
    "rms_norm_opset13": (lambda: _norm_model(rms=True), {("", "SimplifiedLayerNormalization")}),
    "skip_layer_norm": (lambda: _norm_model(skip=True), {(MS, "SkipLayerNormalization")}),
    "skip_layer_norm_bias": (lambda: _norm_model(skip=True, bias=True), {(MS, "SkipLayerNormalization")}),
}


@pytest.mark.parametrize("name", sorted(_PATTERNS))
def test_optimized_patterns(name, tmp_path):
    build, expected = _PATTERNS[name]
    m, feeds = build()
    _assert_optimized_matches_ort(m, feeds, tmp_path, expected, atol=1e-4)


def test_ort_enable_all_nchwc_model_is_refused_with_the_fix(tmp_path):
    m, _ = _conv_act("Relu")
    optimized = _ort_optimized(m, tmp_path, "ORT_ENABLE_ALL")
    nchwc = sorted(op for domain, op in _ops(optimized) if domain == "com.microsoft.nchwc")
    if not nchwc:
        pytest.skip("onnxruntime wrote no NCHWc operators on this machine (they are x86-only)")
    with pytest.raises(UnknownOpError, match=r"com\.microsoft\.nchwc::.*ORT_ENABLE_EXTENDED or ORT_ENABLE_BASIC"):
        load(optimized)


def test_chained_contrib_ops_whose_intermediate_types_onnx_cannot_infer():
    """ONNX's shape inference knows no contrib op, so the values between them have no type or rank in the
    model: constants take the dtype at run time and FusedMatMul transposes without knowing the rank."""
    nodes = [helper.make_node("FusedMatMul", ["a", "w"], ["m"], domain=MS, alpha=0.5),
             helper.make_node("QuickGelu", ["m"], ["q"], domain=MS, alpha=1.3),
             helper.make_node("FusedMatMul", ["q", "w2"], ["t"], domain=MS, transA=1, alpha=2.0),
             helper.make_node("FusedGemm", ["t", "w3"], ["y"], domain=MS, activation="LeakyRelu",
                              activation_alpha=0.1)]
    m = _model(nodes, [("a", [3, 4])], ["y"], [("w", _f32(4, 5)), ("w2", _f32(3, 2)), ("w3", _f32(2, 6))])
    _assert_matches_ort(m, {"a": _f32(3, 4)})
