"""Recurrent layers: ``base`` (RNN, StackedRNNCells, the time loop), ``cells`` (SimpleRNNCell, LSTMCell, GRUCell),
``recurrent`` (SimpleRNN, LSTM, GRU over the engine's fused ops), ``wrappers`` (Wrapper, TimeDistributed,
Bidirectional)."""

from vfw.frontends.tensorflow.keras.src.layers.rnn import cells, recurrent, wrappers
from vfw.frontends.tensorflow.keras.src.layers.rnn.base import RNN, StackedRNNCells
from vfw.frontends.tensorflow.keras.src.layers.rnn.cells import GRUCell, LSTMCell, SimpleRNNCell
from vfw.frontends.tensorflow.keras.src.layers.rnn.recurrent import GRU, LSTM, SimpleRNN
from vfw.frontends.tensorflow.keras.src.layers.rnn.wrappers import Bidirectional, TimeDistributed, Wrapper

API = {"layers": ["RNN", "StackedRNNCells"] + cells.API["layers"] + recurrent.API["layers"] + wrappers.API["layers"]}

__all__ = ["RNN", "StackedRNNCells", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU", "Wrapper",
           "TimeDistributed", "Bidirectional"]
