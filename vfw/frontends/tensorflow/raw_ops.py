"""``tf.raw_ops``: TF's generated op wrappers, by op name (``tf.raw_ops.AddV2(x=a, y=b)``).

Each raw op here is a thin call of the vfw.tensorflow function computing the same thing, under TF's argument
names (``x``, ``y``, ``a``, ``b``, ``input``, ``axis``, ``keep_dims``...).  As in TF, they take keyword arguments
only: a positional argument raises TF's TypeError naming the keys, a missing or unknown one Python's TypeError for
the op's Python name (``add``, ``_sum``...).  Raw ops do not promote dtypes: a mismatch raises as the public ops
that call the same kernel do.
"""

import inspect

from vfw.frontends.tensorflow import _array_gather as _gather
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor

_REQUIRED = inspect.Parameter.empty


def _make(op_name, py_name, params, impl):
    """The raw op ``op_name``: keyword-only arguments ``params`` (``(name, default)``; ``_REQUIRED`` for none),
    plus ``name``, calling ``impl(**arguments)``."""
    params = list(params) + [("name", None)]
    keys = [p for p, _ in params]
    required = [p for p, default in params if default is _REQUIRED]
    defaults = {p: default for p, default in params if default is not _REQUIRED}

    def raw(*args, **kwargs):
        if args:
            raise TypeError(f"{py_name} only takes keyword args (possible keys: {keys}). Please pass these args as "
                            "kwargs instead.")
        for key in kwargs:
            if key not in keys:
                raise TypeError(f"{py_name}() got an unexpected keyword argument '{key}'")
        missing = [p for p in required if p not in kwargs]
        if missing:
            # (Python's own message for a call missing required arguments)
            quoted = [f"'{p}'" for p in missing]
            listed = quoted[0] if len(quoted) == 1 else \
                f"{', '.join(quoted[:-1])}{',' if len(quoted) > 2 else ''} and {quoted[-1]}"
            plural = "argument" if len(missing) == 1 else "arguments"
            raise TypeError(f"{py_name}() missing {len(missing)} required positional {plural}: {listed}")
        arguments = {**defaults, **kwargs}
        arguments.pop("name")
        return impl(**arguments)

    raw.__name__ = raw.__qualname__ = py_name
    raw.__module__ = "tensorflow.raw_ops"
    raw.__doc__ = f"The raw op ``{op_name}``: keyword arguments only ({', '.join(keys)})."
    raw.__signature__ = inspect.Signature(
        [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for p, d in params])
    return raw


def _kernel(op):
    from vfw.frontends.tensorflow._image_patches import kernel_prefix  # (it imports the package)

    return kernel_prefix(op)


def _tf():
    import vfw.tensorflow as tf  # (the package imports this module lazily; it is complete by then)

    return tf


# -- implementations needing more than a renamed argument -------------------------------------------------------------
def _matmul(a, b, transpose_a, transpose_b, grad_a, grad_b):
    tf = _tf()
    a, b = _matching(a, b)
    for i, t in enumerate((a, b)):
        if t.shape.rank is not None and t.shape.rank != 2:
            # MatMul is the 2-D kernel (BatchMatMulV2 takes batches); TF's oneDNN MatMul words it so for any rank
            message = f"In[{i}] ndims must be >= 2 [Op:MatMul] name: "
            raise errors.InvalidArgumentError(None, None, _kernel("__MklMatMul") + message)
    return tf.linalg.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)


def _select(condition, x, y):
    """The legacy Select: ``condition`` of ``x``'s shape, or a vector choosing rows of a rank >= 2 ``x``."""
    tf = _tf()
    cond, x = convert_to_tensor(condition, dtype=_dtypes.bool), convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    c_shape, x_shape = tuple(cond.shape.as_list()), tuple(x.shape.as_list())
    if c_shape != x_shape and len(c_shape) == 1 and len(x_shape) > 1:
        if c_shape[0] != x_shape[0]:
            raise errors.InvalidArgumentError(None, None, _kernel("Select") + "Number of batches of 'then' must match "
                                              f"size of 'cond', but saw: {x_shape[0]} vs. {c_shape[0]} [Op:Select]")
        cond = tf.reshape(cond, [-1] + [1] * (len(x_shape) - 1))
    elif c_shape != x_shape:
        raise errors.InvalidArgumentError(
            None, None, _kernel("Select") + "Inputs to operation Select of type Select must have the same size and "
            f"shape.  Input 0: [{','.join(map(str, c_shape))}] != input 1: [{','.join(map(str, x_shape))}] [Op:Select]")
    return tf.where(cond, x, y)


def _div(x, y):
    """Div: C division (truncating toward zero) for integers, true division for floats."""
    tf = _tf()
    x, y = _matching(x, y)
    return tf.truncatediv(x, y) if x.dtype.is_integer else tf.realdiv(x, y)


def _top_k(input, k, sorted, index_type):  # noqa: A002  (TF's argument names)
    tf = _tf()
    result = tf.math.top_k(input, k=k, sorted=sorted)
    if _dtypes.as_dtype(index_type) == _dtypes.int32:
        return result
    return type(result)(result.values, tf.cast(result.indices, index_type))


def _conv2d(input, filter, strides, padding, use_cudnn_on_gpu, explicit_paddings, data_format,  # noqa: A002
            dilations):
    tf = _tf()
    if padding == "EXPLICIT":
        pads = list(explicit_paddings)
        padding = [pads[i:i + 2] for i in range(0, len(pads), 2)]
    return tf.nn.conv2d(input, filter, strides=strides, padding=padding, data_format=data_format,
                        dilations=dilations)


def _pool(kind):
    def pool(input, ksize, strides, padding, data_format, explicit_paddings=()):  # noqa: A002
        tf = _tf()
        fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        return fn(input, ksize=ksize, strides=strides, padding=padding, data_format=data_format)
    return pool


def _reduce(public):
    def reduce(input, axis, keep_dims):  # noqa: A002
        return getattr(_tf(), public)(input, axis=axis, keepdims=keep_dims)
    return reduce


def _unary(path, arg="x"):
    def unary(**kwargs):
        return _attr(path)(kwargs[arg])
    return unary


def _matching(*values, default=None):
    """The inputs of an op whose type attribute they share, converted as TF converts them: Python and numpy values
    take the dtype of the first tensor among them (TypeError when they cannot hold it), else the attribute's
    ``default`` dtype (Range's int32), else the first value's."""
    tensors = [v for v in values if isinstance(v, _tensor_types())]
    dtype = tensors[0].dtype if tensors else default or convert_to_tensor(values[0]).dtype
    return [v if isinstance(v, _tensor_types()) else convert_to_tensor(v, dtype=dtype) for v in values]


def _tensor_types():
    from vfw.frontends.tensorflow._tensor import TensorBase
    from vfw.frontends.tensorflow._variables import Variable

    return TensorBase, Variable


def _binary(path, first="x", second="y", public_op=None, op_name=None):
    """A binary op on inputs of one type attribute; ``public_op``: the TF op the public function runs, named
    ``op_name`` in the errors of this raw op (the public ``tf.add`` runs AddV2, ``tf.raw_ops.Add`` Add)."""
    def binary(**kwargs):
        try:
            return _attr(path)(*_matching(kwargs[first], kwargs[second]))
        except errors.OpError as e:
            if public_op is None or f"[Op:{public_op}]" not in e.message:
                raise
            raise type(e)(e.node_def, e.op, e.message.replace(f"{public_op} as", f"{op_name} as").replace(
                f"[Op:{public_op}]", f"[Op:{op_name}]")) from None
    return binary


def _attr(path):
    target = _tf()
    for part in path.split("."):
        target = getattr(target, part)
    return target


# -- the table: (op name, Python name, TF's arguments, implementation) ------------------------------------------------
_X, _XY, _F = [("x", _REQUIRED)], [("x", _REQUIRED), ("y", _REQUIRED)], [("features", _REQUIRED)]
_REDUCE = [("input", _REQUIRED), ("axis", _REQUIRED), ("keep_dims", False)]
_TABLE = [
    # element-wise binary
    ("Add", "add", _XY, _binary("math.add", public_op="AddV2", op_name="Add")),
    ("AddV2", "add_v2", _XY, _binary("math.add")),
    ("Sub", "sub", _XY, _binary("math.subtract")),
    ("Mul", "mul", _XY, _binary("math.multiply")),
    ("RealDiv", "real_div", _XY, _binary("realdiv")),
    ("Div", "div", _XY, _div),
    ("DivNoNan", "div_no_nan", _XY, _binary("math.divide_no_nan")),
    ("FloorDiv", "floor_div", _XY, _binary("math.floordiv")),
    ("FloorMod", "floor_mod", _XY, _binary("math.floormod")),
    ("Maximum", "maximum", _XY, _binary("math.maximum")),
    ("Minimum", "minimum", _XY, _binary("math.minimum")),
    ("Pow", "_pow", _XY, _binary("math.pow")),
    ("SquaredDifference", "squared_difference", _XY, _binary("math.squared_difference")),
    ("Atan2", "atan2", [("y", _REQUIRED), ("x", _REQUIRED)], _binary("math.atan2", "y", "x")),
    ("Xdivy", "xdivy", _XY, _binary("math.xdivy")),
    ("Xlog1py", "xlog1py", _XY, _binary("math.xlog1py")),
    ("Equal", "equal", _XY + [("incompatible_shape_error", True)], _binary("math.equal")),
    ("NotEqual", "not_equal", _XY + [("incompatible_shape_error", True)], _binary("math.not_equal")),
    ("Less", "less", _XY, _binary("math.less")),
    ("Greater", "greater", _XY, _binary("math.greater")),
    ("LessEqual", "less_equal", _XY, _binary("math.less_equal")),
    ("GreaterEqual", "greater_equal", _XY, _binary("math.greater_equal")),
    ("LogicalAnd", "logical_and", _XY, _binary("math.logical_and")),
    ("LogicalOr", "logical_or", _XY, _binary("math.logical_or")),
    # element-wise unary
    ("Neg", "neg", _X, _unary("math.negative")),
    ("Abs", "_abs", _X, _unary("math.abs")),
    ("Reciprocal", "reciprocal", _X, _unary("math.reciprocal")),
    ("Square", "square", _X, _unary("math.square")),
    ("Sqrt", "sqrt", _X, _unary("math.sqrt")),
    ("Rsqrt", "rsqrt", _X, _unary("math.rsqrt")),
    ("Exp", "exp", _X, _unary("math.exp")),
    ("Expm1", "expm1", _X, _unary("math.expm1")),
    ("Log", "log", _X, _unary("math.log")),
    ("Log1p", "log1p", _X, _unary("math.log1p")),
    ("Tanh", "tanh", _X, _unary("math.tanh")),
    ("Sigmoid", "sigmoid", _X, _unary("math.sigmoid")),
    ("Sin", "sin", _X, _unary("math.sin")),
    ("Cos", "cos", _X, _unary("math.cos")),
    ("Tan", "tan", _X, _unary("math.tan")),
    ("Floor", "floor", _X, _unary("math.floor")),
    ("Ceil", "ceil", _X, _unary("math.ceil")),
    ("Round", "round", _X, _unary("math.round")),
    ("Rint", "rint", _X, _unary("math.rint")),
    ("Sign", "sign", _X, _unary("math.sign")),
    ("Erf", "erf", _X, _unary("math.erf")),
    ("IsNan", "is_nan", _X, _unary("math.is_nan")),
    ("IsFinite", "is_finite", _X, _unary("math.is_finite")),
    ("IsInf", "is_inf", _X, _unary("math.is_inf")),
    ("LogicalNot", "logical_not", _X, _unary("math.logical_not")),
    ("ZerosLike", "zeros_like", _X, _unary("zeros_like")),
    ("OnesLike", "ones_like", _X, _unary("ones_like")),
    ("L2Loss", "l2_loss", [("t", _REQUIRED)], _unary("nn.l2_loss", "t")),
    ("Identity", "identity", [("input", _REQUIRED)], _unary("identity", "input")),
    ("Snapshot", "snapshot", [("input", _REQUIRED)], _unary("identity", "input")),
    ("StopGradient", "stop_gradient", [("input", _REQUIRED)], _unary("stop_gradient", "input")),
    ("IdentityN", "identity_n", [("input", _REQUIRED)], _unary("identity_n", "input")),
    ("AddN", "add_n", [("inputs", _REQUIRED)], _unary("math.add_n", "inputs")),
    # activations
    ("Relu", "relu", _F, _unary("nn.relu", "features")),
    ("Relu6", "relu6", _F, _unary("nn.relu6", "features")),
    ("Elu", "elu", _F, _unary("nn.elu", "features")),
    ("Selu", "selu", _F, _unary("nn.selu", "features")),
    ("Softplus", "softplus", _F, _unary("nn.softplus", "features")),
    ("Softsign", "softsign", _F, _unary("nn.softsign", "features")),
    ("LeakyRelu", "leaky_relu", _F + [("alpha", 0.2)],
     lambda features, alpha: _tf().nn.leaky_relu(features, alpha=alpha)),
    ("Softmax", "softmax", [("logits", _REQUIRED)], _unary("nn.softmax", "logits")),
    ("LogSoftmax", "log_softmax", [("logits", _REQUIRED)], _unary("nn.log_softmax", "logits")),
    ("BiasAdd", "bias_add", [("value", _REQUIRED), ("bias", _REQUIRED), ("data_format", "NHWC")],
     lambda value, bias, data_format: _tf().nn.bias_add(value, bias, data_format=data_format)),
    # matrix products
    ("MatMul", "mat_mul", [("a", _REQUIRED), ("b", _REQUIRED), ("transpose_a", False), ("transpose_b", False),
                           ("grad_a", False), ("grad_b", False)], _matmul),
    ("BatchMatMulV2", "batch_mat_mul_v2", _XY + [("adj_x", False), ("adj_y", False), ("grad_x", False),
                                                 ("grad_y", False)],
     lambda x, y, adj_x, adj_y, grad_x, grad_y: _tf().linalg.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)),
    ("Einsum", "einsum", [("inputs", _REQUIRED), ("equation", _REQUIRED)],
     lambda inputs, equation: _tf().einsum(equation, *inputs)),
    # reductions
    ("Sum", "_sum", _REDUCE, _reduce("reduce_sum")),
    ("Mean", "mean", _REDUCE, _reduce("reduce_mean")),
    ("Max", "_max", _REDUCE, _reduce("reduce_max")),
    ("Min", "_min", _REDUCE, _reduce("reduce_min")),
    ("Prod", "prod", _REDUCE, _reduce("reduce_prod")),
    ("All", "_all", _REDUCE, _reduce("reduce_all")),
    ("Any", "_any", _REDUCE, _reduce("reduce_any")),
    ("ArgMax", "arg_max", [("input", _REQUIRED), ("dimension", _REQUIRED), ("output_type", _dtypes.int64)],
     lambda input, dimension, output_type: _tf().math.argmax(input, axis=dimension, output_type=output_type)),
    ("ArgMin", "arg_min", [("input", _REQUIRED), ("dimension", _REQUIRED), ("output_type", _dtypes.int64)],
     lambda input, dimension, output_type: _tf().math.argmin(input, axis=dimension, output_type=output_type)),
    ("Cumsum", "cumsum", [("x", _REQUIRED), ("axis", _REQUIRED), ("exclusive", False), ("reverse", False)],
     lambda x, axis, exclusive, reverse: _tf().math.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse)),
    ("Cumprod", "cumprod", [("x", _REQUIRED), ("axis", _REQUIRED), ("exclusive", False), ("reverse", False)],
     lambda x, axis, exclusive, reverse: _tf().math.cumprod(x, axis=axis, exclusive=exclusive, reverse=reverse)),
    # shapes and layout
    ("Reshape", "reshape", [("tensor", _REQUIRED), ("shape", _REQUIRED)],
     lambda tensor, shape: _tf().reshape(tensor, shape)),
    ("Transpose", "transpose", [("x", _REQUIRED), ("perm", _REQUIRED)], lambda x, perm: _tf().transpose(x, perm)),
    ("ConcatV2", "concat_v2", [("values", _REQUIRED), ("axis", _REQUIRED)],
     lambda values, axis: _tf().concat(values, axis)),
    ("Pack", "pack", [("values", _REQUIRED), ("axis", 0)], lambda values, axis: _tf().stack(values, axis=axis)),
    ("Unpack", "unpack", [("value", _REQUIRED), ("num", _REQUIRED), ("axis", 0)],
     lambda value, num, axis: _tf().unstack(value, num=num, axis=axis)),
    ("ExpandDims", "expand_dims", [("input", _REQUIRED), ("axis", _REQUIRED)],
     lambda input, axis: _tf().expand_dims(input, axis)),
    ("Squeeze", "squeeze", [("input", _REQUIRED), ("axis", [])],
     lambda input, axis: _tf().squeeze(input, axis=list(axis) or None)),
    ("Tile", "tile", [("input", _REQUIRED), ("multiples", _REQUIRED)],
     lambda input, multiples: _tf().tile(input, multiples)),
    ("BroadcastTo", "broadcast_to", [("input", _REQUIRED), ("shape", _REQUIRED)],
     lambda input, shape: _tf().broadcast_to(input, shape)),
    ("ReverseV2", "reverse_v2", [("tensor", _REQUIRED), ("axis", _REQUIRED)],
     lambda tensor, axis: _tf().reverse(tensor, axis)),
    ("Split", "split", [("axis", _REQUIRED), ("value", _REQUIRED), ("num_split", _REQUIRED)],
     lambda axis, value, num_split: _tf().split(value, num_split, axis=axis)),
    ("SplitV", "split_v", [("value", _REQUIRED), ("size_splits", _REQUIRED), ("axis", _REQUIRED),
                           ("num_split", _REQUIRED)],
     lambda value, size_splits, axis, num_split: _tf().split(value, size_splits, axis=axis, num=num_split)),
    ("Slice", "_slice", [("input", _REQUIRED), ("begin", _REQUIRED), ("size", _REQUIRED)],
     lambda input, begin, size: _tf().slice(input, begin, size)),
    ("Pad", "pad", [("input", _REQUIRED), ("paddings", _REQUIRED)], lambda input, paddings: _tf().pad(input, paddings)),
    ("Shape", "shape", [("input", _REQUIRED), ("out_type", _dtypes.int32)],
     lambda input, out_type: _tf().shape(input, out_type=out_type)),
    ("ShapeN", "shape_n", [("input", _REQUIRED), ("out_type", _dtypes.int32)],
     lambda input, out_type: _tf().shape_n(input, out_type=out_type)),
    ("Size", "size", [("input", _REQUIRED), ("out_type", _dtypes.int32)],
     lambda input, out_type: _tf().size(input, out_type=out_type)),
    ("Rank", "rank", [("input", _REQUIRED)], _unary("rank", "input")),
    # creation and casts
    ("Cast", "cast", [("x", _REQUIRED), ("DstT", _REQUIRED), ("Truncate", False)],
     lambda x, DstT, Truncate: _tf().cast(x, DstT)),  # noqa: N803  (TF's attribute names)
    ("Fill", "fill", [("dims", _REQUIRED), ("value", _REQUIRED)], lambda dims, value: _tf().fill(dims, value)),
    ("Range", "_range", [("start", _REQUIRED), ("limit", _REQUIRED), ("delta", _REQUIRED)],
     lambda start, limit, delta: _tf().range(*_matching(start, limit, delta, default=_dtypes.int32))),
    ("OneHot", "one_hot", [("indices", _REQUIRED), ("depth", _REQUIRED), ("on_value", _REQUIRED),
                           ("off_value", _REQUIRED), ("axis", -1)],
     lambda indices, depth, on_value, off_value, axis: _tf().one_hot(indices, depth, on_value=on_value,
                                                                     off_value=off_value, axis=axis)),
    # gathers and selection
    ("GatherV2", "gather_v2", [("params", _REQUIRED), ("indices", _REQUIRED), ("axis", _REQUIRED),
                               ("batch_dims", 0)],
     lambda params, indices, axis, batch_dims: _gather.gather(params, indices, axis=axis, batch_dims=batch_dims)),
    ("GatherNd", "gather_nd", [("params", _REQUIRED), ("indices", _REQUIRED), ("bad_indices_policy", "")],
     lambda params, indices, bad_indices_policy: _tf().gather_nd(params, indices)),
    ("Select", "select", [("condition", _REQUIRED), ("x", _REQUIRED), ("y", _REQUIRED)], _select),
    ("SelectV2", "select_v2", [("condition", _REQUIRED), ("t", _REQUIRED), ("e", _REQUIRED)],
     lambda condition, t, e: _tf().where(condition, t, e)),
    ("Where", "where", [("condition", _REQUIRED)], lambda condition: _tf().where(condition)),
    ("TopKV2", "top_kv2", [("input", _REQUIRED), ("k", _REQUIRED), ("sorted", True),
                           ("index_type", _dtypes.int32)], _top_k),
    ("ClipByValue", "_clip_by_value", [("t", _REQUIRED), ("clip_value_min", _REQUIRED),
                                       ("clip_value_max", _REQUIRED)],
     lambda t, clip_value_min, clip_value_max: _tf().clip_by_value(t, clip_value_min, clip_value_max)),
    # convolution and pooling
    ("Conv2D", "conv2d", [("input", _REQUIRED), ("filter", _REQUIRED), ("strides", _REQUIRED),
                          ("padding", _REQUIRED), ("use_cudnn_on_gpu", True), ("explicit_paddings", []),
                          ("data_format", "NHWC"), ("dilations", [1, 1, 1, 1])], _conv2d),
    ("MaxPool", "max_pool", [("input", _REQUIRED), ("ksize", _REQUIRED), ("strides", _REQUIRED),
                             ("padding", _REQUIRED), ("explicit_paddings", []), ("data_format", "NHWC")],
     _pool("max")),
    ("AvgPool", "avg_pool", [("value", _REQUIRED), ("ksize", _REQUIRED), ("strides", _REQUIRED),
                             ("padding", _REQUIRED), ("data_format", "NHWC")],
     lambda value, ksize, strides, padding, data_format: _pool("avg")(value, ksize, strides, padding, data_format)),
]

globals().update({op_name: _make(op_name, py_name, params, impl) for op_name, py_name, params, impl in _TABLE})
__all__ = [op_name for op_name, *_ in _TABLE]
