"""Models exported by the REAL torch (its TorchScript exporter, ``dynamo=False``: onnxscript is not installed)
imported with vfw.onnx_io: the same outputs as torch, and fine-tuned as a vfw.torch module or a Keras layer with the
parameter updates real torch makes on the original model (eval mode: the file holds batch norm's inference form)."""

import io

import numpy as np
import pytest
import vfw.torch as vt

import vfw.onnx_io as oi

torch = pytest.importorskip("torch")


def _torch_file(model, args, **kwargs):
    buffer = io.BytesIO()
    torch.onnx.export(model, args, buffer, dynamo=False, **kwargs)
    return buffer.getvalue()


def _cnn():
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                               torch.nn.MaxPool2d(2), torch.nn.Dropout(0.3), torch.nn.Flatten(),
                               torch.nn.Linear(4 * 3 * 3, 2))


class _Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(12, 6)
        self.lstm = torch.nn.LSTM(6, 5, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(10, 4, batch_first=True)
        self.head = torch.nn.Linear(4, 3)

    def forward(self, tokens):
        return self.head(self.gru(self.lstm(self.embed(tokens))[0])[0])


def _warmed_cnn():
    """A CNN whose batch-norm statistics moved off their initial values (trained a step), in eval mode."""
    torch.manual_seed(0)
    model = _cnn()
    model(torch.randn(8, 3, 6, 6)).sum().backward()
    return model.eval()


class _Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def forward(self, x, padding):
        return self.encoder(x, src_key_padding_mask=padding)


def _seeded(make, seed):
    torch.manual_seed(seed)
    return make().eval()


_CASES = {  # name: (model, inputs(rng, batch), batch sizes run; torch bakes the batch into attention's reshapes)
    "cnn": (_warmed_cnn, lambda rng, n: (rng.standard_normal((n, 3, 6, 6)).astype(np.float32),), (2, 5)),
    "lstm_gru": (lambda: _seeded(_Tagger, 1), lambda rng, n: (rng.integers(0, 12, (n, 5)),), (2, 5)),
    "encoder": (lambda: _seeded(_Encoder, 2), lambda rng, n: (rng.standard_normal((n, 4, 8)).astype(np.float32),
                                                              np.arange(4)[None, :] >= rng.integers(1, 5, (n, 1))),
                (2,)),
}


@pytest.mark.parametrize("fold", [True, False])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_torch_exported_models_import_with_torch_results(case, fold):
    make, inputs, batches = _CASES[case]
    model = make()
    rng = np.random.default_rng(0)
    example = [torch.from_numpy(a) for a in inputs(rng, 2)]
    names = [f"in{k}" for k in range(len(example))]
    data = _torch_file(model, tuple(example), input_names=names, do_constant_folding=fold, opset_version=17,
                       dynamic_axes={n: {0: "batch"} for n in names})
    imported, module = oi.load(data), oi.to_torch_module(data)
    for batch in batches:
        arrays = inputs(rng, batch)
        with torch.no_grad():
            want = model(*[torch.from_numpy(a) for a in arrays]).numpy()
        np.testing.assert_allclose(imported(*arrays), want, rtol=1e-5, atol=1e-6)
        with vt.no_grad():
            got = module(*[vt.from_numpy(a) for a in arrays]).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _fine_tune_data():
    rng = np.random.default_rng(5)
    return rng.standard_normal((6, 3, 6, 6)).astype(np.float32), rng.integers(0, 2, 6)


def test_fine_tuning_a_torch_export_as_a_torch_module_matches_torch():
    model = _warmed_cnn()
    x, y = _fine_tune_data()
    # Without constant folding the file keeps every parameter under its torch name.
    module = oi.to_torch_module(_torch_file(model, (torch.from_numpy(x[:2]),), input_names=["images"],
                                            do_constant_folding=False, dynamic_axes={"images": {0: "batch"}}))
    params = dict(module.named_parameters())
    assert set(params) == {n for n, _ in model.named_parameters()}
    ours = vt.optim.SGD(module.parameters(), lr=0.1, momentum=0.9)
    theirs = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        for opt, net, lib in ((ours, module, vt), (theirs, model, torch)):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(net(lib.from_numpy(x)), lib.from_numpy(y))
            loss.backward()
            opt.step()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(params[name].detach().numpy(), p.detach().numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    again = io.BytesIO()
    vt.onnx.export(module, (vt.from_numpy(x),), again, dynamo=False)
    with torch.no_grad():
        np.testing.assert_allclose(oi.load(again.getvalue())(x), model(torch.from_numpy(x)).numpy(), rtol=1e-4,
                                   atol=1e-5)


def _keras_fine_tuned(epochs):
    """``(torch model, its export as a layer of a Keras model fitted for ``epochs``, that Keras model, x, y)``."""
    import vfw.tensorflow as tf

    model = _warmed_cnn()
    x, y = _fine_tune_data()
    layer = oi.to_keras_layer(_torch_file(model, (torch.from_numpy(x[:2]),), do_constant_folding=False))
    inputs = tf.keras.Input((3, 6, 6))
    keras_model = tf.keras.Model(inputs, layer(inputs))
    keras_model.compile(optimizer=tf.keras.optimizers.SGD(0.1),
                        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    keras_model.fit(x, y, batch_size=6, epochs=epochs, shuffle=False, verbose=0)
    return model, layer, keras_model, x, y


def test_fine_tuning_a_torch_export_as_a_keras_layer_matches_torch():
    model, layer, keras_model, x, y = _keras_fine_tuned(epochs=3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y)).backward()
        opt.step()
    weights = dict(zip(layer.initializer_names, layer.weights))
    for name, p in model.named_parameters():
        np.testing.assert_allclose(weights[name].numpy(), p.detach().numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    with torch.no_grad():
        np.testing.assert_allclose(keras_model.predict(x, verbose=0), model(torch.from_numpy(x)).numpy(),
                                   rtol=1e-4, atol=1e-5)


def test_fresh_batch_norm_and_relu6_fine_tune_like_torch():
    # torch's exporter merges a fresh batch norm's running statistics into its weight and bias (equal values) and
    # gives ReLU6 its bounds as scalars: only the real parameters train, with torch's gradients
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU6(),
                                torch.nn.Linear(8, 3)).eval()
    rng = np.random.default_rng(3)
    x, y = (10 * rng.standard_normal((6, 4))).astype(np.float32), rng.integers(0, 3, 6)  # ReLU6 saturates
    data = _torch_file(model, (torch.from_numpy(x),), do_constant_folding=False)
    module = oi.to_torch_module(data)
    assert sorted(n for n, _ in module.named_parameters()) == sorted(n for n, _ in model.named_parameters())
    assert {"1.running_mean", "1.running_var"} <= set(module.state_dict())
    layer = oi.to_keras_layer(data)
    assert sorted(layer.initializer_names[:len(layer.trainable_weights)]) == sorted(
        n for n, _ in model.named_parameters())
    ours = vt.optim.SGD(module.parameters(), lr=0.05)
    theirs = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(3):
        for opt, net, lib in ((ours, module, vt), (theirs, model, torch)):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(net(lib.from_numpy(x)), lib.from_numpy(y)).backward()
            opt.step()
    params = dict(module.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(params[name].detach().numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_keras_model_holding_an_onnx_layer_saves_and_loads(tmp_path):
    import vfw.tensorflow as tf

    model, _, keras_model, x, _ = _keras_fine_tuned(epochs=2)  # the weights move off the file's
    keras_model.save(tmp_path / "model.keras")
    loaded = tf.keras.models.load_model(tmp_path / "model.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), keras_model.predict(x, verbose=0))
    with torch.no_grad():  # and not the file's weights any more
        assert not np.allclose(loaded.predict(x, verbose=0), model(torch.from_numpy(x)).numpy(), atol=1e-4)


class _Scaled(torch.nn.Module):
    """Float constants the exporter writes as Constant nodes: ReLU6's bounds and a scale vector."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.act = torch.nn.ReLU6()

    def forward(self, x):
        return self.act(self.lin(x)) * torch.tensor([0.5, 1.5, -2.0, 3.0])


@pytest.mark.filterwarnings("ignore:torch.tensor results are registered as constants")
def test_double_converts_the_graph_constants_like_torch():
    torch.manual_seed(7)
    theirs = _Scaled().eval()
    module = oi.to_torch_module(_torch_file(theirs, (torch.randn(2, 4),)))
    names = {n for n, _ in module.named_parameters()}
    x = np.random.default_rng(8).standard_normal((3, 4)) * 4
    with torch.no_grad():
        want = theirs.double()(torch.from_numpy(x)).numpy()
    got = module.double()(vt.from_numpy(x))
    assert got.dtype == vt.float64 and want.dtype == np.float64
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    assert {n for n, _ in module.named_parameters()} == names  # the constants are buffers, not trained
    assert set(module.state_dict()) == set(theirs.state_dict())


def test_eval_stops_the_dropout_of_a_training_mode_export():
    # torch's TRAINING export writes Dropout(training_mode=True); the wrapped module's eval() must win, as in torch
    torch.manual_seed(9)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 256), torch.nn.Dropout(0.5))
    data = _torch_file(theirs, (torch.randn(2, 4),), training=torch.onnx.TrainingMode.TRAINING,
                       do_constant_folding=False)
    module = oi.to_torch_module(data)
    x = np.random.default_rng(10).standard_normal((3, 4)).astype(np.float32)
    with torch.no_grad():
        kept = theirs.eval()(torch.from_numpy(x)).numpy()
    dropped = module.train()(vt.from_numpy(x)).detach().numpy()
    zeros = dropped == 0
    assert 0.3 < zeros.mean() < 0.7  # training: about half dropped, the rest scaled by 1 / (1 - p)
    np.testing.assert_allclose(dropped[~zeros], kept[~zeros] * 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(module.eval()(vt.from_numpy(x)).detach().numpy(), kept, rtol=1e-5, atol=1e-6)
