"""RNN, LSTM, GRU and the cells against real torch: init, repr, outputs, states and every gradient."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, real, vt
from compat_tests.torch.nn.harness import check_init, check_module, check_repr

MODULES = {
    "rnn_tanh": lambda lib, **kw: lib.nn.RNN(4, 5, **kw),
    "rnn_relu": lambda lib, **kw: lib.nn.RNN(4, 5, nonlinearity="relu", **kw),
    "lstm": lambda lib, **kw: lib.nn.LSTM(4, 5, **kw),
    "gru": lambda lib, **kw: lib.nn.GRU(4, 5, **kw),
}
CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False, "batch_first": True},
]


def lib_of(t):
    return real if isinstance(t, real.Tensor) else vt


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_forward_backward(kind, config):
    make = MODULES[kind]
    x = arrays((3, 6, 4) if config.get("batch_first") else (6, 3, 4))
    check_module(lambda lib: make(lib, **config), x)
    check_init(lambda lib: make(lib, **config))
    check_repr(lambda lib: make(lib, **config))


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("bidirectional", [False, True])
def test_initial_states_get_gradients(kind, bidirectional):
    D = 2 if bidirectional else 1
    x, h0, c0 = arrays((5, 3, 4), (2 * D, 3, 5), (2 * D, 3, 5), seed=1)
    make = MODULES[kind]
    if kind == "lstm":
        check_module(lambda lib: make(lib, num_layers=2, bidirectional=bidirectional), x, h0, c0,
                     call=lambda m, x, h, c: m(x, (h, c)))
    else:
        check_module(lambda lib: make(lib, num_layers=2, bidirectional=bidirectional), x, h0)


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(kind, batch_first):
    x, h0, c0 = arrays((6, 4), (2, 5), (2, 5), seed=2)
    make = MODULES[kind]
    check_module(lambda lib: make(lib, bidirectional=True, batch_first=batch_first), x)
    if kind == "lstm":
        check_module(lambda lib: make(lib, bidirectional=True), x, h0, c0, call=lambda m, x, h, c: m(x, (h, c)))
    else:
        check_module(lambda lib: make(lib, bidirectional=True), x, h0)


@pytest.mark.parametrize("kind", list(MODULES))
def test_float64_and_eval_mode(kind):
    x = arrays((4, 2, 4), dtype="float64", seed=3)
    make = MODULES[kind]
    check_module(lambda lib: make(lib, num_layers=2, dtype=lib.float64), x, rtol=1e-10, atol=1e-12)
    check_module(lambda lib: make(lib, num_layers=2, dropout=0.5, bidirectional=True), x.astype(np.float32),
                 train=False)


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences(kind, enforce_sorted):
    lengths = [6, 4, 4, 1] if enforce_sorted else [2, 6, 1, 4]
    x, h0, c0 = arrays((6, 4, 4), (4, 4, 5), (4, 4, 5), seed=4)
    make = MODULES[kind]

    def run(m, x, h, c):
        lib = lib_of(x)
        packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        out, state = m(packed, (h, c) if kind == "lstm" else h)
        padded, lens = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return padded, lens, state

    check_module(lambda lib: make(lib, num_layers=2, bidirectional=True), x, h0, c0, call=run)
    # the PackedSequence itself (data, batch_sizes, sorted and unsorted indices) and the final states
    check_module(lambda lib: make(lib, bidirectional=True), x, call=lambda m, x: m(
        lib_of(x).nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)))


def test_packed_output_structure():
    x = arrays((5, 3, 4), seed=5)

    def case(lib, x):
        seq = lib.nn.utils.rnn.pack_padded_sequence(x, [3, 5, 2], enforce_sorted=False)
        out, h = lib.nn.GRU(4, 3)(seq)
        return type(out).__name__, out.batch_sizes, out.sorted_indices, out.unsorted_indices, tuple(out.data.shape), \
            tuple(h.shape)

    check(case, x)


@pytest.mark.parametrize("config", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}], ids=str)
def test_lstm_projections(config):
    x = arrays((3, 5, 4) if config.get("batch_first") else (5, 3, 4), seed=6)
    make = lambda lib: lib.nn.LSTM(4, 6, proj_size=3, **config)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "LSTM with projections is not supported with oneDNN"
        check_module(make, x)
        check_init(make)
        check_repr(make)
        D = 2 if config.get("bidirectional") else 1
        L = config.get("num_layers", 1)
        h0, c0 = arrays((L * D, 3, 3), (L * D, 3, 6), seed=7)
        check_module(make, x, h0, c0, call=lambda m, x, h, c: m(x, (h, c)))
        lengths = [5, 2, 4]
        check_module(make, x, call=lambda m, x: m(lib_of(x).nn.utils.rnn.pack_padded_sequence(
            x, lengths, batch_first=config.get("batch_first", False), enforce_sorted=False)))


def test_parameter_bookkeeping():
    def case(lib):
        m = lib.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
        m.flatten_parameters()
        return (m._flat_weights_names, m._all_weights, [[tuple(p.shape) for p in ws] for ws in m.all_weights],
                list(m.state_dict()), [n for n, _ in m.named_parameters()], m.mode, m.dropout, m.proj_size)

    check(case)
    check(lambda lib: (lib.nn.GRU(3, 4, bias=False)._flat_weights_names, lib.nn.RNN(3, 4, 2, "relu").nonlinearity,
                       lib.nn.RNN(3, 4, nonlinearity="relu").mode, lib.nn.RNN(3, 4, 2, "relu").num_layers))


def test_flat_weights_follow_assignment_and_dtype_changes():
    for lib in (real, vt):
        m = lib.nn.GRU(3, 4)
        new = lib.nn.Parameter(lib.zeros(12, 3))
        m.weight_ih_l0 = new
        assert m._flat_weights[0] is new
        m.double()
        assert m._flat_weights[0].dtype == lib.float64
        assert m(lib.zeros(2, 1, 3, dtype=lib.float64))[0].dtype == lib.float64


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.RNNCell(4, 5), lambda lib: lib.nn.RNNCell(4, 5, nonlinearity="relu", bias=False),
    lambda lib: lib.nn.LSTMCell(4, 5), lambda lib: lib.nn.GRUCell(4, 5), lambda lib: lib.nn.GRUCell(4, 5, bias=False),
])
def test_cells(make):
    x, h, c = arrays((3, 4), (3, 5), (3, 5), seed=8)
    check_init(make)
    check_repr(make)
    check_module(make, x)
    check_module(make, x[0])
    if isinstance(make(vt), vt.nn.LSTMCell):
        check_module(make, x, h, c, call=lambda m, x, h, c: m(x, (h, c)))
        check_module(make, x[0], h[0], c[0], call=lambda m, x, h, c: m(x, (h, c)))
    else:
        check_module(make, x, h)
        check_module(make, x[0], h[0])
    check_module(lambda lib: make(lib).double(), x.astype(np.float64), rtol=1e-10, atol=1e-12)


def test_cells_in_a_loop():
    x = arrays((6, 2, 4), seed=9)

    def run(m, x):
        h = c = None
        outs = []
        for t in range(x.shape[0]):
            if isinstance(m, (real.nn.LSTMCell, vt.nn.LSTMCell)):
                h, c = m(x[t], None if h is None else (h, c))
            else:
                h = m(x[t], h)
            outs.append(h)
        return lib_of(x).stack(outs)

    for make in (lambda lib: lib.nn.LSTMCell(4, 3), lambda lib: lib.nn.GRUCell(4, 3), lambda lib: lib.nn.RNNCell(4, 3)):
        check_module(make, x, call=run)


@pytest.mark.parametrize("kwargs", [
    {"dropout": 1.5}, {"dropout": True}, {"dropout": "0.1"}, {"bias": 1}, {"batch_first": None}, {"num_layers": 0},
    {"proj_size": -1}, {"proj_size": 5}, {"proj_size": 2},
])
@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh"])
def test_constructor_errors(kind, kwargs):
    check(lambda lib: repr(MODULES[kind](lib, **kwargs)))


@pytest.mark.parametrize("args", [(4.0, 5), (0, 5), (4, 0), (4, 5.0)])
def test_size_errors(args):
    check(lambda lib: repr(lib.nn.LSTM(*args)))
    check(lambda lib: repr(lib.nn.RNN(4, 5, nonlinearity="sigmoid")))


def test_dropout_warning():
    for lib in (real, vt):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.GRU(3, 4, dropout=0.5)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3, dtype=lib.float64)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 5)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3, 1)),
    lambda lib: lib.nn.RNN(3, 4)(lib.ones(2, 3, 3, 1)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3), (lib.ones(1, 3, 4), lib.ones(1, 2, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3), (lib.ones(1, 3, 5), lib.ones(1, 3, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3, 3), (lib.ones(3, 4), lib.ones(1, 3, 4))),
    lambda lib: lib.nn.LSTM(3, 4)(lib.ones(2, 3), (lib.ones(1, 3, 4), lib.ones(1, 3, 4))),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(2, 3, 3), lib.ones(2, 3, 4)),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(2, 3, 3), lib.ones(3, 4)),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(2, 3), lib.ones(1, 1, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.ones(0, 3, 3)),
    lambda lib: lib.nn.GRU(3, 4)(lib.ones(2, 0, 3)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 5)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3, 1)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3), (lib.ones(3, 4), lib.ones(3, 4))),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.ones(2, 3), (lib.ones(2, 4, 1), lib.ones(2, 4))),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.ones(2, 3), lib.ones(2, 5)),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.ones(2, 3), lib.ones(2, 4, 1)),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.ones(3), lib.ones(2, 4)),
    lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="foo")(lib.ones(2, 3)),
    lambda lib: lib.nn.RNNCell(3, 4)(lib.ones(2, 3, dtype=lib.float64)),
])
def test_forward_errors(case):
    check(case)


@pytest.mark.parametrize("kind", list(MODULES))
def test_dropout_between_layers(kind):
    # p = 1 zeroes the first layer's output in both libraries (no random numbers to compare); p < 1 only in training
    x = arrays((4, 2, 4), seed=10)
    check_module(lambda lib: MODULES[kind](lib, num_layers=2, dropout=1.0), x, train=True)
    check_module(lambda lib: MODULES[kind](lib, num_layers=3, dropout=0.3, bidirectional=True), x, train=False)
    for lib in (real, vt):
        lib.manual_seed(0)
        m = MODULES[kind](lib, num_layers=2, dropout=0.5)
        y1, y2 = (m(lib.from_numpy(x))[0] for _ in range(2))
        assert not lib.equal(y1, y2)  # a new mask per call


@pytest.mark.parametrize("kind", list(MODULES))
@pytest.mark.parametrize("packed", [False, True])
def test_dropout_masks_are_torchs(kind, packed):
    # torch's dropout masks for the same seed (packed input: drawn over the packed rows only), and the
    # generator is left where torch leaves it
    x = arrays((5, 3, 4), seed=12)

    def case(lib, x):
        lib.manual_seed(0)
        m = MODULES[kind](lib, num_layers=3, dropout=0.4, bidirectional=True)
        if packed:
            out = m(lib.nn.utils.rnn.pack_padded_sequence(x, [5, 4, 2]))[0].data
        else:
            out = m(x)[0]
        return out, lib.rand(2)
    check(case, x)


@pytest.mark.parametrize("kind", list(MODULES))
def test_inference_without_autograd(kind):
    # no backward recorded: the ONNX ops themselves (LSTM / GRU keep no activations)
    x, h0 = arrays((5, 3, 4), (2, 3, 5), seed=11)

    def run(m, x, h):
        with lib_of(x).no_grad():
            return m(x, (h, h) if kind == "lstm" else h)

    check_module(lambda lib: MODULES[kind](lib, bidirectional=True), x, h0, call=run, grad=False)
