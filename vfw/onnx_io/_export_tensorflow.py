"""``vfw.onnx_io.export``: TensorFlow-style code (functions, ``tf.function``, Keras models) to ONNX.

The function is traced on example tensors made from ``input_signature`` (``tf.TensorSpec``s):
``None`` dims become symbolic dims of the ONNX inputs (a ``None`` first dim is the shared
``batch`` axis, other ``None`` dims are named ``<input>_dim<axis>``) and are generalized as
:mod:`vfw.onnx_io._export_dynamic` describes.  Where the model refuses the example's size of a ``None`` dim after
the first (a ``"valid"`` convolution wider than it), it is traced at larger ones; where it refuses other sizes of one
such dim alone (a ``[batch, time, time]`` attention mask next to ``[batch, time]`` tokens), those dims are one
symbol.  A plain function is run as a ``tf.function`` (so
``tf.cond`` / ``tf.while_loop`` become ONNX ``If`` / ``Loop``); a Keras model is called with
``training=False`` (its input signature defaults to ``model.inputs``).  Variables become
initializers named after the variables (Keras weights by their paths), with their values before
the export (the tracing runs' assignments are undone); constants folded from a layer's weights (a batch norm's
scale and offset) are named after the layer (``<layer>/scale``).  Where a Keras model cannot be exported with its
dynamic axes, the error names the layer at fault and its class (:mod:`vfw.onnx_io._export_layers`).
"""

import contextlib
import inspect

import numpy as np

from vfw.onnx_io._export import ExportError
from vfw.onnx_io._export_layers import LayerRecorder
from vfw.onnx_io._export_trace import export_function

BATCH = "batch"
"""Symbol of ``None`` first dims."""

EXAMPLE_SIZE = 2
"""Size of ``None`` dims in the example inputs the model is traced with."""

LARGER_SIZES = (8, 32)
"""Sizes of the ``None`` dims after the first (a sequence or image axis) tried in turn where the model refuses
:data:`EXAMPLE_SIZE` (a ``Conv1D`` of kernel 3 with ``"valid"`` padding needs a longer sequence)."""


def _tf():
    import vfw.tensorflow as tf

    return tf


def _is_keras_model(obj):
    return hasattr(obj, "layers") and hasattr(obj, "weights") and callable(obj)


def _signature_of(target):
    """The input signature a callable carries (a tf.function's, or a Keras model's inputs)."""
    signature = getattr(target, "input_signature", None)
    if signature is not None:
        return list(signature)
    inputs = getattr(target, "inputs", None)
    if _is_keras_model(target) and inputs:
        tf = _tf()
        return [tf.TensorSpec(tuple(i.shape), getattr(i, "dtype", "float32"), name=getattr(i, "name", None))
                for i in inputs]
    return None


def _example(spec, rng, size=EXAMPLE_SIZE):
    """An example tensor for ``spec`` (a ``None`` first dim takes :data:`EXAMPLE_SIZE`, other ``None`` dims
    ``size``).

    Values any model takes: floats in [0, 1) and integers 0 and 1, valid indices even where they are token ids
    of a tiny vocabulary, or floats an Embedding casts (keras.io feeds float ``keras.Input``\\s to Embedding).
    """
    tf = _tf()
    dtype = np.dtype(tf.as_dtype(spec.dtype).as_numpy_dtype)
    shape = [(EXAMPLE_SIZE if a == 0 else size) if d is None else int(d) for a, d in enumerate(list(spec.shape))]
    if dtype.kind == "f" or dtype.name == "bfloat16":
        value = rng.random(shape)
    elif dtype.kind in "iu":
        value = rng.integers(0, 2, shape)
    elif dtype.kind == "b":
        value = rng.random(shape) < 0.5
    else:
        raise TypeError(f"vfw.onnx_io.export: cannot make example inputs of dtype {dtype} (input {spec.name!r})")
    return tf.constant(np.asarray(value).astype(dtype))


def _input_names(target, signature):
    try:
        params = [p.name for p in inspect.signature(getattr(target, "python_function", target)).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, spec in enumerate(signature):
        name = spec.name or (params[i] if i < len(params) and not _is_keras_model(target) else f"input_{i}")
        names.append(name if name not in names else f"{name}_{i}")
    return names


def _variables_in(obj):
    """Variables held by ``obj``: itself, a Keras model's or tf.Module's variables, or those in a list/dict."""
    if _storage_of(obj) is not None and hasattr(obj, "assign"):
        return [obj]
    held = getattr(obj, "variables", None) if not isinstance(obj, type) else None
    if isinstance(held, (list, tuple)):
        return list(held)
    if isinstance(obj, (list, tuple)):
        return [v for item in obj for v in _variables_in(item)]
    if isinstance(obj, dict):
        return [v for item in obj.values() for v in _variables_in(item)]
    return []


def _reachable_variables(target):
    """``{id(storage tensor): (name, storage)}`` of the variables the code can reach: a Keras model's or a
    tf.Module method's owner's, and those a function's closure and globals refer to."""
    function = getattr(target, "python_function", target)
    found = _variables_in(target) if _is_keras_model(target) else _variables_in(getattr(function, "__self__", None))
    try:
        refs = inspect.getclosurevars(function)
        for value in list(refs.nonlocals.values()) + list(refs.globals.values()):
            found.extend(_variables_in(value))
    except (TypeError, ValueError):
        pass  # not a Python function (a callable object)
    variables = {}
    for v in found:
        name = getattr(v, "path", None) or getattr(v, "name", None)
        storage = _storage_of(v)
        if isinstance(name, str) and storage is not None:
            variables.setdefault(id(storage), (name.split(":")[0], storage))
    return variables


def _storage_of(variable):
    """The tensor a graph trace captures for a variable: a tf.Variable's storage, or that of the tf.Variable a
    Keras variable holds."""
    for candidate in (variable, getattr(variable, "_value", None)):
        storage = getattr(candidate, "_storage", None)
        if storage is not None:
            return storage
    return None


def _naming_outputs(call, keras_names, input_names):
    """``(call, names)``: ``call`` wrapped to name the outputs in ``names`` (a list it fills at the first trace,
    before export_function reads it): by their keys where the results are a dict (as tf2onnx names a
    ``tf.function``'s), else ``keras_names`` (a Keras model's output layers, when it has several outputs)."""
    names = []

    def named(*tensors):
        result = call(*tensors)
        if not names:
            keys = _key_names(result, "") if isinstance(result, dict) else None
            found = keras_names if keys is None or len(set(keys)) != len(keys) else keys
            names.extend(f"{n}_out" if n in input_names else n for n in found)  # (an input keeps its name)
        return result

    return named, names


def _key_names(result, prefix):
    """Names of the tensors in the nested ``result`` in the order the trace flattens them (dicts in insertion order):
    the path of dict keys (``a/b``), with ``_<k>`` for the k-th item of a list or tuple."""
    if isinstance(result, dict):
        return [n for key, value in result.items() for n in _key_names(value, f"{prefix}/{key}" if prefix else
                                                                          str(key))]
    if isinstance(result, (list, tuple)):
        return [n for k, value in enumerate(result) for n in _key_names(value, f"{prefix}_{k}")]
    return [prefix] if hasattr(result, "shape") and hasattr(result, "dtype") else []


def _shared_symbols(dynamic):
    """``dynamic`` with its ``None`` dims after the first (all but ``batch``) made one symbol, the first's name; None
    where there are fewer than two.

    Each symbol is traced at other sizes on its own; a model that needs some of these dims equal (a self-attention
    mask input ``[batch, time, time]`` next to the ``[batch, time]`` tokens) refuses that, and is exported with
    them all one size (the inputs declare the shared symbol), rather than not at all.
    """
    others = [symbol for axes in dynamic.values() for symbol in axes.values() if symbol != BATCH]
    if len(others) < 2:
        return None
    return {i: {a: (symbol if symbol == BATCH else others[0]) for a, symbol in axes.items()}
            for i, axes in dynamic.items()}


def export(fn_or_keras_model, input_signature=None, path=None, opset=None, input_names=None, output_names=None):
    """Export TensorFlow-style code to an ONNX model.

    Parameters
    ----------
    fn_or_keras_model : callable, tf.function or Keras model
        Computes with ``vfw.tensorflow`` on its tensor arguments.
    input_signature : list of tf.TensorSpec, optional
        One spec per argument (``None`` dims are symbolic in the model); default: the
        ``tf.function``'s signature or the Keras model's inputs.
    path : str or os.PathLike, optional
        Where to save the model.
    opset : int, optional
        Default-domain opset (default: the newest the installed onnxruntime supports).
    input_names, output_names : list of str, optional
        Names of the graph inputs (default: the specs' names, else the function's parameter
        names) and outputs (default: the keys where the results are a dict, ``a/b`` in nested dicts and
        ``<key>_<k>`` for the items of a list in one, ``<key>_out`` for a key that names an input; else a Keras
        model's ``output_names`` when it has several outputs; else ``output`` / ``output_<k>``).

    Returns
    -------
    onnx.ModelProto
    """
    import onnx

    tf = _tf()
    signature = list(input_signature) if input_signature is not None else _signature_of(fn_or_keras_model)
    if not signature:
        raise ValueError("vfw.onnx_io.export: give an input_signature (a list of tf.TensorSpec), or a tf.function "
                         "or Keras model that carries one")
    if not all(isinstance(s, tf.TensorSpec) for s in signature):
        raise TypeError("vfw.onnx_io.export: input_signature must be a list of tf.TensorSpec, got "
                        f"{[type(s).__name__ for s in signature]}")
    target = fn_or_keras_model
    if _is_keras_model(target):
        def call(*tensors):
            return target(tensors[0] if len(tensors) == 1 else list(tensors), training=False)
    else:
        call = target if hasattr(target, "python_function") else tf.function(target)
    names = list(input_names or []) + _input_names(target, signature)[len(input_names or []):]
    dynamic = {}
    for i, spec in enumerate(signature):
        axes = {a: (BATCH if a == 0 else f"{names[i]}_dim{a}") for a, d in enumerate(list(spec.shape)) if d is None}
        if axes:
            dynamic[i] = axes
    if output_names is None:
        keras_names = []
        if _is_keras_model(target) and isinstance(getattr(target, "outputs", None), list) and len(target.outputs) > 1:
            keras_names = list(getattr(target, "output_names", None) or [])  # its output layers' names
        call, output_names = _naming_outputs(call, keras_names, names)
    graph_name = getattr(target, "name", None) or getattr(target, "__name__", None) or "main_graph"
    variables = _reachable_variables(target)
    weight_names = {key: name for key, (name, _) in variables.items()}
    state = [storage for _, storage in variables.values()]

    def write(examples, axes):  # the variables' values before the export are the weights (the traces' undone)
        return export_function(call, examples, names, output_names, axes, weight_names=weight_names, opset=opset,
                               name=graph_name, state=state, folded_names=True)

    # A Keras model's failure names the layer at fault (the ops it traced, or its own error at another size).
    recorder = LayerRecorder(target) if _is_keras_model(target) and hasattr(target, "_flatten_layers") else None
    with recorder or contextlib.nullcontext():
        model = _written(write, signature, dynamic, recorder.explained if recorder is not None else lambda e: e)
    if path is not None:
        onnx.save_model(model, path)
    return model


def _written(write, signature, dynamic, explain):
    """``write(examples, dynamic axes)`` on example inputs of the example size, else (where the model refuses it)
    larger sizes of the ``None`` dims after the first; with the dims after the first one symbol where the model
    refuses other sizes of one alone.  An ExportError is raised as ``explain`` puts it (naming a Keras layer)."""
    # Only a None dim after the first (a sequence or image axis) can be too small for the model: the batch stays.
    first = None
    sizes = (EXAMPLE_SIZE,) + (LARGER_SIZES if any(None in list(s.shape)[1:] for s in signature) else ())
    for size in sizes:
        rng = np.random.default_rng(0)
        examples = [_example(spec, rng, size) for spec in signature]
        try:
            model = write(examples, dynamic)
            break
        except ExportError as e:
            # Only the model's own error at another size of one dim (its cause) says that dims must be equal.
            shared = _shared_symbols(dynamic)
            if shared is None or e.__cause__ is None or isinstance(e.__cause__, ExportError):
                raise explain(e) from e.__cause__
            error = explain(e)  # before another run of the model
            try:
                model = write(examples, shared)
                break
            except Exception:  # noqa: BLE001 - not that either: the first error says what the model refused
                raise error from None
        except Exception as e:  # noqa: BLE001 - the model refused the example's size: a larger one, else its error
            first = first or e
    else:
        raise first
    return model
