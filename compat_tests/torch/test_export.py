"""torch.export vs real torch 2.13: programs' outputs, signatures, state, dynamic dims, guards, save/load."""

import numpy as np
import pytest

from compat_tests.torch.harness import LIBS, arrays

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def _model(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(4, 3)
            self.bn = lib.nn.BatchNorm1d(3)
            self.head = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(3, 2))

        def forward(self, x, y):
            return self.head(self.bn(self.fc(x))) * y, x.sum(1)

    lib.manual_seed(0)
    return Net().eval()


def _inputs(lib, batch=5, seed=0):
    x, y = arrays((batch, 4), (batch, 2), seed=seed)
    return lib.from_numpy(x), lib.from_numpy(y)


def _specs(signature):
    inputs = [(s.kind.name, s.arg.name, s.target, s.persistent) for s in signature.input_specs]
    return inputs, [s.kind.name for s in signature.output_specs]


def test_module_outputs_state_and_signature():
    programs = [lib.export.export(_model(lib), _inputs(lib)) for lib in LIBS]
    outs = [p.module()(*_inputs(lib, seed=1)) for p, lib in zip(programs, LIBS)]
    for want, got in zip(*outs):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert _specs(programs[1].graph_signature) == _specs(programs[0].graph_signature)
    sig_real, sig_vfw = (p.graph_signature for p in programs)
    assert (sig_vfw.parameters, sig_vfw.buffers, sig_vfw.user_inputs) == \
        (sig_real.parameters, sig_real.buffers, sig_real.user_inputs)
    assert list(programs[1].state_dict) == list(programs[0].state_dict)
    assert list(programs[1].module().state_dict()) == list(programs[0].module().state_dict())
    model = _model(vt)
    assert vt.export.export(model, _inputs(vt)).state_dict["fc.weight"] is model.fc.weight


def test_state_changes_reach_the_module():
    for lib in LIBS:
        module = lib.export.export(_model(lib), _inputs(lib)).module()
        x, y = _inputs(lib, seed=2)
        before = module(x, y)[0].detach().clone()
        with lib.no_grad():
            module.fc.bias.add_(1.0)
        assert not np.allclose(module(x, y)[0].detach().numpy(), before.numpy())


def test_static_shape_guard():
    for lib in LIBS:
        module = lib.export.export(_model(lib), _inputs(lib)).module()
        with pytest.raises(AssertionError, match=r"x.size\(\)\[0\] == 5"):
            module(*_inputs(lib, batch=6))


def test_dynamic_batch_dim():
    outs = []
    for lib in LIBS:
        batch = lib.export.Dim("batch", min=2, max=10)
        program = lib.export.export(_model(lib), _inputs(lib), dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
        outs.append(program.module()(*_inputs(lib, batch=7, seed=3)))
    for want, got in zip(*outs):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(vt.export.Dim("batch", min=2, max=10)) == repr(real.export.Dim("batch", min=2, max=10))


def test_save_load_roundtrip(tmp_path):
    model = _model(vt)
    program = vt.export.export(model, _inputs(vt))
    path = tmp_path / "model.pt2"
    vt.export.save(program, str(path))
    loaded = vt.export.load(str(path))
    x, y = _inputs(vt, seed=4)
    for want, got in zip(model(x, y), loaded.module()(x, y)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    assert _specs(loaded.graph_signature) == _specs(program.graph_signature)
    with pytest.raises(AssertionError):
        loaded.module()(*_inputs(vt, batch=3))


def test_load_refuses_other_files(tmp_path):
    path = tmp_path / "junk.pt2"
    path.write_bytes(b"not a zip")
    with pytest.raises(RuntimeError, match="not a vfw exported program"):
        vt.export.load(str(path))


def test_run_decompositions_and_errors():
    for lib in LIBS:
        program = lib.export.export(_model(lib), _inputs(lib))
        decomposed = program.run_decompositions()
        assert type(decomposed) is type(program)
        x, y = _inputs(lib, seed=5)
        np.testing.assert_allclose(decomposed.module()(x, y)[0].detach().numpy(),
                                   program.module()(x, y)[0].detach().numpy(), rtol=1e-6)
        with pytest.raises(RuntimeError, match="Unable to call ExportedProgram directly"):
            program(x, y)
        with pytest.raises(ValueError, match="Expected `mod` to be an instance of `torch.nn.Module`"):
            lib.export.export(lambda t: t, (x,))
        with pytest.raises(RuntimeError, match="Expecting `args` to be a tuple of example positional inputs"):
            lib.export.export(_model(lib), [x, y])
