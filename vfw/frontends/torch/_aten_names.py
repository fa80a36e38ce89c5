"""ATen names of engine ops, for the profiler's events and exported programs' value names."""

import functools
import re

# ATen names of the operations engine ops stand for (others: "aten::" and the op type in snake case).
_ATEN_NAMES = {
    "Gemm": "addmm", "MatMul": "matmul", "Relu": "relu", "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div",
    "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Neg": "neg", "Sqrt": "sqrt", "Pow": "pow",
    "Abs": "abs", "Softmax": "softmax", "LogSoftmax": "log_softmax", "Conv": "convolution",
    "ConvTranspose": "convolution", "MaxPool": "max_pool2d", "AveragePool": "avg_pool2d", "ReduceSum": "sum",
    "ReduceMean": "mean", "ReduceMax": "amax", "ReduceMin": "amin", "Cast": "to", "Transpose": "permute",
    "Reshape": "reshape", "Concat": "cat", "Gelu": "gelu", "BatchNormalization": "batch_norm",
    "LayerNormalization": "layer_norm", "Where": "where", "Identity": "clone", "Gather": "index_select",
    "Dropout": "dropout", "Einsum": "einsum", "Clip": "clamp", "Erf": "erf", "Sin": "sin", "Cos": "cos",
}


@functools.cache
def aten_name(op_type):
    """The ATen operator name (without ``aten::``) torch gives what the engine op ``op_type`` computes."""
    return _ATEN_NAMES.get(op_type, re.sub(r"(?<!^)(?=[A-Z])", "_", op_type).lower())
