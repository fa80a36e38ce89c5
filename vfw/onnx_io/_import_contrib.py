"""onnxruntime's contrib operators, as a model saved by onnxruntime's optimizer holds them.

A model saved with ``SessionOptions.optimized_model_filepath`` at ``ORT_ENABLE_EXTENDED`` holds
fused nodes in the ``com.microsoft`` domain (FusedConv, FusedGemm, FusedMatMul, Gelu,
BiasGelu, QuickGelu, SkipLayerNormalization, ...) and, for models below opset 17, onnxruntime's
own default-domain LayerNormalization and SimplifiedLayerNormalization, which ONNX does not
define at that opset.  ONNX has no schemas for them, so :func:`convert` dispatches them before
the schema lookup of :meth:`Converter.convert_node`; each is composed of engine ops with the
semantics of onnxruntime's ``docs/ContribOperators.md`` (checked against onnxruntime in
``tests/onnx/test_import_contrib.py``).  Any other operator of onnxruntime's domains is an
:class:`UnknownOpError` that names it and says how to save a model vfw can import.
"""

import numpy as np
from onnx import defs

from vfw.core.errors import OpAttributeError, UnknownOpError, VfwError
from vfw.onnx_io._import_graph import DEFAULT_DOMAIN, NodeSpec, define_outputs, normalize_domain, tensor_type
from vfw.onnx_io._import_table import int64s, known_shape, rank_of
from vfw.onnx_io._import_tensors import OnnxModelError, attribute_value

MS_DOMAIN = "com.microsoft"
# Domains only onnxruntime defines (NCHWc is what ORT_ENABLE_ALL writes on x86).
ORT_DOMAINS = frozenset({MS_DOMAIN, "com.microsoft.nchwc", "com.microsoft.experimental"})
# onnxruntime registers these in the default domain at version 1, below the opset ONNX added them at (if ever).
_ORT_DEFAULT_DOMAIN_OPS = frozenset({"LayerNormalization", "SimplifiedLayerNormalization"})

_CONTRIB = {}  # (domain, op_type) -> (handler, min inputs, max inputs, max outputs)


def _contrib(op_type, inputs, outputs=1, domain=MS_DOMAIN):
    """Register the decorated handler of ``op_type``; ``inputs`` is ``(min, max)``."""

    def wrap(fn):
        _CONTRIB[(domain, op_type)] = (fn, inputs[0], inputs[1], outputs)
        return fn

    return wrap


def supported_ops():
    """The contrib operators vfw imports, as ``domain::op_type`` strings (sorted)."""
    return sorted(f"{d or 'ai.onnx'}::{op}" for d, op in _CONTRIB)


def _onnx_defines(op_type, version):
    try:
        defs.get_schema(op_type, version, DEFAULT_DOMAIN)
    except defs.SchemaError:
        return False
    return True


def convert(conv, b, node, opsets, label):
    """Convert ``node`` when it is an onnxruntime operator and return True; False leaves it to the ONNX path."""
    domain = normalize_domain(node.domain)
    if domain == DEFAULT_DOMAIN:
        if node.op_type not in _ORT_DEFAULT_DOMAIN_OPS or _onnx_defines(node.op_type, opsets[domain]):
            return False
    elif domain not in ORT_DOMAINS:
        return False
    entry = _CONTRIB.get((domain, node.op_type))
    if entry is None:
        raise UnknownOpError(
            f"{label}: operator {domain}::{node.op_type} is an onnxruntime-internal operator that vfw does not "
            f"import (a model saved by onnxruntime's optimizer at ORT_ENABLE_ALL holds such ops). Save the "
            f"model with graph_optimization_level ORT_ENABLE_EXTENDED or ORT_ENABLE_BASIC instead; vfw imports "
            f"these onnxruntime operators: {', '.join(supported_ops())}")
    fn, min_in, max_in, max_out = entry
    if not (min_in <= len(node.input) <= max_in and 1 <= len(node.output) <= max_out):
        raise OnnxModelError(f"{label}: has {len(node.input)} inputs and {len(node.output)} outputs; "
                             f"{domain}::{node.op_type} takes {min_in} to {max_in} inputs and 1 to {max_out} "
                             "outputs")
    inputs = [b.read(n, label) for n in node.input]
    while inputs and not inputs[-1]:
        inputs.pop()
    attrs = {a.name: attribute_value(a, conv.base_dir, label) for a in node.attribute}
    spec = NodeSpec(node, inputs, [], attrs, 1, opsets, label)
    try:
        fn(b, spec)
    except VfwError as exc:
        if label in str(exc):
            raise
        raise type(exc)(f"{label}: {exc}") from None
    return True


# -- helpers ----------------------------------------------------------------------------------------------
def _input_dtype(b, spec, index=0):
    """The element dtype of input ``index`` when a constant or the model's types give it, else None."""
    value = b.constant(spec.input(index))
    if value is not None:
        return value.dtype
    name = spec.proto.input[index] if index < len(spec.proto.input) else ""
    type_proto = b.converter.type_of(name) if name else None
    return tensor_type(type_proto, spec.where)[0] if type_proto is not None else None


def _scalar(b, spec, value, like, dtype=None):
    """A scalar constant ``value`` in the dtype of engine value ``like``: ``dtype``, else input 0's dtype (the
    node's float type T) when known, else cast like ``like`` at run time."""
    dtype = dtype or _input_dtype(b, spec)
    if dtype is not None:
        return b.const(np.asarray(value, dtype))
    return b.op1("CastLike", [b.const(np.float32(value)), like], spec.where)


def _into(b, spec, op_type, inputs, out="", **attrs):
    """Emit ``op_type`` into engine value ``out`` (a fresh value when ''); returns its name.  The last op of a
    node writes into the node's output, so that no copy is left in the graph."""
    return b.op(op_type, inputs, [out] if out else 1, spec.where, **attrs)[0]


def _scale(b, spec, x, factor, out=""):
    """``x * factor`` (``x`` itself when the factor is 1 and no output is named)."""
    if factor == 1.0 and not out:
        return x
    return _into(b, spec, "Mul", [x, _scalar(b, spec, factor, x)], out)


def _attr(spec, name, default):
    return spec.attrs.get(name, default)


# Activations of FusedConv (parameters in ``activation_params``) and FusedGemm (``activation_alpha``,
# ``_beta``, ``_gamma``); each takes (builder, spec, x, params, out) and writes the activated value into ``out``.
# A missing parameter takes the default of the ONNX operator of that name.
def _param(params, i, default):
    return float(params[i]) if len(params) > i and params[i] is not None else default


def _act_op(op_type, *names_defaults):
    """An engine activation whose attribute ``names_defaults[i][0]`` is parameter ``names_defaults[i][2]`` (``i``
    when not given)."""
    def apply(b, spec, x, params, out):
        attrs = {entry[0]: _param(params, entry[2] if len(entry) > 2 else i, entry[1])
                 for i, entry in enumerate(names_defaults)}
        return _into(b, spec, op_type, [x], out, **attrs)
    return apply


def _clip(b, spec, x, params, out):
    lo = _scalar(b, spec, _param(params, 0, float(np.finfo(np.float32).min)), x)
    hi = _scalar(b, spec, _param(params, 1, float(np.finfo(np.float32).max)), x)
    return _into(b, spec, "Clip", [x, lo, hi], out)


def _scaled_tanh(b, spec, x, params, out):
    """``alpha * tanh(beta * x)``."""
    inner = b.op1("Tanh", [_scale(b, spec, x, _param(params, 1, 1.0))], spec.where)
    return _scale(b, spec, inner, _param(params, 0, 1.0), out)


def _parametric_softplus(b, spec, x, params, out):
    """``alpha * ln(1 + exp(beta * x))``."""
    inner = b.op1("Softplus", [_scale(b, spec, x, _param(params, 1, 1.0))], spec.where)
    return _scale(b, spec, inner, _param(params, 0, 1.0), out)


_ACTIVATIONS = {
    "Relu": _act_op("Relu"), "Tanh": _act_op("Tanh"), "Sigmoid": _act_op("Sigmoid"),
    "Softsign": _act_op("Softsign"), "Softplus": _act_op("Softplus"),
    "LeakyRelu": _act_op("LeakyRelu", ("alpha", 0.01)), "Elu": _act_op("Elu", ("alpha", 1.0)),
    "ThresholdedRelu": _act_op("ThresholdedRelu", ("alpha", 1.0)),
    "HardSigmoid": _act_op("HardSigmoid", ("alpha", 0.2), ("beta", 0.5)),
    "Selu": _act_op("Selu", ("alpha", 1.67326319217681884765625), ("gamma", 1.05070102214813232421875, 2)),
    "Clip": _clip, "ScaledTanh": _scaled_tanh, "ParametricSoftplus": _parametric_softplus,
}


def _activation(spec):
    """The function of the node's ``activation`` attribute (None when absent or Identity)."""
    name = spec.attrs.get("activation")
    if name is None or name == "Identity":
        return None
    fn = _ACTIVATIONS.get(name)
    if fn is None:
        raise spec.error(f"activation {name!r} is not supported (vfw supports {', '.join(sorted(_ACTIVATIONS))})",
                         OpAttributeError)
    return fn


def _activated(b, spec, op_type, inputs, params, bias="", **attrs):
    """``activation(op_type(inputs) + bias)`` into the node's output (``bias`` optional)."""
    activation = _activation(spec)
    out = define_outputs(b, spec)[0]
    last = not bias and activation is None
    y = _into(b, spec, op_type, inputs, out if last else "", **attrs)
    if bias:
        y = _into(b, spec, "Add", [y, bias], out if activation is None else "")
    if activation is not None:
        activation(b, spec, y, params, out)


# -- fused linear operators -------------------------------------------------------------------------------
_CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


@_contrib("FusedConv", (2, 4))
def _fused_conv(b, spec):
    """``activation(Conv(X, W, B) + Z)``."""
    attrs = {k: spec.attrs[k] for k in _CONV_ATTRS if k in spec.attrs}
    _activated(b, spec, "Conv", spec.inputs[:3], list(_attr(spec, "activation_params", [])), spec.input(3),
               **attrs)


@_contrib("FusedGemm", (2, 3))
def _fused_gemm(b, spec):
    """``activation(Gemm(A, B, C))``."""
    attrs = {k: spec.attrs[k] for k in ("alpha", "beta", "transA", "transB") if k in spec.attrs}
    params = [spec.attrs.get(k) for k in ("activation_alpha", "activation_beta", "activation_gamma")]
    _activated(b, spec, "Gemm", spec.inputs, params, **attrs)


def _matmul_operand(b, spec, index, batch_first, transpose):
    """Input ``index`` of FusedMatMul: ``transBatch`` moves its first dim just before the matrix dims, then
    ``trans`` swaps the two matrix dims (1-D operands are never transposed, as in onnxruntime)."""
    x = spec.input(index)
    if not (batch_first or transpose):
        return x
    shape = known_shape(b, spec, index)
    if shape is None and not batch_first:  # the rank is unknown (after another contrib op): swap the last two
        return b.op1("Einsum", [x], spec.where, equation="...ij->...ji")
    rank = rank_of(b, spec, index)
    if rank < 2:
        return x
    perm = list(range(rank))
    if batch_first:
        if rank < 3:
            raise spec.error(f"transBatch{'AB'[index]} needs an input of rank 3 or more, got rank {rank}",
                             OpAttributeError)
        perm = perm[1:-1] + [0, rank - 1]
    if transpose:
        perm[-2], perm[-1] = perm[-1], perm[-2]
    return b.op1("Transpose", [x], spec.where, perm=perm)


@_contrib("FusedMatMul", (2, 2))
@_contrib("TransposeMatMul", (2, 2))
def _fused_matmul(b, spec):
    """``alpha * MatMul(op(A), op(B))``, ``op`` the transposes of :func:`_matmul_operand`."""
    left = _matmul_operand(b, spec, 0, _attr(spec, "transBatchA", 0), _attr(spec, "transA", 0))
    right = _matmul_operand(b, spec, 1, _attr(spec, "transBatchB", 0), _attr(spec, "transB", 0))
    alpha = float(_attr(spec, "alpha", 1.0))
    out = define_outputs(b, spec)[0]
    y = _into(b, spec, "MatMul", [left, right], out if alpha == 1.0 else "")
    if alpha != 1.0:
        _scale(b, spec, y, alpha, out)


# -- GELU family -------------------------------------------------------------------------------------------
def _plus_bias(b, spec, index=1):
    x = spec.input(0)
    return b.op1("Add", [x, spec.input(index)], spec.where) if spec.input(index) else x


@_contrib("Gelu", (1, 1))
def _gelu(b, spec):
    """``x * Phi(x)`` (the exact, erf form)."""
    _into(b, spec, "Gelu", [spec.input(0)], define_outputs(b, spec)[0], approximate="none")


@_contrib("BiasGelu", (2, 2))
def _bias_gelu(b, spec):
    """Exact GELU of ``A + B``."""
    _into(b, spec, "Gelu", [_plus_bias(b, spec)], define_outputs(b, spec)[0], approximate="none")


@_contrib("FastGelu", (1, 2))
def _fast_gelu(b, spec):
    """tanh-approximated GELU of ``X + bias`` (bias optional)."""
    _into(b, spec, "Gelu", [_plus_bias(b, spec)], define_outputs(b, spec)[0], approximate="tanh")


@_contrib("QuickGelu", (1, 1))
def _quick_gelu(b, spec):
    """``x * sigmoid(alpha * x)`` (alpha 1.702 by default)."""
    x = spec.input(0)
    gate = b.op1("Sigmoid", [_scale(b, spec, x, float(_attr(spec, "alpha", 1.702)))], spec.where)
    _into(b, spec, "Mul", [x, gate], define_outputs(b, spec)[0])


# -- normalizations ----------------------------------------------------------------------------------------
@_contrib("LayerNormalization", (2, 3), outputs=3, domain=DEFAULT_DOMAIN)
def _layer_norm(b, spec):
    """onnxruntime's LayerNormalization below opset 17: the ONNX operator's semantics (attributes included)."""
    attrs = {k: spec.attrs[k] for k in ("axis", "epsilon", "stash_type") if k in spec.attrs}
    define_outputs(b, spec)
    b.op("LayerNormalization", spec.inputs, spec.outputs, spec.where, **attrs)


def _inv_std(b, spec, x, rank_index, axis, epsilon, out=""):
    """``1 / sqrt(mean(x**2) + epsilon)`` over the dims from ``axis`` on (kept as 1; float32 for half inputs,
    onnxruntime's stash type), written into ``out`` when given; ``rank_index``: the input of ``x``'s rank."""
    axes = list(range(axis, 0)) if axis < 0 else list(range(axis, rank_of(b, spec, rank_index)))
    axes = int64s(b, axes)
    dtype = _input_dtype(b, spec, rank_index)
    half = dtype is not None and dtype.itemsize == 2
    wide = b.op1("Cast", [x], spec.where, to=np.float32) if half else x
    mean_square = b.op1("ReduceMean", [b.op1("Mul", [wide, wide], spec.where), axes], spec.where, keepdims=1)
    eps = _scalar(b, spec, epsilon, mean_square, np.dtype(np.float32) if half else dtype)
    std = b.op1("Sqrt", [b.op1("Add", [mean_square, eps], spec.where)], spec.where)
    return _into(b, spec, "Reciprocal", [std], out)


@_contrib("SimplifiedLayerNormalization", (2, 2), outputs=2, domain=DEFAULT_DOMAIN)
def _simplified_layer_norm(b, spec):
    """RMS normalization: ``x / sqrt(mean(x**2) + epsilon) * scale`` over the dims from ``axis``; output 1 is
    the inverse of that root."""
    axis, epsilon = int(_attr(spec, "axis", -1)), float(_attr(spec, "epsilon", 1e-5))
    define_outputs(b, spec)
    _into(b, spec, "RMSNormalization", spec.inputs, spec.output(0), axis=axis, epsilon=epsilon)
    if spec.output(1):
        _inv_std(b, spec, spec.input(0), 0, axis, epsilon, out=spec.output(1))


def _skip_sum(b, spec, bias_index):
    """``input + skip (+ bias)``, written into output 3 when the node asks for it."""
    bias = spec.input(bias_index)
    total = _into(b, spec, "Add", [spec.input(0), spec.input(1)], "" if bias else spec.output(3))
    return _into(b, spec, "Add", [total, bias], spec.output(3)) if bias else total


@_contrib("SkipLayerNormalization", (3, 5), outputs=4)
def _skip_layer_norm(b, spec):
    """LayerNorm over the last dim of ``input + skip + bias`` with ``gamma`` and ``beta``; outputs 1 and 2 are
    its mean and inverse standard deviation, output 3 the sum."""
    epsilon = float(_attr(spec, "epsilon", 1e-12))
    define_outputs(b, spec)
    total = _skip_sum(b, spec, 4)
    inputs = [total, spec.input(2)] + ([spec.input(3)] if spec.input(3) else [])
    b.op("LayerNormalization", inputs, [spec.output(0), spec.output(1), spec.output(2)], spec.where, axis=-1,
         epsilon=epsilon)


@_contrib("SkipSimplifiedLayerNormalization", (3, 4), outputs=4)
def _skip_simplified_layer_norm(b, spec):
    """RMS normalization over the last dim of ``input + skip + bias``; output 1 (the mean) is not computed by
    onnxruntime either, output 2 is the inverse root, output 3 the sum."""
    epsilon = float(_attr(spec, "epsilon", 1e-12))
    define_outputs(b, spec)
    if spec.output(1):
        raise spec.error("output 1 (mean) is requested, but an RMS normalization has no mean (onnxruntime leaves "
                         "that output unwritten); leave the output name empty", OnnxModelError)
    total = _skip_sum(b, spec, 3)
    _into(b, spec, "RMSNormalization", [total, spec.input(2)], spec.output(0), axis=-1, epsilon=epsilon)
    if spec.output(2):
        _inv_std(b, spec, total, 0, -1, epsilon, out=spec.output(2))
