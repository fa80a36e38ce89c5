"""torch.onnx.export as users call it with torch 2.13's default ``dynamo=True``: ``dynamic_shapes`` with ``Dim``s and
hints, keyword and nested inputs, dict/tuple outputs, an ExportedProgram as the model, ``ONNXProgram``'s API.

torch's exporter runs ``torch.export`` first and keeps its names: graph outputs are named after torch.export's
output nodes (``linear``, ``add_1``...) and ``Dim.AUTO``/``Dim.DYNAMIC`` dims after its symbols (``s77``).  Real
``torch.export.export`` is the oracle for both here (the ONNX exporter itself needs ``onnxscript``; where it is
installed it is compared directly too); onnxruntime runs vfw's file at two batch sizes against real torch's eager
outputs with the same weights.
"""

import importlib.util
import io
import os
import warnings

import numpy as np
import pytest

from compat_tests.torch.onnx_harness import onnx, real, run_ort, same_weights, vt

HAS_ONNXSCRIPT = importlib.util.find_spec("onnxscript") is not None


def _dims(value):
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def _real_program(model, args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return real.export.export(model, args, **kwargs)


def _real_onnx(model, args, **kwargs):
    """Real torch's dynamo export (needs onnxscript), quiet."""
    import contextlib

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return real.onnx.export(model, args, dynamo=True, **kwargs)


def _check_numbers(program, theirs, inputs_at):
    """onnxruntime on vfw's file vs real torch eager, at the example batch and another."""
    for batch in (3, 6):
        arrays = inputs_at(batch)
        got = run_ort(program.model_proto, arrays)
        with real.no_grad():
            want = theirs(*[real.from_numpy(a.copy()) for a in arrays])
        want = list(want.values()) if isinstance(want, dict) else want
        want = [want] if isinstance(want, real.Tensor) else _flatten(want)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)


def _flatten(values):
    out = []
    for v in values:
        out.extend(_flatten(v) if isinstance(v, (tuple, list)) else [v])
    return out


def _mlp(t):
    return t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 2))


def _make_heads(t):
    class Heads(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = t.nn.Linear(4, 3)

        def forward(self, x):
            h = self.proj(x)
            return {"logits": h, "probs": h.softmax(-1)}

    return Heads()


def _make_pairs(t):
    class Pairs(t.nn.Module):
        def forward(self, x, pair):
            a, b = pair
            return x + a, (x * b, (a - b).sum())

    return Pairs()


def _make_sequence(t):
    return t.nn.Sequential(t.nn.Linear(4, 6), t.nn.LayerNorm(6), t.nn.GELU(), t.nn.Linear(6, 5))


MODELS = {  # name -> (make, example args as (name, shape) per tensor, nested as the forward takes them)
    "mlp": (_mlp, [("x", (3, 4))]),
    "dict_outputs": (_make_heads, [("x", (3, 4))]),
    "nested_io": (_make_pairs, [("x", (3, 4)), ("pair", ((3, 4), (3, 4)))]),
    "linear_on_3d": (_make_sequence, [("x", (3, 7, 4))]),
}


def _arrays(spec, batch, rng):
    def draw(shape):
        if isinstance(shape[0], tuple):
            return tuple(draw(s) for s in shape)
        return rng.standard_normal((batch,) + shape[1:]).astype(np.float32)
    return [draw(shape) for _, shape in spec]


def _as(lib, value):
    return tuple(_as(lib, v) for v in value) if isinstance(value, tuple) else lib.from_numpy(value.copy())


def _leaves(values):
    return [a for v in values for a in (_leaves(v) if isinstance(v, tuple) else [v])]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_output_names_and_values_match_torch(name):
    make, spec = MODELS[name]
    theirs, ours = same_weights(make)
    rng = np.random.default_rng(0)
    example = _arrays(spec, 3, rng)
    program = vt.onnx.export(ours, tuple(_as(vt, a) for a in example))
    assert isinstance(program, vt.onnx.ONNXProgram)
    onnx.checker.check_model(program.model_proto, full_check=True)
    want = _real_program(theirs, tuple(_as(real, a) for a in example)).graph_signature.user_outputs
    assert [o.name for o in program.model_proto.graph.output] == list(want)
    assert [i.name for i in program.model_proto.graph.input] == \
        [n for n in _real_program(theirs, tuple(_as(real, a) for a in example)).graph_signature.user_inputs]
    if HAS_ONNXSCRIPT:
        theirs_file = _real_onnx(theirs, tuple(_as(real, a) for a in example)).model_proto
        assert [o.name for o in program.model_proto.graph.output] == [o.name for o in theirs_file.graph.output]
    got = run_ort(program.model_proto, _leaves(example))
    with real.no_grad():
        expect = theirs(*[_as(real, a) for a in example])
    expect = list(expect.values()) if isinstance(expect, dict) else expect
    expect = [expect] if isinstance(expect, real.Tensor) else _flatten(expect)
    for g, w in zip(got, expect):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)


def _dynamic_spec(lib, form):
    Dim = lib.export.Dim
    return {"named": {"x": {0: Dim("batch")}}, "tuple": ({0: Dim("batch")},), "auto": {"x": {0: Dim.AUTO}},
            "dynamic": {"x": {0: Dim.DYNAMIC}}, "bounded": {"x": {0: Dim("n", min=1, max=64)}},
            "per_dim_list": ([Dim("b"), None],), "string": {"x": {0: "batch"}}}[form]


@pytest.mark.parametrize("form", ["named", "tuple", "auto", "dynamic", "bounded", "per_dim_list", "string"])
def test_dynamic_shapes_forms_name_the_dims_as_torch_export(form):
    theirs, ours = same_weights(_mlp)

    class Wrap(vt.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = ours

        def forward(self, x):
            return self.inner(x)

    class RealWrap(real.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = theirs

        def forward(self, x):
            return self.inner(x)

    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    program = vt.onnx.export(Wrap(), (vt.from_numpy(x),), dynamic_shapes=_dynamic_spec(vt, form))
    onnx.checker.check_model(program.model_proto, full_check=True)
    real_shapes = _dynamic_spec(real, form)
    if form == "string":  # torch.export takes no strings: the ONNX exporter names the dim by it
        real_shapes = _dynamic_spec(real, "named")
    ep = _real_program(RealWrap(), (real.from_numpy(x),), dynamic_shapes=real_shapes)
    symbol = str(next(n for n in ep.graph.nodes if n.op == "placeholder" and n.name == "x").meta["val"].shape[0])
    given = (real_shapes["x"] if isinstance(real_shapes, dict) else real_shapes[0])[0]
    if isinstance(given, real.export.Dim):  # the ONNX exporter renames torch.export's symbol after the Dim
        symbol = given.__name__
    assert _dims(program.model_proto.graph.input[0]) == [symbol, 4]
    assert _dims(program.model_proto.graph.output[0]) == [symbol, 2]
    _check_numbers(program, theirs, lambda b: [rng.standard_normal((b, 4)).astype(np.float32)])
    if HAS_ONNXSCRIPT:
        theirs_file = _real_onnx(RealWrap(), (real.from_numpy(x),), dynamic_shapes=_dynamic_spec(real, form))
        assert _dims(theirs_file.model_proto.graph.input[0]) == _dims(program.model_proto.graph.input[0])


def test_keyword_and_nested_inputs_with_dynamic_shapes():
    theirs, ours = same_weights(_make_pairs)
    rng = np.random.default_rng(2)
    x, a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3))

    def spec(lib):
        batch = lib.export.Dim("batch")
        return {"x": {0: batch}, "pair": ({0: batch}, {0: batch})}

    program = vt.onnx.export(ours, (vt.from_numpy(x),), kwargs={"pair": (vt.from_numpy(a), vt.from_numpy(b))},
                             dynamic_shapes=spec(vt))
    ep = _real_program(theirs, (real.from_numpy(x),), kwargs={"pair": (real.from_numpy(a), real.from_numpy(b))},
                       dynamic_shapes=spec(real))
    graph = program.model_proto.graph
    assert [i.name for i in graph.input] == list(ep.graph_signature.user_inputs)
    assert [_dims(i) for i in graph.input] == [["batch", 4]] * 3
    for batch in (3, 5):
        arrays = [rng.standard_normal((batch, 4)).astype(np.float32) for _ in range(3)]
        got = run_ort(program.model_proto, arrays)
        with real.no_grad():
            first, (second, third) = theirs(real.from_numpy(arrays[0]),
                                            pair=(real.from_numpy(arrays[1]), real.from_numpy(arrays[2])))
        for g, w in zip(got, (first, second, third)):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)


def test_given_input_and_output_names_with_dynamic_shapes():
    theirs, ours = same_weights(_mlp)
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    program = vt.onnx.export(ours, (vt.from_numpy(x),), input_names=["features"], output_names=["scores"],
                             dynamic_shapes=({0: vt.export.Dim("batch")},))
    graph = program.model_proto.graph
    assert [(v.name, _dims(v)) for v in list(graph.input) + list(graph.output)] == \
        [("features", ["batch", 4]), ("scores", ["batch", 2])]
    if HAS_ONNXSCRIPT:
        theirs_file = _real_onnx(theirs, (real.from_numpy(x),), input_names=["features"], output_names=["scores"],
                                 dynamic_shapes=({0: real.export.Dim("batch")},)).model_proto
        assert [(v.name, _dims(v)) for v in list(theirs_file.graph.input) + list(theirs_file.graph.output)] == \
            [(v.name, _dims(v)) for v in list(graph.input) + list(graph.output)]


@pytest.mark.parametrize("dynamic", [False, True])
def test_an_exported_program_as_the_model(dynamic):
    theirs, ours = same_weights(_mlp)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    shapes = (lambda lib: {"input": {0: lib.export.Dim("batch")}}) if dynamic else (lambda lib: None)
    ours_ep = vt.export.export(ours, (vt.from_numpy(x),), dynamic_shapes=shapes(vt))
    theirs_ep = _real_program(theirs, (real.from_numpy(x),), dynamic_shapes=shapes(real))
    program = vt.onnx.export(ours_ep)  # the example inputs come from the program
    onnx.checker.check_model(program.model_proto, full_check=True)
    graph = program.model_proto.graph
    assert [i.name for i in graph.input] == list(theirs_ep.graph_signature.user_inputs)
    assert [o.name for o in graph.output] == list(theirs_ep.graph_signature.user_outputs)
    placeholder = next(n for n in theirs_ep.graph.nodes if n.op == "placeholder" and n.name == "input")
    # torch's ONNX exporter names an ExportedProgram's dynamic dims by torch.export's symbols, not the Dim's name
    symbol = placeholder.meta["val"].shape[0]
    assert _dims(graph.input[0]) == [str(symbol) if dynamic else 3, 4]
    if dynamic:
        assert str(symbol).startswith("s")
        _check_numbers(program, theirs, lambda b: [rng.standard_normal((b, 4)).astype(np.float32)])


def test_program_save_call_verify_and_report(tmp_path):
    theirs, ours = same_weights(_mlp)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    program = vt.onnx.export(ours, (vt.from_numpy(x),), verify=True, optimize=True)
    program.optimize()
    path = tmp_path / "model.onnx"
    program.save(str(path), external_data=True)
    assert sorted(os.listdir(tmp_path)) == ["model.onnx", "model.onnx.data"]
    loaded = onnx.load(str(path))  # reads the weights back from model.onnx.data
    onnx.checker.check_model(str(path), full_check=True)
    with real.no_grad():
        want = theirs(real.from_numpy(x)).numpy()
    np.testing.assert_allclose(run_ort(loaded, [x])[0], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        program.save(io.BytesIO(), external_data=True)
    buffer = io.BytesIO()
    program.save(buffer)
    np.testing.assert_allclose(run_ort(onnx.load_from_string(buffer.getvalue()), [x])[0], want, rtol=1e-5,
                               atol=1e-6)
    results = program(vt.from_numpy(x))
    assert isinstance(results, list) and isinstance(results[0], vt.Tensor)
    np.testing.assert_allclose(results[0].numpy(), want, rtol=1e-5, atol=1e-6)
    # f= with the default external_data=True: the weights file beside it, as ONNXProgram.save writes it
    vt.onnx.export(ours, (vt.from_numpy(x),), str(tmp_path / "f.onnx"))
    assert (tmp_path / "f.onnx.data").exists()
    reports = tmp_path / "reports"
    vt.onnx.export(ours, (vt.from_numpy(x),), report=True, artifacts_dir=str(reports))
    written = os.listdir(reports)
    assert len(written) == 1 and written[0].startswith("onnx_export_") and written[0].endswith("_success.md")
    if HAS_ONNXSCRIPT:
        theirs_program = _real_onnx(theirs, (real.from_numpy(x),))
        with pytest.raises(TypeError):
            theirs_program.save(io.BytesIO(), external_data=True)
        other = tmp_path / "theirs"
        other.mkdir()
        theirs_program.save(str(other / "model.onnx"), external_data=True)
        assert sorted(os.listdir(other)) == ["model.onnx", "model.onnx.data"]


def test_a_scalar_input_beside_a_dynamic_axis():
    # the exporter's checks at other sizes and values keep a 0-d input 0-d (numpy's ascontiguousarray makes it 1-d)
    def make(t):
        class Scaled(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = t.nn.Linear(4, 2)

            def forward(self, x, scale, offset):
                return self.proj(x) * scale + offset.float()

        return Scaled()

    theirs, ours = same_weights(make)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    scale, offset = np.array(1.5, np.float32), np.array(2, np.int64)
    program = vt.onnx.export(ours, (vt.from_numpy(x), vt.from_numpy(scale), vt.from_numpy(offset)),
                             dynamic_shapes=({0: vt.export.Dim("batch")}, None, None))
    onnx.checker.check_model(program.model_proto, full_check=True)
    assert [_dims(i) for i in program.model_proto.graph.input] == [["batch", 4], [], []]
    for batch in (3, 8):
        xs = rng.standard_normal((batch, 4)).astype(np.float32)
        got = run_ort(program.model_proto, [xs, scale, offset])[0]
        with real.no_grad():
            want = theirs(real.from_numpy(xs), real.from_numpy(scale), real.from_numpy(offset)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _bad_shapes(lib, case):
    Dim = lib.export.Dim
    return {"unknown_name": {"inp": {0: Dim("b")}}, "outside_range": {"input": {0: Dim("b", min=5, max=10)}},
            "too_many": ({0: Dim("b")}, {0: Dim("c")})}[case]


@pytest.mark.parametrize("case", ["unknown_name", "outside_range", "too_many"])
def test_dynamic_shapes_that_do_not_fit_the_call_are_refused(case):
    theirs, ours = same_weights(lambda t: t.nn.Linear(4, 3))
    x = np.random.default_rng(7).standard_normal((3, 4)).astype(np.float32)
    with pytest.raises(Exception):  # noqa: B017 - torch.export's own error types differ by case
        _real_program(theirs, (real.from_numpy(x),), dynamic_shapes=_bad_shapes(real, case))
    if HAS_ONNXSCRIPT:
        with pytest.raises(real.onnx.OnnxExporterError):
            _real_onnx(theirs, (real.from_numpy(x),), dynamic_shapes=_bad_shapes(real, case))
    with pytest.raises(vt.onnx.OnnxExporterError, match="dynamic_shapes"):
        vt.onnx.export(ours, (vt.from_numpy(x),), dynamic_shapes=_bad_shapes(vt, case))


def test_an_int_in_dynamic_shapes_is_a_static_size():
    theirs, ours = same_weights(lambda t: t.nn.Linear(4, 3))
    x = np.random.default_rng(8).standard_normal((3, 4)).astype(np.float32)
    ep = _real_program(theirs, (real.from_numpy(x),), dynamic_shapes={"input": {0: 3}})
    assert ep.range_constraints == {}  # torch.export: nothing dynamic
    program = vt.onnx.export(ours, (vt.from_numpy(x),), dynamic_shapes={"input": {0: 3}})
    assert _dims(program.model_proto.graph.input[0]) == [3, 4]
    with pytest.raises(Exception):  # noqa: B017 - torch.export: the example does not have that size
        _real_program(theirs, (real.from_numpy(x),), dynamic_shapes={"input": {0: 5}})
    with pytest.raises(vt.onnx.OnnxExporterError, match="static size 5"):
        vt.onnx.export(ours, (vt.from_numpy(x),), dynamic_shapes={"input": {0: 5}})


def test_a_file_with_external_weights_imports_as_torch_module_and_keras_layer(tmp_path):
    # dynamo=True writes the weights to <f>.data beside a path: vfw.onnx_io's wrappers take them as weights again
    from vfw import onnx_io

    theirs, ours = same_weights(_mlp)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    path = str(tmp_path / "mlp.onnx")
    vt.onnx.export(ours, (vt.from_numpy(x),), path, dynamic_shapes=({0: vt.export.Dim("batch")},))
    assert (tmp_path / "mlp.onnx.data").exists()
    others = rng.standard_normal((5, 4)).astype(np.float32)
    with real.no_grad():
        want = theirs(real.from_numpy(others)).numpy()
    module = onnx_io.to_torch_module(path)
    assert sum(p.numel() for p in module.parameters()) == sum(p.numel() for p in theirs.parameters())
    with vt.no_grad():
        np.testing.assert_allclose(module(vt.from_numpy(others)).numpy(), want, rtol=1e-5, atol=1e-6)
    layer = onnx_io.to_keras_layer(path)
    np.testing.assert_allclose(np.asarray(layer(others)), want, rtol=1e-5, atol=1e-6)
    assert sum(int(np.prod(w.shape)) for w in layer.trainable_weights) == \
        sum(p.numel() for p in theirs.parameters())
