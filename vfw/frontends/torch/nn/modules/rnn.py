"""RNN, LSTM, GRU and their cells.

The stacked modules run one engine RNN / GRU / LSTM op per layer (see ``_rnn_layers``); packed
sequences become the ops' ``sequence_lens``.  Parameters, their names, shapes, initialization order,
``extra_repr`` and the errors for bad input are torch's.
"""

import math
import numbers

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _dtype
from vfw.frontends.torch._dispatch import cast
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.modules import _rnn_layers as layers
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter
from vfw.frontends.torch.nn.utils.rnn import (
    PackedSequence,
    PaddedForm,
    pack_rows,
    pad_rows,
    padded_form,
    refuse_traced_layout,
    with_padded_form,
)

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _check_type(value, kind, name):
    if not isinstance(value, kind):
        raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")


class RNNBase(Module):
    """Base class of RNN, LSTM and GRU: the parameters and the checks they share.

    Parameters
    ----------
    mode : str
        ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
    input_size, hidden_size : int
    num_layers : int
        Stacked layers; layer ``k > 0`` reads layer ``k - 1``'s output.
    bias : bool
        Whether the layers have ``bias_ih`` / ``bias_hh``.
    batch_first : bool
        Input and output are ``(B, T, *)`` instead of ``(T, B, *)`` (not the states).
    dropout : float
        Dropout probability on the outputs of every layer but the last (training only).
    bidirectional : bool
    proj_size : int
        LSTM only: project ``h`` to this size (``weight_hr``).
    device, dtype : optional
        Where and in which dtype to create the parameters.

    Attributes
    ----------
    weight_ih_l{k}[_reverse], weight_hh_l{k}[_reverse], bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse],
    weight_hr_l{k}[_reverse] : Parameter
        Per layer and direction, gate blocks in torch's order; all drawn from U(-1/sqrt(H), 1/sqrt(H)).
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warn_for_user("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}")
        _check_type(bias, bool, "bias")
        _check_type(batch_first, bool, "batch_first")
        _check_type(input_size, int, "input_size")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type(hidden_size, int, "hidden_size")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in layers.GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = layers.GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = {"weight_ih": (gate_size, layer_input), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    setattr(self, kind + suffix, Parameter(_creation.empty(shape, device=device, dtype=dtype)))
                    names.append(kind + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, name, None) for name in self._flat_weights_names]

    def __setattr__(self, name, value):
        names = self.__dict__.get("_flat_weights_names")
        if names is not None and name in names and "_flat_weights" in self.__dict__:
            self._flat_weights[names.index(name)] = value
        super().__setattr__(name, value)

    def flatten_parameters(self):
        """Nothing to do: torch compacts cuDNN weights here; vfw reads the parameters as they are."""

    def _apply(self, fn, recurse=True):
        result = super()._apply(fn, recurse)
        self._init_flat_weights()
        return result

    def reset_parameters(self):
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        """list of list of Parameter: per layer and direction, its parameters."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- checks (torch's messages) --------------------------------------------------------------
    def check_input(self, input, batch_sizes):
        """The input's dtype (that of the weights), rank and feature size."""
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). Convert "
                             f"input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        """``(num_layers * num_directions, batch, proj_size or hidden_size)``."""
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        """``hx`` with its batch dimension reordered by ``permutation`` (unchanged for None)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # -- forward ----------------------------------------------------------------------------------
    def _run(self, input, hx):
        """The shared forward: ``(output, [h_n] or [h_n, c_n])`` (``hx`` is a list of states or None)."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        packed = isinstance(input, PackedSequence)
        form = padded_form(input) if packed and self._runs_padded_form() else None
        if form is not None:
            return self._run_padded_form(input, form, hx)
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            refuse_traced_layout(batch_sizes, f"nn.{type(self).__name__}")
            if hx is not None:
                hx = [RNNBase.permute_hidden(self, s, sorted_indices) for s in hx]
            self._check_states(data, hx, batch_sizes)
            steps = batch_sizes.array
            x, lengths = pad_rows(data, steps, len(steps))
            layout, lengths = 0, lengths.astype("int32")
        else:
            if input.dim() not in (2, 3):
                tensor = " tensor" if name == "RNN" else ""
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tensor} instead")
            batched = input.dim() == 3
            if hx is not None:
                ranks = [s.dim() for s in hx]
                want = 3 if batched else 2
                if any(r != want for r in ranks):
                    raise RuntimeError(self._rank_message(batched, ranks))
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
                hx = None if hx is None else [s.unsqueeze(1) for s in hx]
            self._check_states(input, hx, None)
            x, lengths, layout = input, None, int(self.batch_first)
            if input.size(layout) == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        params = [tuple(getattr(self, n, None) for n in self._param_names(names)) for names in self._all_weights]
        states = [None] * (2 if self.mode == "LSTM" else 1) if hx is None else hx
        output, finals = layers.run_layers(self.mode, x, states, params, self.num_layers, self.bidirectional,
                                           self.dropout, self.training, layout, lengths)
        if packed:
            output = PackedSequence(pack_rows(output, lengths)[0], batch_sizes, sorted_indices, unsorted_indices)
            return output, [RNNBase.permute_hidden(self, f, unsorted_indices) for f in finals]
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            finals = [f.squeeze(1) for f in finals]
        else:
            self._name_nodes(output, finals)
        return output, finals

    def _runs_padded_form(self):
        """Whether a packed input runs on its padded form: not where torch's dropout between layers draws its
        masks over the packed rows (training), whose order only the packed layout has."""
        return not (self.training and self.dropout and self.num_layers > 1)

    def _run_padded_form(self, input, form, hx):
        """:meth:`_run` of a PackedSequence on its padded form (original batch order, the lengths as the engine
        op's ``sequence_lens``): the lengths stay values of the graph.  The output keeps a padded form too;
        its ``data`` is packed from it in the sorted order."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        x, lengths, batch_first = form
        self._check_states(data, hx, batch_sizes)  # (sizes only: the batch stays in its original order)
        params = [tuple(getattr(self, n, None) for n in self._param_names(names)) for names in self._all_weights]
        states = [None] * (2 if self.mode == "LSTM" else 1) if hx is None else hx
        sequence_lens = cast(lengths, np.dtype(np.int32))
        output, finals = layers.run_layers(self.mode, x, states, params, self.num_layers, self.bidirectional,
                                           self.dropout, self.training, int(batch_first), sequence_lens)
        steps = batch_sizes.array
        sorted_lengths = (np.arange(steps[0])[None, :] < steps[:, None]).sum(axis=0)  # (torch packs >= 1 step)
        order = None if sorted_indices is None else sorted_indices.array
        data = pack_rows(output, sorted_lengths, batch_first, order)[0]
        packed = PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)
        return with_padded_form(packed, PaddedForm(output, lengths, batch_first)), finals

    def _name_nodes(self, output, finals):
        """Give the batched results the ``grad_fn`` names of torch's CPU kernels: the final states are stacked
        per layer; the output comes from a transpose (``batch_first``), a concatenation of the directions, the
        oneDNN layer (float32/bfloat16 LSTM without projections) or a stack of the time steps."""
        onednn = self.mode == "LSTM" and self.proj_size == 0 and output.dtype in (_dtype.float32, _dtype.bfloat16)
        if self.batch_first:
            name = "TransposeBackward0" if onednn else "TransposeBackward1"
        else:
            name = "CatBackward0" if self.bidirectional else "MkldnnRnnLayerBackward0" if onednn else "StackBackward0"
        final_nodes = {id(f.grad_node) for f in finals}
        if output.grad_node is not None and id(output.grad_node) not in final_nodes:
            output.grad_node.display_name = name
        for f in finals:
            if f.grad_node is not None and f.grad_node is not output.grad_node:
                f.grad_node.display_name = "StackBackward0"

    def _onnx_export_limit(self):
        """Why the ONNX export cannot follow a dynamic sequence axis through this module (None: it can)."""
        if self.mode == "LSTM" and self.proj_size > 0:
            return (f"LSTM with proj_size={self.proj_size} runs its time steps one by one (ONNX's LSTM operator "
                    "has no projection), so its sequence axis must stay static")
        return None

    def _param_names(self, names):
        """One direction's parameter names in the order (w_ih, w_hh, b_ih, b_hh[, w_hr]), absent ones kept."""
        suffix = names[0][len("weight_ih"):]
        kinds = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"] + (["weight_hr"] if self.proj_size > 0 else [])
        return [kind + suffix for kind in kinds]

    def _rank_message(self, batched, ranks):
        return (f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx should also be "
                f"{3 if batched else 2}-D but got {ranks[0]}-D tensor")

    def _check_states(self, input, hx, batch_sizes):
        if hx is None:
            self.check_input(input, batch_sizes)
        else:
            self.check_forward_args(input, hx[0], batch_sizes)


class RNN(RNNBase):
    """Elman RNN: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` with tanh or relu, stacked.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)``; see :class:`RNNBase`.

    Shape: input ``(T, B, I)`` (``(B, T, I)`` batch first, ``(T, I)`` unbatched, or a PackedSequence),
    ``hx`` ``(L*D, B, H)``; returns ``(output (T, B, D*H), h_n (L*D, B, H))``.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)

    def forward(self, input, hx=None):
        output, (h_n,) = self._run(input, None if hx is None else [hx])
        return output, h_n


class GRU(RNNBase):
    """Gated recurrent unit, stacked (torch's gates r, z, n; ``n`` reads ``r * (h W_hn^T + b_hn)``).

    ``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)``; see :class:`RNNBase` and :class:`RNN` for shapes.
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        output, (h_n,) = self._run(input, None if hx is None else [hx])
        return output, h_n


class LSTM(RNNBase):
    """Long short-term memory, stacked (gates i, f, g, o), with optional projections (``proj_size``).

    ``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)``; see :class:`RNNBase`.

    Shape: as :class:`RNN`, with ``hx = (h_0 (L*D, B, P or H), c_0 (L*D, B, H))``; returns
    ``(output (T, B, D*(P or H)), (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        """``(num_layers * num_directions, batch, hidden_size)``."""
        shape = self.get_expected_hidden_size(input, batch_sizes)
        return shape[:2] + (self.hidden_size,)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def _rank_message(self, batched, ranks):
        return (f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx should also be "
                f"{3 if batched else 2}-D but got ({ranks[0]}-D, {ranks[1]}-D) tensors")

    def _check_states(self, input, hx, batch_sizes):
        if hx is None:
            self.check_input(input, batch_sizes)
        else:
            self.check_forward_args(input, hx, batch_sizes)

    def forward(self, input, hx=None):
        output, (h_n, c_n) = self._run(input, None if hx is None else [hx[0], hx[1]])
        return output, (h_n, c_n)


# -- cells ---------------------------------------------------------------------------------------


class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih (G*H, I)``, ``weight_hh (G*H, H)``, optional ``bias_ih``, ``bias_hh``.

    All drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_creation.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(_creation.empty((num_chunks * hidden_size, hidden_size), device=device,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        """Draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _batched(self, input, states):
        """Validate a step's input and states; ``(input, states, batched)`` with a batch dimension added."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        labels = ["hidden"] if len(states) == 1 else ["hx[0]", "hx[1]"]
        for label, s in zip(labels, states):
            if s is not None and s.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {s.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            states = [None if s is None else s.unsqueeze(0) for s in states]
        batch = input.shape[0]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for k, s in enumerate(states):
            if s is None:
                states[k] = _creation.zeros((batch, self.hidden_size), dtype=input.dtype)
            elif s.dim() != 2 or s.shape[0] != batch:
                raise RuntimeError(f"Input batch size {batch} doesn't match hidden{k} batch size "
                                   f"{s.shape[0] if s.dim() == 2 else s.shape[1]}")
            elif s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {s.shape[1]}, expected "
                                   f"{self.hidden_size}")
        return input, states, batched


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (tanh or relu).

    Shape: input ``(B, I)`` or ``(I)``, hidden ``(B, H)`` or ``(H)`` (zeros when omitted); returns ``h'``.
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, [hx])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = layers.rnn_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                              relu=self.nonlinearity == "relu")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``c' = f * c + i * g``, ``h' = o * tanh(c')`` (gates i, f, g, o).

    Shape: input ``(B, I)`` or ``(I)``, ``hx = (h, c)`` each ``(B, H)`` or ``(H)`` (zeros when omitted);
    returns ``(h', c')``.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        states = [None, None] if hx is None else [hx[0], hx[1]]
        input, (h, c), batched = self._batched(input, states)
        h, c = layers.lstm_cell(input, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (gates r, z, n): ``h' = (1 - z) * n + z * h``.

    Shape: input ``(B, I)`` or ``(I)``, hidden ``(B, H)`` or ``(H)`` (zeros when omitted); returns ``h'``.
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, [hx])
        out = layers.gru_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out if batched else out.squeeze(0)
