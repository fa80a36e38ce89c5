"""Cross-framework harness: one computation through vfw.torch, vfw.tensorflow and their ONNX exports in onnxruntime.

A case is written twice, once as torch code and once as TensorFlow code, on the same numbers.
Arrays are given in torch's layout (the *canonical* layout: NCHW images, OIHW filters, torch's
gate order...); a :class:`Layout` says how the TensorFlow side holds each of them (NHWC images,
HWIO filters, Keras' gate order...) and how a gradient in that layout maps back.
:func:`check` then

- runs both sides, maps the TensorFlow results back to torch's layout and compares the values;
- differentiates ``sum(output * cotangent)`` (a fixed random cotangent per output, the same numbers
  on both sides) with torch's autograd and with ``tf.GradientTape`` and compares the gradients of
  every float input, in torch's layout;
- exports the torch side with ``torch.onnx.export`` and the TensorFlow side with
  ``vfw.onnx_io.export``, runs both models in onnxruntime and compares their outputs with the same
  values.  onnxruntime is the independent oracle here: the two frontends share vfw's engine, so
  their agreement proves the frontends' argument and layout handling, and onnxruntime's the numbers.

Needs neither real PyTorch nor real TensorFlow: users can run it against their own install.
"""

import io

import numpy as np
import onnx
import onnxruntime as ort
import vfw.tensorflow as tf
import vfw.torch as torch

import vfw.onnx_io as onnx_io

# float32 results of a few hundred accumulated products, computed in different orders by the two
# frontends' engine ops (channels-first vs channels-last kernels) and by onnxruntime.
RTOL = 1e-5
ATOL = 1e-5


class Layout:
    """How the TensorFlow side holds an array given in torch's layout.

    Parameters
    ----------
    to_tf : callable
        ndarray in torch's layout -> ndarray in TensorFlow's layout (for a Keras weight made from several torch
        tensors, such as Keras' one LSTM bias from torch's two: those arrays -> one).
    to_torch : callable
        How a gradient in TensorFlow's layout maps back to torch's (an array, or one per torch tensor).
    """

    def __init__(self, to_tf, to_torch):
        self.to_tf = to_tf
        self.to_torch = to_torch


def transposed(perm):
    """The layout of ``np.transpose(a, perm)`` (e.g. ``(0, 2, 3, 1)``: NCHW -> NHWC)."""
    inverse = tuple(np.argsort(perm))
    return Layout(lambda a: np.ascontiguousarray(np.transpose(a, perm)),
                  lambda a: np.ascontiguousarray(np.transpose(a, inverse)))


SAME = Layout(lambda a: a, lambda a: a)
CHANNELS_LAST = {3: transposed((0, 2, 1)), 4: transposed((0, 2, 3, 1)), 5: transposed((0, 2, 3, 4, 1))}
"""Channels-first (torch) -> channels-last (TF) images, by rank."""
FILTER = {3: transposed((2, 1, 0)), 4: transposed((2, 3, 1, 0)), 5: transposed((2, 3, 4, 1, 0))}
"""torch's ``(out, in, *kernel)`` filters -> TF's ``(*kernel, in, out)``, by rank."""
MATRIX_T = transposed((1, 0))
"""torch's ``(out, in)`` Linear weight -> Keras' ``(in, out)`` Dense kernel."""


def gate_blocks(order):
    """A recurrent weight with gate blocks stacked on axis 0 (torch's ``(gates * hidden, in)``) -> a Keras kernel
    ``(in, gates * hidden)`` whose blocks come in ``order`` (indices of torch's blocks); 1-D biases too."""
    inverse = list(np.argsort(order))

    def reorder(a, blocks):
        parts = np.split(a, len(blocks), axis=0)
        return np.concatenate([parts[i] for i in blocks], axis=0)

    return Layout(lambda a: np.ascontiguousarray(reorder(a, order).T),
                  lambda a: np.ascontiguousarray(reorder(np.asarray(a).T, inverse)))


def summed(layout=None):
    """A Keras weight that is the sum of two torch tensors (``layout`` of the sum; Keras' one recurrent bias for
    torch's ``bias_ih`` and ``bias_hh``): both get the sum's gradient."""
    layout = layout or SAME
    return Layout(lambda a, b: layout.to_tf(a + b), lambda g: (layout.to_torch(g),) * 2)


def stacked(layout=None):
    """A Keras weight that stacks torch tensors on a new first axis (each in ``layout``)."""
    layout = layout or SAME
    return Layout(lambda *arrays: np.stack([layout.to_tf(a) for a in arrays]),
                  lambda g: tuple(layout.to_torch(part) for part in g))


def block(index, count, layout=None):
    """A Keras weight made from block ``index`` of ``count`` equal blocks on axis 0 of one torch tensor (Keras'
    query kernel from torch's packed ``in_proj_weight``), in ``layout``; its gradient fills that block."""
    layout = layout or SAME

    def to_torch(g):
        part = layout.to_torch(g)
        return np.concatenate([part if k == index else np.zeros_like(part) for k in range(count)])

    return Layout(lambda a: layout.to_tf(np.split(a, count)[index]), to_torch)


def reshaped(tf_shape, torch_shape, transpose=False):
    """A Keras weight of ``tf_shape`` that is a torch tensor of ``torch_shape`` (a matrix transposed first when
    ``transpose``) reshaped: a Linear weight ``(heads * head_dim, model)`` -> Keras' ``(model, heads, head_dim)``
    attention kernel."""
    if transpose:
        return Layout(lambda a: np.ascontiguousarray(a.T.reshape(tf_shape)),
                      lambda g: np.ascontiguousarray(g.reshape(torch_shape[::-1]).T))
    return Layout(lambda a: a.reshape(tf_shape), lambda g: g.reshape(torch_shape))


def _relative_path(weight):
    """A Keras weight's path without its layer's name (``"lstm/lstm_cell/kernel"`` -> ``"lstm_cell/kernel"``)."""
    return weight.path.split("/", 1)[1]


def rng(seed=0):
    return np.random.default_rng(seed)


def normal(shape, seed=0, scale=1.0):
    """Float32 standard normal values (times ``scale``)."""
    return (rng(seed).standard_normal(shape) * scale).astype(np.float32)


def uniform(shape, low, high, seed=0):
    return rng(seed).uniform(low, high, shape).astype(np.float32)


def labels(shape, classes, seed=0):
    return rng(seed).integers(0, classes, shape).astype(np.int64)


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _is_float(a):
    return a.dtype.kind == "f"


def _cotangents(shapes, seed):
    return [normal(shape, seed=seed + 1000 + k) for k, shape in enumerate(shapes)]


def run_torch(fn, inputs, seed=0, parameters=None):
    """``(outputs, gradients)`` of ``fn(torch, **tensors)``: numpy outputs, and the gradients of
    ``sum(output * cotangent)`` for every float input and every tensor of ``parameters`` ({name: tensor}), as a
    dict (absent where nothing depends on it)."""
    tensors = {name: torch.tensor(a, requires_grad=_is_float(a)) for name, a in inputs.items()}
    outputs = _flat(fn(torch, **tensors))
    values = [o.detach().numpy().copy() for o in outputs]
    cotangents = _cotangents([v.shape for v in values], seed)
    loss = sum((o * torch.tensor(c)).sum() for o, c in zip(outputs, cotangents))
    sources = {name: t for name, t in tensors.items() if t.requires_grad}
    sources.update(parameters or {})
    grads = torch.autograd.grad(loss, list(sources.values()), allow_unused=True)
    return values, {n: g.numpy().copy() for n, g in zip(sources, grads) if g is not None}


def run_tf(fn, inputs, layouts=None, out_layouts=None, seed=0, variables=None):
    """:func:`run_torch` for ``fn(tf, **tensors)``: inputs are converted to TF's layout with ``layouts``
    ({name: Layout}), outputs and input gradients come back in torch's layout (``out_layouts``: one Layout per
    output); the gradients of ``variables`` ({name: tf.Variable}) stay in TF's layout."""
    layouts = layouts or {}
    tensors = {name: tf.constant(layouts.get(name, SAME).to_tf(a)) for name, a in inputs.items()}
    with tf.GradientTape() as tape:
        for t in tensors.values():
            if t.dtype.is_floating:
                tape.watch(t)
        outputs = _flat(fn(tf, **tensors))
        out_layouts = out_layouts or [SAME] * len(outputs)
        values = [lay.to_torch(o.numpy()) for o, lay in zip(outputs, out_layouts)]
        cotangents = _cotangents([v.shape for v in values], seed)
        loss = tf.add_n([tf.reduce_sum(o * tf.constant(lay.to_tf(c)))
                         for o, c, lay in zip(outputs, cotangents, out_layouts)])
    sources = {name: t for name, t in tensors.items() if t.dtype.is_floating}
    sources.update(variables or {})
    grads = tape.gradient(loss, list(sources.values()))
    found = {}
    for name, g in zip(sources, grads):
        if g is not None:
            if isinstance(g, tf.IndexedSlices):  # a gather's gradient (as TF gives it): compared densely
                g = tf.convert_to_tensor(g)
            found[name] = layouts.get(name, SAME).to_torch(g.numpy()) if name in tensors else g.numpy()
    return values, found


class _TorchFunction(torch.nn.Module):
    """A torch function as a module, for ``torch.onnx.export``."""

    def __init__(self, fn, names):
        super().__init__()
        self.fn, self.names = fn, names

    def forward(self, *tensors):
        return self.fn(torch, **dict(zip(self.names, tensors)))


class _ModuleCall(torch.nn.Module):
    """``call(module, **tensors)`` as a module (owning ``module``'s weights), for ``torch.onnx.export``."""

    def __init__(self, module, call, names):
        super().__init__()
        self.inner, self.call, self.names = module, call, names

    def forward(self, *tensors):
        return self.call(self.inner, **dict(zip(self.names, tensors)))


def run_onnx(model, arrays):
    """The outputs of ``model`` (a ModelProto) in onnxruntime."""
    onnx.checker.check_model(model, full_check=True)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: np.asarray(a) for i, a in zip(session.get_inputs(), arrays)})


def onnx_of_torch(fn, inputs):
    """``fn(torch, **tensors)`` (or an ``nn.Module`` called with the inputs in order) exported by
    ``torch.onnx.export`` (in eval mode) and run in onnxruntime on ``inputs``."""
    module = fn if isinstance(fn, torch.nn.Module) else _TorchFunction(fn, list(inputs))
    module.eval()
    buffer = io.BytesIO()
    arrays = list(inputs.values())
    torch.onnx.export(module, tuple(torch.tensor(a) for a in arrays), buffer, dynamo=False,
                      input_names=[f"in{k}" for k in range(len(arrays))])
    return run_onnx(onnx.load_from_string(buffer.getvalue()), arrays)


def onnx_of_tf(fn, inputs, layouts=None, out_layouts=None):
    """``fn(tf, **tensors)`` exported by ``vfw.onnx_io.export`` and run in onnxruntime on ``inputs`` (converted
    with ``layouts``); the outputs come back in torch's layout."""
    layouts = layouts or {}
    arrays = [layouts.get(name, SAME).to_tf(a) for name, a in inputs.items()]
    names = list(inputs)
    signature = [tf.TensorSpec(a.shape, a.dtype.name, name=name) for name, a in zip(names, arrays)]
    model = onnx_io.export(lambda *ts: fn(tf, **dict(zip(names, ts))), signature)
    outputs = run_onnx(model, arrays)
    out_layouts = out_layouts or [SAME] * len(outputs)
    return [lay.to_torch(o) for o, lay in zip(outputs, out_layouts)]


def assert_close(got, want, where, rtol=RTOL, atol=ATOL):
    """Arrays (or lists of arrays) equal in shape and close in value."""
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), f"{where}: {len(got)} results, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{where}[{k}]: shape {g.shape} != {w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{where}[{k}]")


def check(torch_fn, tf_fn, inputs, layouts=None, out_layouts=None, exports=True, rtol=RTOL, atol=ATOL, seed=0):
    """The same computation through vfw.torch, vfw.tensorflow and (``exports=True``) both ONNX exports agree.

    Parameters
    ----------
    torch_fn, tf_fn : callable
        ``torch_fn(torch, **tensors)`` / ``tf_fn(tf, **tensors)`` returning a tensor or a tuple of tensors.
    inputs : dict[str, np.ndarray]
        The inputs in torch's layout (float inputs are differentiated).
    layouts : dict[str, Layout], optional
        How TensorFlow holds each input (default: as torch).
    out_layouts : list[Layout], optional
        How TensorFlow holds each output.

    Returns
    -------
    (outputs, gradients) of the torch side.
    """
    want, want_grads = run_torch(torch_fn, inputs, seed)
    got, got_grads = run_tf(tf_fn, inputs, layouts, out_layouts, seed)
    assert_close(got, want, "vfw.tensorflow vs vfw.torch", rtol, atol)
    assert sorted(got_grads) == sorted(want_grads), f"gradients of {sorted(got_grads)} vs {sorted(want_grads)}"
    for name in want_grads:
        assert_close(got_grads[name], want_grads[name], f"gradient of {name}: vfw.tensorflow vs vfw.torch", rtol, atol)
    if exports:
        assert_close(onnx_of_torch(torch_fn, inputs), want, "onnxruntime(torch.onnx.export) vs vfw.torch", rtol, atol)
        assert_close(onnx_of_tf(tf_fn, inputs, layouts, out_layouts), want,
                     "onnxruntime(vfw.onnx_io.export) vs vfw.torch", rtol, atol)
    return want, want_grads


def check_layer(torch_module, keras_layer, inputs, weights, layouts=None, out_layouts=None, torch_call=None,
                tf_call=None, exports=True, rtol=RTOL, atol=ATOL, seed=0):
    """A torch module and a Keras layer holding the same weights agree: outputs, gradients of the inputs and of
    every weight, and both ONNX exports in onnxruntime.

    Parameters
    ----------
    torch_module : vfw.torch.nn.Module
        Its weights (as initialized) are the reference; it is run in its current train/eval mode.
    keras_layer : keras.layers.Layer
        Built by a first call on the inputs, then given torch's weights through ``weights``.
    inputs, layouts, out_layouts
        As :func:`check`.
    weights : list of (str, tuple[str], Layout)
        ``(Keras weight path, torch parameter or buffer names, layout)`` for every weight of both (the path without
        the layer's own name: ``"kernel"``, ``"lstm_cell/bias"``): the Keras weight holds
        ``layout.to_tf(*those torch tensors)``, and the gradient of a trainable one, mapped back with
        ``layout.to_torch`` (a tuple when there are several torch tensors) and summed over the Keras weights made from
        the same torch tensor, equals the torch parameters' gradients.
    torch_call, tf_call : callable, optional
        ``torch_call(module, **tensors)`` / ``tf_call(layer, **tensors)``; default: called with the inputs in order.
    """
    layouts = layouts or {}
    torch_call = torch_call or (lambda module, **ts: module(*ts.values()))
    tf_call = tf_call or (lambda layer, **ts: layer(*ts.values()))
    parameters = dict(torch_module.named_parameters())
    state = {name: t.detach().numpy() for name, t in [*parameters.items(), *torch_module.named_buffers()]
             if t.is_floating_point()}
    tf_call(keras_layer, **{name: tf.constant(layouts.get(name, SAME).to_tf(a)) for name, a in inputs.items()})
    variables = {_relative_path(w): w for w in keras_layer.weights}
    assert sorted(variables) == sorted(name for name, _, _ in weights), f"Keras weights {sorted(variables)}"
    mapped = {name for _, sources, _ in weights for name in sources}
    assert mapped == set(state), f"torch parameters and buffers {sorted(state)} vs mapped {sorted(mapped)}"
    for name, sources, layout in weights:
        variables[name].assign(layout.to_tf(*(state[s] for s in sources)))
    want, want_grads = run_torch(lambda _, **ts: torch_call(torch_module, **ts), inputs, seed, parameters)
    got, got_grads = run_tf(lambda _, **ts: tf_call(keras_layer, **ts), inputs, layouts, out_layouts, seed,
                            {"keras:" + _relative_path(w): w for w in keras_layer.trainable_weights})
    assert_close(got, want, "Keras layer vs torch module", rtol, atol)
    for name in inputs:
        if name in want_grads:
            assert_close(got_grads[name], want_grads[name], f"gradient of input {name}", rtol, atol)
    # A torch parameter's gradient is the sum of what every Keras weight made from it maps back.
    mapped_grads = {}
    for name, sources, layout in weights:
        if sources[0] in parameters:
            mapped_back = layout.to_torch(got_grads["keras:" + name])
            for source, grad in zip(sources, mapped_back if len(sources) > 1 else [mapped_back]):
                mapped_grads[source] = mapped_grads.get(source, 0) + grad
    for source, grad in mapped_grads.items():
        assert_close(grad, want_grads[source], f"gradient of torch {source} from the Keras weights", rtol, atol)
    if exports:
        assert_close(onnx_of_torch(_ModuleCall(torch_module, torch_call, list(inputs)), inputs), want,
                     "onnxruntime(torch.onnx.export) vs vfw.torch", rtol, atol)
        assert_close(onnx_of_tf(lambda _, **ts: tf_call(keras_layer, **ts), inputs, layouts, out_layouts), want,
                     "onnxruntime(vfw.onnx_io.export) vs vfw.torch", rtol, atol)
    return want, want_grads
