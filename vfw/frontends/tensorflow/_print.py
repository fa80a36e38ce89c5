"""tf.print: TF's formatting of tensors (summarized, numpy-like), printed on every call of a tf.function.

Inside a traced function the print is a ``PyFunc`` op of the graph, so every run prints the
values of that run, in program order.  Printing is skipped while a control-flow body is traced
(a branch that a call may not take, the extra tracing run of a loop body): the ``If``/``Loop``
op prints when it runs the body.
"""

import sys

import numpy as np

from vfw.core.graph.subgraph import tracing_subgraph
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, nest

# Significant digits TF tries first, then the digits that always round-trip (per float width).
_DIGITS = {2: (6, 9), 4: (6, 9), 8: (15, 17)}


def _number(value, dtype):
    """One element as TF prints it: bools as 1/0, floats with the fewest of two precisions that round-trip."""
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return str(int(value))
    if dtype.kind == "c":
        return f"({_number(value.real, np.dtype(np.float64))},{_number(value.imag, np.dtype(np.float64))})"
    if dtype.kind == "f" or dtype.name == "bfloat16":
        x = float(value)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        short, full = _DIGITS.get(dtype.itemsize, (6, 9))
        text = f"{x:.{short}g}"
        return text if np.asarray(float(text), dtype) == np.asarray(x, dtype) else f"{x:.{full}g}"
    text = value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else str(value)
    return f'"{text}"'


def format_tensor(array, summarize=3):
    """TF's text of a tensor: nested brackets, elements separated by spaces, ``...`` beyond ``summarize``
    elements at each end of every dimension (all elements when ``summarize`` is -1)."""
    dtype = array.dtype
    if array.ndim == 0:
        return _number(array.reshape(())[()], dtype)
    ends = None if summarize is None or summarize < 0 else summarize

    def rows(sub, dim):
        n = sub.shape[0]
        if dim == array.ndim - 1:
            sep = " "
        else:
            sep = "\n" * (array.ndim - dim - 1) + " " * (dim + 1)
        if ends is None or n <= 2 * ends:
            parts = [_element(sub[i], dim) for i in range(n)]
        else:
            parts = [_element(sub[i], dim) for i in range(ends)] + ["..."] + \
                    [_element(sub[i], dim) for i in range(n - ends, n)]
        return "[" + sep.join(parts) + "]"

    def _element(item, dim):
        return rows(item, dim + 1) if dim + 1 < array.ndim else _number(item, dtype)

    return rows(array, 0)


class _Shown:
    """Stands for a tensor inside a Python structure being printed: its repr is the tensor's text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _is_tensor(x):
    return isinstance(x, CoreTensor) or hasattr(x, "_as_tensor")


def _text(template, arrays, summarize, sep, end):
    """The printed line: the inputs' texts (tensor leaves from ``arrays``) joined by ``sep``, then ``end``."""
    shown = iter([format_tensor(a, summarize) for a in arrays])
    pieces = []
    for item in template:
        if not nest.is_nested(item):
            # TF prints a string as it is and any other Python value by its repr (TensorShape([2]), tf.float32)
            pieces.append(next(shown) if item is _TENSOR else item if isinstance(item, str) else repr(item))
        else:
            leaves = [_Shown(next(shown)) if x is _TENSOR else x for x in nest.flatten(item)]
            pieces.append(str(nest.pack_sequence_as(item, leaves)))
    return sep.join(pieces) + end


_TENSOR = object()


def _write(stream, text):
    if isinstance(stream, str):
        if not stream.startswith("file://"):
            raise ValueError(f"Unsupported output stream, logging level, or file.{stream}. Supported streams are "
                             "sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error, "
                             "or a file path prefixed by 'file://'.")
        with open(stream[len("file://"):], "a") as f:
            f.write(text)
    elif hasattr(stream, "write"):
        stream.write(text)
        if hasattr(stream, "flush"):
            stream.flush()
    elif callable(stream):  # a logging function
        stream(text[:-1] if text.endswith("\n") else text)
    else:
        raise ValueError(f"Unsupported output stream, logging level, or file.{stream!r}.")


def print(*inputs, **kwargs):  # noqa: A001  (TF's name)
    """Print tensors (TF's formatting) and Python values.

    Parameters
    ----------
    *inputs : tensors, Python values, or nested lists/tuples/dicts of them
    output_stream : file-like, logging function or ``"file://path"``
        Default: ``sys.stderr`` (the current one).
    summarize : int
        Elements printed at each end of every dimension (-1: all). Default 3.
    sep : str
        Between inputs. Default ``" "``.
    end : str
        After the last input. Default ``"\\n"``.
    name : str, optional

    Returns
    -------
    None
    """
    unknown = set(kwargs) - {"output_stream", "summarize", "sep", "end", "name"}
    if unknown:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(unknown)}")
    stream = kwargs.get("output_stream", sys.stderr)
    summarize = kwargs.get("summarize", 3)
    sep = kwargs.get("sep", " ")
    end = kwargs.get("end", "\n")
    tensors = []
    template = []
    for item in inputs:
        leaves = nest.flatten(item)
        tensors += [_dispatch.convert_to_tensor(x) for x in leaves if _is_tensor(x)]
        marked = [_TENSOR if _is_tensor(x) else x for x in leaves]
        template.append(nest.pack_sequence_as(item, marked) if nest.is_nested(item) else marked[0])
    if _tracing and current_trace() is not None:
        def show(*arrays):
            if not tracing_subgraph():  # a control-flow body's tracing run prints nothing: its op will
                _write(stream, _text(template, arrays, summarize, sep, end))
            return np.zeros((), np.bool_)

        _dispatch.callback(current_trace(), show, *tensors)
        return None
    _write(stream, _text(template, [t.array for t in tensors], summarize, sep, end))
    return None


NAMESPACES = {"tf": ["print"]}
TENSOR_METHODS = {}
