"""torch.onnx.export of RNN / LSTM / GRU models that pack a padded batch by a lengths tensor (an input of the
model, or computed from the tokens): vfw exports, onnxruntime runs the file at other lengths and other batch and
sequence sizes, and real torch 2.13 run eagerly on the same weights is the oracle (padded positions included)."""

import io
import itertools

import numpy as np
import pytest

from compat_tests.torch.onnx_harness import onnx, ort, real, same_weights, vt

FEATURES, HIDDEN = 6, 8
# (batch, steps, lengths) the exported files run at besides the example; enforce_sorted=True takes them sorted
EXAMPLE = (3, 7, [5, 7, 2])
OTHERS = [(4, 9, [3, 9, 1, 4]), (2, 5, [2, 3]), (5, 6, [1, 1, 4, 2, 3])]


def _export(model, inputs, dynamic, dynamo=False, names=("x", "lengths")):
    """Export the vfw ``model`` on numpy ``inputs`` (``dynamic``: axes per input name); the checked file."""
    f = io.BytesIO()
    tensors = tuple(vt.from_numpy(np.ascontiguousarray(a)) for a in inputs)
    if dynamo:
        shapes = tuple({axis: vt.export.Dim(symbol) for axis, symbol in dynamic.get(n, {}).items()} or None
                       for n in names)
        vt.onnx.export(model, tensors, f, input_names=list(names), dynamo=True, dynamic_shapes=shapes)
    else:
        vt.onnx.export(model, tensors, f, input_names=list(names), dynamo=False, dynamic_axes=dynamic)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return ort.InferenceSession(f.getvalue(), providers=["CPUExecutionProvider"])


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in _flat(item)]
    return [x]


def _compare(session, theirs, inputs, where):
    got = session.run(None, {i.name: a for i, a in zip(session.get_inputs(), inputs)})
    with real.no_grad():
        want = [t.numpy() for t in _flat(theirs(*[real.from_numpy(np.ascontiguousarray(a)) for a in inputs]))]
    assert len(got) == len(want), where
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{where} output {k}: {g.shape} {g.dtype}, torch {w.shape} " \
                                                          f"{w.dtype}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{where} output {k}")


def _recurrent(mode, layers, bidirectional, batch_first, enforce_sorted, total_length, proj_size=0):
    def make(t):
        rnn = t.nn.utils.rnn
        kwargs = {"proj_size": proj_size} if proj_size else {}

        class Packed(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = getattr(t.nn, mode)(FEATURES, HIDDEN, num_layers=layers, bidirectional=bidirectional,
                                               batch_first=batch_first, **kwargs)

            def forward(self, x, lengths):
                packed = rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
                out, state = self.rnn(packed)
                steps = x.shape[1 if batch_first else 0] if total_length else None
                out, out_lengths = rnn.pad_packed_sequence(out, batch_first=batch_first, total_length=steps)
                return out, out_lengths, state

        return Packed()

    return make


def _inputs(rng, batch, steps, lengths, batch_first, enforce_sorted):
    lengths = np.array(sorted(lengths, reverse=True) if enforce_sorted else lengths, np.int64)
    return [rng.normal(size=(batch, steps, FEATURES) if batch_first else (steps, batch, FEATURES))
            .astype(np.float32), lengths]


# every mode, depth and direction count with both layouts; sortedness and total_length take turns
CASES = [(mode, layers, bidirectional, batch_first, *options) for (mode, layers, bidirectional, batch_first), options
         in zip(itertools.product(("LSTM", "GRU", "RNN"), (1, 2), (False, True), (False, True)),
                itertools.cycle(itertools.product((False, True), (True, False))))]


@pytest.mark.parametrize("mode,layers,bidirectional,batch_first,enforce_sorted,total_length", CASES)
def test_packed_recurrent_module_runs_at_other_lengths_and_sizes(mode, layers, bidirectional, batch_first,
                                                                  enforce_sorted, total_length):
    theirs, ours = same_weights(_recurrent(mode, layers, bidirectional, batch_first, enforce_sorted, total_length))
    rng = np.random.default_rng(0)
    batch_axis, time_axis = (0, 1) if batch_first else (1, 0)
    example = _inputs(rng, *EXAMPLE, batch_first, enforce_sorted)
    session = _export(ours, example, {"x": {batch_axis: "B", time_axis: "T"}, "lengths": {0: "B"}})
    for batch, steps, lengths in [EXAMPLE] + OTHERS:
        _compare(session, theirs, _inputs(rng, batch, steps, lengths, batch_first, enforce_sorted),
                 f"batch {batch}, steps {steps}, lengths {lengths}")


def _tagger(total_length=True, lengths_from_tokens=False):
    def make(t):
        nn, rnn = t.nn, t.nn.utils.rnn

        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(100, 16)
                self.lstm = nn.LSTM(16, 32, batch_first=True, bidirectional=True)
                self.out = nn.Linear(64, 5)

            def forward(self, ids, lengths=None):
                if lengths_from_tokens:
                    lengths = (ids != 0).sum(1)
                packed = rnn.pack_padded_sequence(self.emb(ids), lengths, batch_first=True, enforce_sorted=False)
                out, (h, c) = self.lstm(packed)
                out, _ = rnn.pad_packed_sequence(out, batch_first=True,
                                                 total_length=ids.shape[1] if total_length else None)
                return self.out(out), h, c

        return Tagger()

    return make


def _tokens(rng, lengths, steps):
    ids = rng.integers(1, 100, (len(lengths), steps))
    ids[np.arange(steps)[None, :] >= np.array(lengths)[:, None]] = 0  # padding id after each sequence
    return ids


@pytest.mark.parametrize("dynamo", [False, True])
@pytest.mark.parametrize("total_length", [True, False])
def test_lstm_tagger_with_lengths_input(dynamo, total_length):
    theirs, ours = same_weights(_tagger(total_length))
    rng = np.random.default_rng(1)
    session = _export(ours, [_tokens(rng, EXAMPLE[2], EXAMPLE[1]), np.array(EXAMPLE[2])],
                      {"x": {0: "B", 1: "T"}, "lengths": {0: "B"}}, dynamo=dynamo)
    for _, steps, lengths in [EXAMPLE] + OTHERS:
        _compare(session, theirs, [_tokens(rng, lengths, steps), np.array(lengths)], f"lengths {lengths}")


@pytest.mark.parametrize("dynamo", [False, True])
def test_lstm_tagger_with_lengths_computed_from_the_tokens(dynamo):
    theirs, ours = same_weights(_tagger(lengths_from_tokens=True))
    rng = np.random.default_rng(2)
    session = _export(ours, [_tokens(rng, EXAMPLE[2], EXAMPLE[1])], {"ids": {0: "B", 1: "T"}}, dynamo=dynamo,
                      names=("ids",))
    for _, steps, lengths in [EXAMPLE] + OTHERS:
        _compare(session, theirs, [_tokens(rng, lengths, steps)], f"lengths {lengths}")


def test_lengths_given_as_a_python_list_are_constants_of_the_graph():
    lengths = [4, 6, 1]

    def make(t):
        rnn = t.nn.utils.rnn

        class Model(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = t.nn.GRU(FEATURES, HIDDEN, bidirectional=True)

            def forward(self, x):
                out, h = self.gru(rnn.pack_padded_sequence(x, lengths, enforce_sorted=False))
                return rnn.pad_packed_sequence(out, total_length=x.shape[0])[0], h

        return Model()

    theirs, ours = same_weights(make)
    rng = np.random.default_rng(3)
    session = _export(ours, [rng.normal(size=(6, 3, FEATURES)).astype(np.float32)], {"x": {0: "T"}}, names=("x",))
    for steps in (6, 9):
        _compare(session, theirs, [rng.normal(size=(steps, 3, FEATURES)).astype(np.float32)], f"steps {steps}")


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_packed_input_with_initial_states(mode):
    def make(t):
        rnn = t.nn.utils.rnn

        class Model(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = getattr(t.nn, mode)(FEATURES, HIDDEN, num_layers=2, bidirectional=True, batch_first=True)

            def forward(self, x, lengths, h0):
                state = (h0, t.tanh(h0)) if mode == "LSTM" else h0
                out, state = self.rnn(rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False),
                                      state)
                return rnn.pad_packed_sequence(out, batch_first=True, padding_value=-2.0)[0], state

        return Model()

    theirs, ours = same_weights(make)
    rng = np.random.default_rng(4)

    def inputs(batch, steps, lengths):
        return [rng.normal(size=(batch, steps, FEATURES)).astype(np.float32), np.array(lengths),
                rng.normal(size=(4, batch, HIDDEN)).astype(np.float32)]

    session = _export(ours, inputs(*EXAMPLE), {"x": {0: "B", 1: "T"}, "lengths": {0: "B"}, "h0": {1: "B"}},
                      names=("x", "lengths", "h0"))
    for batch, steps, lengths in [EXAMPLE] + OTHERS:
        _compare(session, theirs, inputs(batch, steps, lengths), f"lengths {lengths}")


def test_projected_lstm_with_packed_input_at_other_lengths():
    # no ONNX op has projections: the LSTM steps through time, so the sequence axis stays static
    theirs, ours = same_weights(_recurrent("LSTM", 2, True, True, False, True, proj_size=3))
    rng = np.random.default_rng(5)
    session = _export(ours, _inputs(rng, *EXAMPLE, True, False), {"x": {0: "B"}, "lengths": {0: "B"}})
    for lengths in ([1, 7, 3], [6, 2, 7, 4]):
        _compare(session, theirs, _inputs(rng, len(lengths), EXAMPLE[1], lengths, True, False), f"lengths {lengths}")


def test_pad_packed_sequence_without_a_recurrent_module():
    def make(t):
        rnn = t.nn.utils.rnn

        class Model(t.nn.Module):
            def forward(self, x, lengths):
                packed = rnn.pack_padded_sequence(x * 2, lengths, enforce_sorted=False)
                return rnn.pad_packed_sequence(packed, padding_value=0.5)

        return Model()

    theirs, ours = same_weights(make)
    rng = np.random.default_rng(6)
    session = _export(ours, _inputs(rng, *EXAMPLE, False, False), {"x": {0: "T", 1: "B"}, "lengths": {0: "B"}})
    for batch, steps, lengths in [EXAMPLE] + OTHERS:
        _compare(session, theirs, _inputs(rng, batch, steps, lengths, False, False), f"lengths {lengths}")


def _packed_gru(rebuild=False, layers=1, dropout=0.0):
    def make(t):
        rnn = t.nn.utils.rnn

        class Model(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.gru = t.nn.GRU(FEATURES, HIDDEN, num_layers=layers, dropout=dropout)
                self.fc = t.nn.Linear(HIDDEN, 3)

            def forward(self, x, lengths):
                out, _ = self.gru(rnn.pack_padded_sequence(x, lengths, enforce_sorted=False))
                if rebuild:  # the packed rows through a layer, packed again with the same layout
                    out = rnn.PackedSequence(self.fc(out.data), out.batch_sizes, out.sorted_indices,
                                             out.unsorted_indices)
                return rnn.pad_packed_sequence(out)[0]

        return Model()

    return make


def test_packed_sequence_rebuilt_from_its_data_is_refused_naming_it():
    # its batch_sizes are the example's, read in numpy: torch's exporter has no form for it either
    _, ours = same_weights(_packed_gru(rebuild=True))
    rng = np.random.default_rng(7)
    with pytest.raises(vt.onnx.OnnxExporterError, match=r"pad_packed_sequence\(\) reads the packed layout"):
        _export(ours, _inputs(rng, *EXAMPLE, False, False), {"x": {1: "B"}, "lengths": {0: "B"}})


def test_dropout_between_layers_in_training_mode_is_refused_naming_it():
    # torch draws the masks over the packed rows, whose layout follows the lengths' values
    _, ours = same_weights(_packed_gru(layers=2, dropout=0.5))
    rng = np.random.default_rng(8)
    inputs = tuple(vt.from_numpy(a) for a in _inputs(rng, *EXAMPLE, False, False))
    with pytest.raises(vt.onnx.OnnxExporterError, match="nn.GRU reads the packed layout"):
        vt.onnx.export(ours, inputs, io.BytesIO(), dynamo=False, training=vt.onnx.TrainingMode.TRAINING)


@pytest.mark.parametrize("mode,bidirectional,enforce_sorted,from_data",
                         [("LSTM", True, False, False), ("GRU", True, False, True), ("RNN", False, True, False),
                          ("LSTM", False, True, True)])
def test_packed_module_gradients_match_torch(mode, bidirectional, enforce_sorted, from_data):
    # eager nn modules run a packed input on its padded form: the gradients reach the input and the weights as
    # torch's do, through the padded output and through the packed rows
    theirs, ours = same_weights(lambda t: getattr(t.nn, mode)(FEATURES, HIDDEN, num_layers=2,
                                                               bidirectional=bidirectional, batch_first=True))
    rng = np.random.default_rng(9)
    x, lengths = _inputs(rng, 4, 7, [5, 7, 2, 6], True, enforce_sorted)
    scale = rng.normal(size=(20, HIDDEN * (2 if bidirectional else 1))).astype(np.float32)
    results = []
    for t, model in ((real, theirs), (vt, ours)):
        rnn = t.nn.utils.rnn
        inputs = t.from_numpy(x.copy()).requires_grad_()
        packed = rnn.pack_padded_sequence(inputs, t.from_numpy(lengths), batch_first=True,
                                          enforce_sorted=enforce_sorted)
        out, state = model(packed)
        h = state[0] if mode == "LSTM" else state
        rows = out.data if from_data else rnn.pad_packed_sequence(out, batch_first=True)[0].flatten(0, 1)[:20]
        loss = (rows * t.from_numpy(scale[:rows.shape[0]])).sum() + (h * h).sum()
        loss.backward()
        results.append([loss.detach().numpy(), inputs.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    for k, (got, want) in enumerate(zip(results[1], results[0])):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"result {k}")


@pytest.mark.parametrize("dynamo", [False, True])
def test_unsorted_example_lengths_with_enforce_sorted_raise_torchs_error(dynamo):
    # torch.onnx.export runs pack_padded_sequence on the caller's lengths, which enforce_sorted requires sorted
    theirs, ours = same_weights(_recurrent("GRU", 1, False, False, True, True))
    rng = np.random.default_rng(9)
    x, lengths = _inputs(rng, *EXAMPLE, False, False)  # [5, 7, 2]: not in decreasing order
    with pytest.raises(RuntimeError) as eager:
        theirs(real.from_numpy(x), real.from_numpy(lengths))
    with pytest.raises(RuntimeError) as exported:
        _export(ours, [x, lengths], {"x": {1: "B"}, "lengths": {0: "B"}}, dynamo=dynamo)
    assert type(exported.value) is RuntimeError and str(exported.value) == str(eager.value)


def test_projected_lstm_with_a_dynamic_sequence_axis_is_refused_naming_proj_size():
    # torch refuses LSTMs with projections in any case; vfw exports them with a static sequence axis only (above)
    theirs, ours = same_weights(lambda t: t.nn.LSTM(FEATURES, HIDDEN, proj_size=3, batch_first=True))
    x = np.random.default_rng(10).normal(size=(2, 5, FEATURES)).astype(np.float32)
    dynamic = {"x": {0: "B", 1: "T"}}
    with pytest.raises(real.onnx.errors.OnnxExporterError, match="LSTMs with projections"):
        real.onnx.export(theirs, (real.from_numpy(x),), io.BytesIO(), input_names=["x"], dynamic_axes=dynamic,
                         dynamo=False)
    with pytest.raises(vt.onnx.OnnxExporterError, match=r"\(LSTM\): LSTM with proj_size=3 .* sequence axis must stay "
                                                        "static"):
        _export(ours, [x], dynamic, names=("x",))
