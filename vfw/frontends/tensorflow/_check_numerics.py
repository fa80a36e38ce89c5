"""``tf.debugging.enable_check_numerics`` / ``disable_check_numerics``: every op's float outputs checked for
NaN and Inf.

Enabling installs ``check_outputs`` as ``_dispatch.numerics_hook``, which ``_dispatch.call`` runs after each op
(disabled, the hook costs ``call`` one comparison with None). An eager op whose output holds NaN or Inf raises
TF's InvalidArgumentError ("!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" ...", with
the counts of -Inf, +Inf and NaN elements and the op's inputs, ``[Op:CheckNumericsV2]``). Under a ``tf.function``
trace each op gets a PyFunc check that runs at every graph call ("... of graph op ..."), leaving the op's output
as it is (tapes differentiate through it).

The inputs listed are the engine op's (an attribute TF passes as a tensor, such as a reduction's axes, is not
listed). Ops that only move or reshape data are not checked, as in TF.
"""

import ml_dtypes
import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import host, op_error, wrap

_CHECK_OP = "CheckNumericsV2"
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
# Ops TF leaves unchecked (their outputs are their inputs' values moved around), by TF's and the engine's names.
_UNCHECKED_OPS = frozenset({"Identity", "Reshape", "Transpose", "ConcatV2", "Concat", "StridedSlice", "Slice",
                            "ExpandDims", "Unsqueeze", "Squeeze", "Fill", "Unpack", "ZerosLike", "PyFunc"})


def _counts_text(array):
    negative_inf = int(np.count_nonzero(array == -np.inf))
    positive_inf = int(np.count_nonzero(array == np.inf))
    nan = int(np.count_nonzero(np.isnan(array)))
    counts = "".join(f"  # of {kind} elements: {count}\n" for kind, count in
                     (("-Inf", negative_inf), ("+Inf", positive_inf), ("+NaN", nan)) if count)
    kinds = [kind for kind, count in (("-Inf", negative_inf), ("+Inf", positive_inf), ("NaN", nan)) if count]
    summary = kinds[0] if len(kinds) == 1 else " and ".join(kinds) if len(kinds) == 2 else \
        f"{kinds[0]}, {kinds[1]}, and {kinds[2]}"
    return counts, summary


def _inputs_text(inputs, graph):
    shown = [x for x in inputs if x is not None]
    texts = [str(x if graph or isinstance(x, _dispatch.Tensor) else wrap(getattr(x, "array", x))) for x in shown]
    if len(texts) == 1:
        return f"  Input tensor: {texts[0]}\n"
    return f"  Input tensors ({len(texts)}):\n" + "".join(f"         {i}: {text}\n" for i, text in enumerate(texts))


def _error(tf_op, position, count, array, inputs, graph):
    counts, summary = _counts_text(array)
    where = "graph op" if graph else "eagerly-executing op"
    dtype = _dtypes.of_array(np.asarray(array))
    # TF's graph-mode message has no element counts.
    message = (f"\n\n!!! Detected Infinity or NaN in output {position} of {where} \"{tf_op}\" (# of outputs: "
               f"{count}) !!!\n  dtype: <dtype: '{dtype.name}'>\n  shape: {tuple(np.shape(array))}\n"
               f"{'' if graph else counts}\n{_inputs_text(inputs, graph)}\n : Tensor had {summary} values")
    return op_error(message, _CHECK_OP)


def _is_checked(array):
    """Whether TF's CheckNumericsV2 covers the dtype of ``array`` (an array or a numpy scalar a kernel returned):
    half, bfloat16, float, double."""
    dtype = getattr(array, "dtype", None)
    return dtype is not None and (dtype.kind == "f" or dtype == _BFLOAT16)


def _check_eager(tf_op, inputs, outputs):
    for position, array in enumerate(outputs):
        if array is not None and _is_checked(array) and not np.isfinite(array).all():
            raise _error(tf_op, position, len(outputs), array, inputs, graph=False)


def _check_traced(tf_op, inputs, outputs):
    float_outputs = [(position, t) for position, t in enumerate(outputs) if t is not None and _is_checked(t.array)]
    if not float_outputs:
        return

    def run_check(*arrays):
        for (position, _), array in zip(float_outputs, arrays):
            if not np.isfinite(array).all():
                raise _error(tf_op, position, len(outputs), array, inputs, graph=True)
        return np.zeros(0, np.bool_)  # (a PyFunc gives an output; nothing reads it)

    try:
        host(run_check, *[t for _, t in float_outputs])
    except errors.InvalidArgumentError as e:
        e.at_run_time = True  # a graph-run error, also when the trace's own values meet it
        raise


def check_outputs(tf_op, inputs, result, traced):
    """Raise TF's InvalidArgumentError when a float output of op ``tf_op`` holds NaN or Inf (``_dispatch.call``
    calls it for every op while checking is enabled).

    Parameters
    ----------
    tf_op : str
        The op's TF name (or engine op type).
    inputs : sequence of Tensor, numpy.ndarray or None
        The op's inputs, listed in the message.
    result : numpy.ndarray or tuple of arrays (eager kernel path), or engine tensor(s) (executor path)
    traced : bool
        Whether a graph trace is open: the check then runs at every graph call.
    """
    if tf_op in _UNCHECKED_OPS:
        return
    outputs = result if result.__class__ is tuple else (result,)
    if traced:
        _check_traced(tf_op, inputs, outputs)
    else:
        _check_eager(tf_op, inputs, [getattr(r, "array", r) for r in outputs])


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Make every later op raise InvalidArgumentError when one of its float outputs holds NaN or Inf.

    Parameters
    ----------
    stack_height_limit, path_length_limit : int
        TF's limits on the creation stack trace its graph-mode messages print (accepted; vfw prints none).
    """
    _dispatch.numerics_hook = check_outputs


def disable_check_numerics():
    """Stop checking op outputs (``enable_check_numerics``); a no-op when checking is off."""
    _dispatch.numerics_hook = None


NAMESPACES = {"debugging": ["enable_check_numerics", "disable_check_numerics"]}
