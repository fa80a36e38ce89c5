"""Recurrent layers: torch's nn.RNN/LSTM/GRU and Keras' SimpleRNN/LSTM/GRU holding the same weights.

Weight layouts: torch stacks the gates' rows, ``(gates * hidden, in)``; Keras concatenates their
columns, ``(in, gates * hidden)``.  LSTM gates come in the same order (input, forget, cell,
output) and Keras has one bias for torch's two.  GRU gates are (reset, update, new) in torch and
(update, reset, candidate) in Keras; Keras' default ``reset_after=True`` is torch's formulation,
with the input and recurrent biases stacked in one ``(2, 3 * hidden)`` weight.
"""

import pytest

from compat_tests.cross.harness import MATRIX_T, check_layer, gate_blocks, normal, stacked, summed, tf, torch

LSTM_GATES = gate_blocks([0, 1, 2, 3])
GRU_GATES = gate_blocks([1, 0, 2])


def lstm_weights(prefix, suffix=""):
    return [(f"{prefix}/kernel", (f"weight_ih_l0{suffix}",), LSTM_GATES),
            (f"{prefix}/recurrent_kernel", (f"weight_hh_l0{suffix}",), LSTM_GATES),
            (f"{prefix}/bias", (f"bias_ih_l0{suffix}", f"bias_hh_l0{suffix}"), summed(LSTM_GATES))]


def test_simple_rnn():
    torch.manual_seed(0)
    check_layer(torch.nn.RNN(3, 4, batch_first=True),
                tf.keras.layers.SimpleRNN(4, return_sequences=True, return_state=True), dict(x=normal((2, 5, 3))),
                [("simple_rnn_cell/kernel", ("weight_ih_l0",), MATRIX_T),
                 ("simple_rnn_cell/recurrent_kernel", ("weight_hh_l0",), MATRIX_T),
                 ("simple_rnn_cell/bias", ("bias_ih_l0", "bias_hh_l0"), summed())],
                torch_call=lambda rnn, x: (lambda out, h: (out, h[0]))(*rnn(x)))


def test_lstm_sequences_and_states():
    torch.manual_seed(1)
    check_layer(torch.nn.LSTM(3, 4, batch_first=True),
                tf.keras.layers.LSTM(4, return_sequences=True, return_state=True), dict(x=normal((2, 6, 3))),
                lstm_weights("lstm_cell"), torch_call=lambda lstm, x: (lambda out, hc: (out, hc[0][0], hc[1][0]))(
                    *lstm(x)))


def test_lstm_with_initial_state():
    torch.manual_seed(2)
    check_layer(torch.nn.LSTM(2, 3, batch_first=True), tf.keras.layers.LSTM(3),
                dict(x=normal((2, 4, 2)), h=normal((2, 3), 1), c=normal((2, 3), 2)), lstm_weights("lstm_cell"),
                torch_call=lambda lstm, x, h, c: lstm(x, (h[None], c[None]))[1][0][0],
                tf_call=lambda layer, x, h, c: layer(x, initial_state=[h, c]))


@pytest.mark.parametrize("return_sequences", [True, False])
def test_gru(return_sequences):
    torch.manual_seed(3)

    def torch_call(gru, x):
        out, h = gru(x)
        return out if return_sequences else h[0]

    check_layer(torch.nn.GRU(3, 4, batch_first=True), tf.keras.layers.GRU(4, return_sequences=return_sequences),
                dict(x=normal((2, 5, 3))),
                [("gru_cell/kernel", ("weight_ih_l0",), GRU_GATES),
                 ("gru_cell/recurrent_kernel", ("weight_hh_l0",), GRU_GATES),
                 ("gru_cell/bias", ("bias_ih_l0", "bias_hh_l0"), stacked(GRU_GATES))],
                torch_call=torch_call)


def test_bidirectional_lstm():
    # torch's reverse direction is the "_reverse" parameter set; Keras wraps a forward and a backward layer and
    # concatenates their outputs in the same order.
    torch.manual_seed(4)
    check_layer(torch.nn.LSTM(3, 2, batch_first=True, bidirectional=True),
                tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, return_sequences=True, name="lstm")),
                dict(x=normal((2, 5, 3))),
                lstm_weights("forward_lstm/lstm_cell") + lstm_weights("backward_lstm/lstm_cell", "_reverse"),
                torch_call=lambda lstm, x: lstm(x)[0])


def test_lstm_cell_step():
    torch.manual_seed(5)
    check_layer(torch.nn.LSTMCell(3, 4), tf.keras.layers.LSTMCell(4),
                dict(x=normal((2, 3)), h=normal((2, 4), 1), c=normal((2, 4), 2)),
                [("kernel", ("weight_ih",), LSTM_GATES), ("recurrent_kernel", ("weight_hh",), LSTM_GATES),
                 ("bias", ("bias_ih", "bias_hh"), summed(LSTM_GATES))],
                torch_call=lambda cell, x, h, c: cell(x, (h, c)),
                tf_call=lambda cell, x, h, c: tuple(cell(x, [h, c])[1]))
