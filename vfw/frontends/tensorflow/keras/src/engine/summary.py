"""``Model.summary()``: Keras 3's table of layers, output shapes and parameter counts, drawn as Keras draws it.

Keras renders the table with the ``rich`` library (heavy-headed box, a line between rows, one space
of padding in each cell, the table exactly ``line_length`` wide).  This module draws the same
characters without ``rich``: columns get ``int(position * line_length)`` widths, then every cell
(padding included) shrinks evenly until the table with its borders fits the line; cell text wraps
at spaces, a word longer than its cell ends with ``…``; lines wider than the console are cut.
"""

import math
import os
import re
import shutil
import sys

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import dtype_size_bits
from vfw.frontends.tensorflow.keras.src.engine.weights import count_params

_WORD = re.compile(r"\s*\S+\s*")


def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                  layer_range=None):
    """Print (or pass to ``print_fn``) the summary of ``model`` (see ``Model.summary``)."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential

    relevant_nodes = []
    if isinstance(model, Functional) and not isinstance(model, Sequential):
        layers = model._operations
        sequential_like = _is_sequential_like(model)
        relevant_nodes = [node for nodes in model._nodes_by_depth.values() for node in nodes]
    else:
        layers = model.layers
        sequential_like = True
    if sequential_like:
        default_length, positions = 88, positions or [0.45, 0.80, 1.0]
        header, justify = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default_length, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header, justify = (["Layer (type)", "Output Shape", "Param #", "Connected to"],
                           ["left", "left", "right", "left"])
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        justify.append("center")
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    widths, current = [], 0
    for position in positions:
        width = int(position * line_length) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width

    def fields(layer, prefix=""):
        params = ("0" if not hasattr(layer, "built") else "0 (unbuilt)" if not layer.built
                  else f"{layer.count_params():,}")
        row = [f"{prefix}{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        if not sequential_like:
            row.append(_connections(layer, relevant_nodes))
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if getattr(layer, "weights", None) else "-")
        return row

    def rows_of(layer, level=0):
        rows = [fields(layer, "   " * level + "└ " if level else "")]
        if expand_nested and getattr(layer, "layers", None):
            for sublayer in layer.layers:
                rows.extend(rows_of(sublayer, level + 1))
        return rows

    first, last = _layer_range(layers, layer_range)
    rows = [row for layer in layers[first:last] for row in rows_of(layer)]
    console_width = _console_width()
    table = [line[:console_width] for line in _table(header, rows, widths, justify, line_length)]
    text = [f'Model: "{model.name}"'] + table
    trainable = getattr(model, "_collected_trainable_weights", None) or model.trainable_weights
    counts = [("Total params", None), ("Trainable params", trainable),
              ("Non-trainable params", model.non_trainable_weights)]
    optimizer = getattr(model, "optimizer", None)
    optimizer_built = bool(getattr(model, "compiled", False) and optimizer is not None and
                           getattr(optimizer, "built", False))
    if optimizer_built:
        counts.append(("Optimizer params", list(optimizer.variables)))
    total = [trainable, model.non_trainable_weights] + ([counts[-1][1]] if optimizer_built else [])
    for label, weights in counts:
        groups = total if weights is None else [weights]
        number = sum(count_params(w) for w in groups)
        size = sum(_memory_size(w) for w in groups)
        text.append(f" {label}: {number:,} ({readable_size(size)})")
    output = "\n".join(text) + "\n"
    if print_fn is None:
        from vfw.frontends.tensorflow.keras.src.utils import io_utils

        if io_utils.is_interactive_logging_enabled():
            sys.stdout.write(output)
            return
        print_fn = io_utils.print_msg
        print_fn(output, line_break=False)
        return
    print_fn(output)


def _console_width():
    """The width Keras' console prints in: ``COLUMNS``, else a standard stream's terminal, else 80.

    Table lines wider than it are cut (a ``line_length`` wider than the terminal).
    """
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
    return 80


def _is_sequential_like(model):
    """Whether a functional model is a chain (one node per depth, single inputs, no layer used twice)."""
    nodes = []
    for depth_nodes in model._nodes_by_depth.values():
        if len(depth_nodes) > 1 or (len(depth_nodes) == 1 and len(nest.flatten(depth_nodes[0].input_tensors)) > 1):
            return False
        nodes += depth_nodes
    for layer in model.layers:
        if sum(1 for node in layer._inbound_nodes if node in nodes) > 1:
            return False
    return True


def _format_shape(shape):
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _output_shape(layer):
    """The output shape column: from the layer's last graph call, else its build shapes, else ``?``."""
    if not layer._inbound_nodes and not getattr(layer, "_build_shapes_dict", None):
        return "?"
    if layer._inbound_nodes:
        shapes = [_format_shape(x.shape) for x in layer._inbound_nodes[-1].output_tensors]
    else:
        try:
            try:
                shapes = _format_shape(layer.output_shape)
            except AttributeError:
                from vfw.frontends.tensorflow.keras.src.engine.layer import map_shapes

                shapes = map_shapes(_format_shape, layer.compute_output_shape(**layer._build_shapes_dict))
        except NotImplementedError:
            return "?"
    flat = nest.flatten(shapes)
    if len(flat) == 1:
        return flat[0]
    return str(shapes).replace("'", "")


def _connections(layer, relevant_nodes):
    parts = []
    for node in layer._inbound_nodes:
        if relevant_nodes and node not in relevant_nodes:
            continue
        for x in node.input_tensors:
            operation, node_index, tensor_index = x._keras_history
            parts.append(f"{operation.name}[{node_index}][{tensor_index}]")
    return ", ".join(parts) or "-"


def _layer_range(layers, layer_range):
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(f"layer_range must be a list or tuple of length 2. Received: layer_range = {layer_range} of "
                         f"length {len(layer_range)}")
    if not isinstance(layer_range[0], str) or not isinstance(layer_range[1], str):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    upper = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not lower or not upper:
        raise ValueError(f"Passed layer_names do not match the layer names in the model. Received: {layer_range}")
    if min(lower) > max(upper):
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


def _memory_size(weights):
    """Bytes of ``weights`` (each variable once)."""
    unique = {id(w): w for w in weights}.values()
    return sum(math.prod(w.shape) * dtype_size_bits(w.dtype) for w in unique) / 8


def readable_size(size):
    """``size`` bytes as Keras writes them: ``"92.00 B"``, ``"1.50 KB"``..."""
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


# -- the table ----------------------------------------------------------------------------------------------
def _table(header, rows, widths, justify, line_length):
    """The table's lines: a heavy header, rows separated by lines, ``line_length`` characters wide."""
    cells = [w + 2 for w in widths]  # one space of padding on each side
    excess = sum(cells) - (line_length - len(cells) - 1)
    if excess > 0:
        cells = _shrink_evenly(cells, excess)
    inner = [max(c - 2, 0) for c in cells]

    def render(row, border, bottom_aligned=False):
        wrapped = [_wrap(text, width, how) for text, width, how in zip(row, inner, justify)]
        height = max(len(lines) for lines in wrapped)
        blank = [[" " * width] * (height - len(cell)) for cell, width in zip(wrapped, inner)]
        wrapped = [pad + cell if bottom_aligned else cell + pad for cell, pad in zip(wrapped, blank)]
        return [border + border.join(f" {cell[i]} " for cell in wrapped) + border for i in range(height)]

    lines = ["┏" + "┳".join("━" * c for c in cells) + "┓"]
    lines += render(header, "┃", bottom_aligned=True)  # rich aligns header cells to the bottom
    lines.append("┡" + "╇".join("━" * c for c in cells) + "┩")
    for i, row in enumerate(rows):
        if i:
            lines.append("├" + "┼".join("─" * c for c in cells) + "┤")
        lines += render(row, "│")
    lines.append("└" + "┴".join("─" * c for c in cells) + "┘")
    return lines


def _shrink_evenly(widths, excess):
    """``widths`` reduced by ``excess`` in total, in equal shares (rounded), the first columns first."""
    result, remaining, columns = [], excess, len(widths)
    for width in widths:
        taken = min(width, round(remaining / columns))
        result.append(width - taken)
        remaining -= taken
        columns -= 1
    return result


def _wrap(text, width, justify):
    """``text`` wrapped at spaces into lines of ``width`` characters, justified; long words cut with ``…``."""
    if width <= 0:
        return [""]
    breaks, offset = [], 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width or (offset and start):
            if start:
                breaks.append(start)
            offset = len(word)
    bounds = [0] + breaks + [len(text)]
    lines = []
    for start, end in zip(bounds, bounds[1:]):
        line = text[start:end]
        if len(line) > width:
            line = line.rstrip() if len(line.rstrip()) <= width else line
        if justify != "left":
            line = line.rstrip()
        if len(line) > width:
            line = line[:width - 1] + "…"
        if justify == "right":
            line = line.rjust(width)
        elif justify == "center":
            pad = (width - len(line)) // 2
            line = (" " * pad + line).ljust(width)
        else:
            line = line.ljust(width)
        lines.append(line)
    return lines or [" " * width]
