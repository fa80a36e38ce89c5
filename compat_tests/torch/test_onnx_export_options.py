"""torch.onnx.export's options (names, parameters as inputs, modes, ONNXProgram, errors), compared with real torch
2.13's TorchScript exporter (``dynamo=False``) where both apply."""

import io
import warnings

import numpy as np
import pytest

from compat_tests.torch.onnx_harness import onnx, real, run_ort, same_weights, vt


def _export(lib, model, args, **kwargs):
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # real torch's deprecation notes about the TorchScript exporter
        lib.onnx.export(model, args, f, dynamo=False, **kwargs)
    return onnx.load_from_string(f.getvalue())


def _pair(make):
    theirs, ours = same_weights(make)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    return theirs, ours, x


def _linear_bn(t):
    return t.nn.Sequential(t.nn.Linear(4, 3), t.nn.BatchNorm1d(3))


def _names(values):
    return [v.name for v in values]


@pytest.mark.parametrize("options", [{"export_params": False}, {"keep_initializers_as_inputs": True}, {}])
def test_weights_as_inputs_and_initializers_match_torch(options):
    theirs, ours, x = _pair(lambda t: t.nn.Sequential(t.nn.Linear(4, 3), t.nn.ReLU(), t.nn.Linear(3, 2)))
    want = _export(real, theirs, (real.from_numpy(x),), input_names=["x"], **options)
    got = _export(vt, ours, (vt.from_numpy(x),), input_names=["x"], **options)
    assert _names(got.graph.input) == _names(want.graph.input)
    assert sorted(_names(got.graph.initializer)) == sorted(_names(want.graph.initializer))
    feeds = [x] + ([theirs.state_dict()[n.name].numpy() for n in got.graph.input[1:]]
                   if not options.get("keep_initializers_as_inputs") else [])
    with real.no_grad():
        np.testing.assert_allclose(run_ort(got, feeds)[0], theirs(real.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_buffers_are_defaults_with_keep_initializers_as_inputs():
    theirs, ours, x = _pair(_linear_bn)
    want = _export(real, theirs, (real.from_numpy(x),), input_names=["x"], keep_initializers_as_inputs=True)
    got = _export(vt, ours, (vt.from_numpy(x),), input_names=["x"], keep_initializers_as_inputs=True)
    assert _names(got.graph.input) == _names(want.graph.input)


def test_automatic_dynamic_axis_names_match_torch():
    theirs, ours, x = _pair(lambda t: t.nn.Linear(4, 2))
    kwargs = dict(input_names=["x"], output_names=["y"], dynamic_axes={"x": [0], "y": {0: "batch"}})
    want = _export(real, theirs, (real.from_numpy(x),), **kwargs)
    got = _export(vt, ours, (vt.from_numpy(x),), **kwargs)

    def dims(values):
        return [[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in values]

    assert dims(got.graph.input) == dims(want.graph.input) == [["x_dynamic_axes_1", 4]]
    assert dims(got.graph.output) == dims(want.graph.output) == [["batch", 2]]


def test_unknown_dynamic_axes_key_warns_like_torch():
    theirs, ours, x = _pair(lambda t: t.nn.Linear(4, 2))
    for lib, model in ((real, theirs), (vt, ours)):
        with pytest.warns(UserWarning, match="Provided key nope for dynamic axes is not a valid input/output name"):
            lib.onnx.export(model, (lib.from_numpy(x),), io.BytesIO(), dynamo=False, input_names=["x"],
                            dynamic_axes={"nope": [0]})


def test_is_in_onnx_export_inside_forward_only():
    seen = {}

    def make(t):
        class Probe(t.nn.Module):
            def forward(self, x):
                seen["torch" if t is real else "vfw"] = t.onnx.is_in_onnx_export()
                return x * 2
        return Probe()

    for lib in (real, vt):
        assert not lib.onnx.is_in_onnx_export()
        _export(lib, make(lib), (lib.ones(2),))
        assert not lib.onnx.is_in_onnx_export()
    assert seen == {"torch": True, "vfw": True}


def test_training_mode_export_uses_batch_statistics_and_restores_the_module():
    theirs, ours, x = _pair(_linear_bn)
    before = {k: v.clone() for k, v in ours.state_dict().items()}
    proto = _export(vt, ours, (vt.from_numpy(x),), input_names=["x"], training=vt.onnx.TrainingMode.TRAINING)
    assert not ours.training and all(vt.equal(before[k], v) for k, v in ours.state_dict().items())
    theirs.train()
    with real.no_grad():
        want = theirs(real.from_numpy(x)).numpy()
    np.testing.assert_allclose(run_ort(proto, [x])[0], want, rtol=1e-5, atol=1e-5)


def test_eval_export_of_a_module_in_training_mode_restores_its_modes():
    theirs, ours, x = _pair(lambda t: t.nn.Sequential(t.nn.Linear(4, 3), t.nn.Dropout(0.5), t.nn.BatchNorm1d(3)))
    ours.train()
    theirs.eval()
    proto = _export(vt, ours, (vt.from_numpy(x),), input_names=["x"])
    assert all(m.training for m in ours.modules())
    with real.no_grad():
        np.testing.assert_allclose(run_ort(proto, [x])[0], theirs(real.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_random_draws_in_training_mode_are_refused():
    _, ours, x = _pair(lambda t: t.nn.Sequential(t.nn.Linear(4, 3), t.nn.Dropout(0.5)))
    with pytest.raises(vt.onnx.errors.UnsupportedOperatorError, match="PyFunc.*eval mode"):
        _export(vt, ours.train(), (vt.from_numpy(x),), training=vt.onnx.TrainingMode.PRESERVE)


def test_op_without_onnx_form_is_refused_naming_it():
    with pytest.raises(vt.onnx.errors.UnsupportedOperatorError, match="Inverse"):
        _export(vt, lambda a: vt.linalg.inv(a), (vt.eye(3) * 2,))
    assert issubclass(vt.onnx.errors.UnsupportedOperatorError, RuntimeError)


@pytest.mark.parametrize("opset", [8, 29, "18"])
def test_unsupported_opset_versions(opset):
    with pytest.raises(TypeError if isinstance(opset, str) else ValueError, match="opset"):
        _export(vt, lambda a: a + 1, (vt.ones(2),), opset_version=opset)


def test_default_opset_is_the_newest_onnxruntime_runs():
    import onnxruntime

    from vfw.onnx_io import default_opset

    proto = _export(vt, lambda a: a + 1, (vt.ones(2),))
    assert proto.opset_import[0].version == default_opset() <= onnx.defs.onnx_opset_version()
    onnxruntime.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])


def test_onnx_program_save_and_call(tmp_path):
    theirs, ours, x = _pair(lambda t: t.nn.Sequential(t.nn.Linear(4, 3), t.nn.Tanh()))
    program = vt.onnx.export(ours, (vt.from_numpy(x),), tmp_path / "a.onnx", input_names=["x"])
    assert isinstance(program, vt.onnx.ONNXProgram)
    program.save(tmp_path / "b.onnx")
    with real.no_grad():
        want = theirs(real.from_numpy(x)).numpy()
    for path in ("a.onnx", "b.onnx"):
        np.testing.assert_allclose(run_ort(onnx.load(tmp_path / path), [x])[0], want, rtol=1e-5, atol=1e-6)
    got, = program(vt.from_numpy(x))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    assert vt.onnx.export(ours, (vt.from_numpy(x),), tmp_path / "c.onnx", dynamo=False) is None


def test_verify_and_file_objects():
    _, ours, x = _pair(lambda t: t.nn.Linear(4, 3))
    f = io.BytesIO()
    vt.onnx.export(ours, vt.from_numpy(x), f, verify=True, dynamo=False)
    assert onnx.load_from_string(f.getvalue()).graph.node[0].op_type == "Gemm"


def test_keyword_arguments_nested_inputs_and_partial_names():
    def make(t):
        class Net(t.nn.Module):
            def forward(self, pair, scale=None, *, shift):
                return pair[0] * scale + pair[1] - shift
        return Net()

    rng = np.random.default_rng(0)
    a, b, s, c = (rng.standard_normal(3).astype(np.float32) for _ in range(4))
    want = a * s + b - c
    f = io.BytesIO()
    vt.onnx.export(make(vt), ((vt.from_numpy(a), vt.from_numpy(b)), {"scale": vt.from_numpy(s)}), f,
                   kwargs={"shift": vt.from_numpy(c)}, input_names=["first"], dynamo=False)
    proto = onnx.load_from_string(f.getvalue())
    assert _names(proto.graph.input) == ["first", "pair_1", "scale", "shift"]
    np.testing.assert_allclose(run_ort(proto, [a, b, s, c])[0], want, rtol=1e-6)


def test_dynamic_shapes_by_parameter_name():
    theirs, ours, x = _pair(lambda t: t.nn.Linear(4, 2))

    class Wrapper(vt.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = ours

        def forward(self, features):
            return self.inner(features)

    program = vt.onnx.export(Wrapper(), (vt.from_numpy(x),), dynamic_shapes={"features": {0: "rows"}})
    dims = program.model_proto.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["rows", 4]
    big = np.ones((7, 4), np.float32)
    with real.no_grad():
        np.testing.assert_allclose(run_ort(program.model_proto, [big])[0], theirs(real.from_numpy(big)).numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_dim_hints():
    assert repr(vt.export.Dim.AUTO) == repr(real.export.Dim.AUTO)
    assert repr(vt.export.Dim.STATIC) == repr(real.export.Dim.STATIC)
    theirs, ours, x = _pair(lambda t: t.nn.Linear(4, 2))
    shapes = ({0: vt.export.Dim.AUTO, 1: vt.export.Dim.STATIC},)
    program = vt.onnx.export(ours, (vt.from_numpy(x),), dynamic_shapes=shapes)
    dims = program.model_proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and dims[1].dim_value == 4
    big = np.ones((7, 4), np.float32)
    with real.no_grad():
        np.testing.assert_allclose(run_ort(program.model_proto, [big])[0], theirs(real.from_numpy(big)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    runner = vt.export.export(ours, (vt.from_numpy(x),), dynamic_shapes=({0: vt.export.Dim.DYNAMIC},)).module()
    assert tuple(runner(vt.from_numpy(big)).shape) == (7, 2)


def test_recurrent_layer_with_initial_states_returns_nested_outputs():
    theirs, ours = same_weights(lambda t: t.nn.LSTM(3, 4, batch_first=True))
    rng = np.random.default_rng(0)
    x, h, c = (rng.standard_normal(s).astype(np.float32) for s in ((2, 5, 3), (1, 2, 4), (1, 2, 4)))
    proto = _export(vt, ours, (vt.from_numpy(x), (vt.from_numpy(h), vt.from_numpy(c))),
                    dynamic_axes={"input": {0: "b", 1: "t"}, "hx_0": {1: "b"}, "hx_1": {1: "b"}})
    assert _names(proto.graph.input) == ["input", "hx_0", "hx_1"]
    for batch, steps in ((2, 5), (3, 2)):
        xs, hs, cs = (rng.standard_normal(s).astype(np.float32) for s in ((batch, steps, 3), (1, batch, 4),
                                                                           (1, batch, 4)))
        with real.no_grad():
            out, (hn, cn) = theirs(real.from_numpy(xs), (real.from_numpy(hs), real.from_numpy(cs)))
        for got, want in zip(run_ort(proto, [xs, hs, cs]), (out, hn, cn)):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_exportable_module_supplies_its_arguments():
    def make(t):
        class Model(t.onnx.ExportableModule):
            def __init__(self):
                super().__init__()
                self.fc = t.nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x).relu()

            def example_arguments(self):
                return (t.ones(3, 4),), None

            def input_names(self):
                return ("features",)

            def output_names(self):
                return ("scores",)

            def dynamic_shapes(self):
                return ({0: "batch"},)
        return Model()

    theirs, ours = same_weights(make)
    program = ours.to_onnx()
    graph = program.model_proto.graph
    assert [i.name for i in graph.input] == ["features"] and [o.name for o in graph.output] == ["scores"]
    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    with real.no_grad():
        np.testing.assert_allclose(run_ort(program.model_proto, [x])[0], theirs(real.from_numpy(x)).numpy(),
                                   rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        vt.onnx.ExportableModule()  # abstract: example_arguments


def test_the_same_tensor_as_several_arguments_gives_one_input_each():
    # torch's exporter makes query, key and value three inputs even when they are one tensor
    theirs, ours = same_weights(lambda t: t.nn.MultiheadAttention(8, 2, batch_first=True).eval())
    x = np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32)
    kwargs = dict(input_names=["q", "k", "v"], output_names=["out", "weights"])
    want = _export(real, theirs, (real.from_numpy(x),) * 3, **kwargs)
    got = _export(vt, ours, (vt.from_numpy(x),) * 3, **kwargs)
    assert _names(got.graph.input) == _names(want.graph.input) == ["q", "k", "v"]
    q, k, v = (np.random.default_rng(s).standard_normal((2, 5, 8)).astype(np.float32) for s in (2, 3, 4))
    with real.no_grad():
        expected = theirs(*(real.from_numpy(a) for a in (q, k, v)))
    for actual, wanted in zip(run_ort(got, [q, k, v]), expected):
        np.testing.assert_allclose(actual, wanted.numpy(), rtol=1e-5, atol=1e-6)


def _buffer_output(t):
    class WithAnchors(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("anchors", t.arange(3.0))
            self.lin = t.nn.Linear(4, 3)

        def forward(self, x):
            return self.lin(x), self.anchors

    return WithAnchors()


def test_returned_buffer_takes_the_requested_output_name():
    theirs, ours, x = _pair(_buffer_output)
    kwargs = dict(input_names=["x"], output_names=["y", "anchors"])
    want, got = _export(real, theirs, (real.from_numpy(x),), **kwargs), _export(vt, ours, (vt.from_numpy(x),), **kwargs)
    assert _names(got.graph.output) == _names(want.graph.output) == ["y", "anchors"]
    with real.no_grad():
        expected = [t.numpy() for t in theirs(real.from_numpy(x))]
    for actual, wanted in zip(run_ort(got, [x]), expected):
        np.testing.assert_allclose(actual, wanted, rtol=1e-5, atol=1e-6)


def _with_size(t):
    class WithSize(t.nn.Module):
        def forward(self, x):
            return x * 2, x.shape[0]

    return WithSize()


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("output_names", [None, ["y", "n"]])
def test_python_int_output_is_an_int64_scalar_output(dynamic, output_names):
    # torch exports a returned size as a 0-d int64 output (computed from Shape with a dynamic batch)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    kwargs = dict(input_names=["x"], output_names=output_names, dynamic_axes={"x": {0: "b"}} if dynamic else None)
    want = _export(real, _with_size(real), (real.from_numpy(x),), **kwargs)
    got = _export(vt, _with_size(vt), (vt.from_numpy(x),), **kwargs)
    assert len(got.graph.output) == len(want.graph.output) == 2
    if output_names:
        assert _names(got.graph.output) == _names(want.graph.output)
    for ours, theirs in zip(got.graph.output, want.graph.output):
        assert ours.type.tensor_type.elem_type == theirs.type.tensor_type.elem_type
        assert len(ours.type.tensor_type.shape.dim) == len(theirs.type.tensor_type.shape.dim)
    other = np.ones((5 if dynamic else 2, 3), np.float32)
    for actual, wanted in zip(run_ort(got, [other]), run_ort(want, [other])):
        assert actual.dtype == wanted.dtype and actual.shape == wanted.shape
        np.testing.assert_array_equal(actual, wanted)


@pytest.mark.parametrize("kind", ["list_of_sizes", "bool"])
def test_python_number_outputs_match_torch_types(kind):
    fns = {"list_of_sizes": lambda x: (x * 2, list(x.shape)), "bool": lambda x: (x * 2, x.shape[1] > 2)}

    def make(t):
        class Numbers(t.nn.Module):
            def forward(self, x):
                return fns[kind](x)

        return Numbers()

    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    kwargs = dict(input_names=["x"], dynamic_axes={"x": {0: "b"}})
    want = _export(real, make(real), (real.from_numpy(x),), **kwargs)
    got = _export(vt, make(vt), (vt.from_numpy(x),), **kwargs)
    assert [o.type.tensor_type.elem_type for o in got.graph.output] == \
        [o.type.tensor_type.elem_type for o in want.graph.output]
    other = np.ones((4, 3), np.float32)
    for actual, wanted in zip(run_ort(got, [other]), run_ort(want, [other]), strict=True):
        assert actual.dtype == wanted.dtype and actual.shape == wanted.shape
        np.testing.assert_array_equal(actual, wanted)
