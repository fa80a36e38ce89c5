"""torch's functional recurrent layers: ``torch.lstm``, ``torch.gru``, ``torch.rnn_tanh``, ``torch.rnn_relu``.

They take the layer's parameters as one flat list (``w_ih, w_hh[, b_ih, b_hh][, w_hr]`` per layer and direction,
as ``nn.LSTM._flat_weights``) and come in two forms, told apart by their arguments as torch does:

- ``(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``;
- ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``: a packed sequence's
  ``data`` and ``batch_sizes`` (output packed the same way).

Both run the engine's recurrent ops through ``nn.modules._rnn_layers.run_layers`` (what ``nn.LSTM`` uses).
"""

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch.nn.modules import _rnn_layers
from vfw.frontends.torch.nn.utils.rnn import pack_rows, pad_rows

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu"]


def _layer_params(params, has_biases, num_layers, bidirectional, name):
    """The flat parameter list as ``(w_ih, w_hh, b_ih, b_hh[, w_hr])`` per layer and direction."""
    params = list(params)
    groups = num_layers * (2 if bidirectional else 1)
    per_group = 4 if has_biases else 2
    if len(params) not in (groups * per_group, groups * (per_group + 1)):
        raise RuntimeError(f"{name}: expected {groups * per_group} parameters ({num_layers} layers, "
                           f"{'bidirectional' if bidirectional else 'unidirectional'}, "
                           f"{'with' if has_biases else 'without'} biases), got {len(params)}")
    step = len(params) // groups
    result = []
    for g in range(groups):
        chunk = params[g * step:(g + 1) * step]
        weights, rest = chunk[:2], chunk[2:]
        biases, projection = (rest[:2], rest[2:]) if has_biases else ([None, None], rest)
        result.append(tuple(weights) + tuple(biases) + tuple(projection))
    return result


def _run(mode, name, args, kwargs):
    """Parse either form of the arguments and run the layers: ``(output, final states...)``."""
    states_first = mode == "LSTM"  # lstm's states are a list: its packed form has a tensor second
    packed = isinstance(args[1], CoreTensor) if states_first else isinstance(args[2], CoreTensor)
    names = (("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional")
             if packed else
             ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first"))
    if len(args) + len(kwargs) != len(names):
        raise TypeError(f"{name}() expected {len(names)} arguments ({', '.join(names)}), got {len(args) + len(kwargs)}")
    bound = dict(zip(names, args), **kwargs)
    hx = bound["hx"]
    states = list(hx) if mode == "LSTM" else [hx]
    params = _layer_params(bound["params"], bound["has_biases"], bound["num_layers"], bound["bidirectional"], name)
    if packed:
        steps = bound["batch_sizes"].array
        x, lengths = pad_rows(bound["data"], steps, len(steps))
        output, finals = _rnn_layers.run_layers(mode, x, states, params, bound["num_layers"], bound["bidirectional"],
                                                bound["dropout"], bound["train"], 0, lengths.astype("int32"))
        output = pack_rows(output, lengths)[0]
    else:
        x = bound["input"]
        if x.dim() != 3:
            raise RuntimeError(f"{name}: expected a 3-D input, got {x.dim()}-D")
        output, finals = _rnn_layers.run_layers(mode, x, states, params, bound["num_layers"], bound["bidirectional"],
                                                bound["dropout"], bound["train"], int(bool(bound["batch_first"])))
    return (output, *finals)


def lstm(*args, **kwargs):
    """``(output, h_n, c_n)`` of a stacked LSTM; ``hx`` is ``[h_0, c_0]`` (see the module docstring for the forms)."""
    return _run("LSTM", "lstm", args, kwargs)


def gru(*args, **kwargs):
    """``(output, h_n)`` of a stacked GRU (see the module docstring for the forms)."""
    return _run("GRU", "gru", args, kwargs)


def rnn_tanh(*args, **kwargs):
    """``(output, h_n)`` of a stacked Elman RNN with tanh (see the module docstring for the forms)."""
    return _run("RNN_TANH", "rnn_tanh", args, kwargs)


def rnn_relu(*args, **kwargs):
    """``(output, h_n)`` of a stacked Elman RNN with relu (see the module docstring for the forms)."""
    return _run("RNN_RELU", "rnn_relu", args, kwargs)
